package io.futureq.reliability;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.google.protobuf.ByteString;
import io.futureq.api.grpc.ConsumerFrame;
import io.futureq.api.grpc.DeliveryFrame;
import io.futureq.api.grpc.Message;
import io.futureq.api.grpc.PublishRequest;
import io.futureq.api.grpc.SubscribeInit;
import io.futureq.client.ConsumerOptions;
import io.futureq.client.FutureQClient;
import io.futureq.client.FutureQConsumer;
import io.futureq.client.FutureQProducer;
import io.futureq.client.OutgoingMessage;
import io.futureq.client.ProducerOptions;
import io.futureq.client.ReceivedMessage;
import io.futureq.client.SendResult;
import io.futureq.e2e.BrokerExtension;
import io.futureq.testing.Await;
import io.futureq.testing.Groups;
import io.grpc.CallOptions;
import io.grpc.ClientCall;
import io.grpc.ManagedChannel;
import io.grpc.Metadata;
import io.grpc.MethodDescriptor.MethodType;
import io.grpc.Status;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.lang.management.ManagementFactory;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.TreeMap;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Bad bytes and hostile clients against one in-process broker: each test feeds it something no
 * well-behaved client sends, checks the answer, and then checks that a normal publish and consume
 * still work. What the broker answered is printed as {@code [hostile]} lines.
 */
@Timeout(value = 240, unit = TimeUnit.SECONDS)
class HostileInputTest {
  private static final Duration WAIT = Duration.ofSeconds(15);

  @RegisterExtension
  static final BrokerExtension broker = BrokerExtension.withDefaults();
  static FutureQClient client;
  static FutureQProducer producer;
  static int port;

  @BeforeAll
  static void startBroker() {
    port = broker.grpcPort();
    client = FutureQClient.builder().target("127.0.0.1:" + port).requestTimeout(Duration.ofSeconds(10)).build();
    producer = client.producer(ProducerOptions.defaults().withLinger(Duration.ofMillis(1)));
  }

  @AfterAll
  static void stopBroker() {
    if (producer != null) {
      producer.close();
    }
    if (client != null) {
      client.close();
    }
  }

  @AfterEach
  void stillServes() throws Exception {
    assertStillServes();
  }

  // (a) -----------------------------------------------------------------------------------------

  @Test
  void randomBytesOnTheGrpcPortAreDroppedAndTheBrokerKeepsServing() throws Exception {
    Random random = new Random(42);
    List<String> noise = new ArrayList<>();
    List<String> frames = new ArrayList<>();
    List<String> unframed = new ArrayList<>();
    for (int i = 0; i < 3; i++) {
      noise.add(sendAndAwaitClose(randomBytes(random, 2048 + random.nextInt(4096)), WAIT));
      frames.add(sendAndAwaitClose(concat(PREFACE, randomFrames(random, 4096)), WAIT));
    }
    for (int i = 0; i < 2; i++) {
      // the 9 bytes after the preface declare a frame of up to 16 MiB, which the broker then waits for
      unframed.add(sendAndAwaitClose(concat(PREFACE, randomBytes(random, 4096)), Duration.ofSeconds(3)));
    }
    say("(a) random bytes (HTTP/1 parser): " + noise);
    say("(a) HTTP/2 preface + random frames of legal sizes: " + frames);
    say("(a) HTTP/2 preface + raw noise (random frame lengths): " + unframed);
    for (String outcome : noise) {
      assertTrue(outcome.startsWith("closed by the broker"), noise.toString());
    }
    for (String outcome : frames) {
      assertTrue(outcome.startsWith("closed by the broker"), frames.toString());
    }
  }

  private static final byte[] PREFACE = "PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n".getBytes(StandardCharsets.US_ASCII);

  private static byte[] randomBytes(Random random, int n) {
    byte[] bytes = new byte[n];
    random.nextBytes(bytes);
    return bytes;
  }

  /** Frames with random type, flags, stream and payload, each within the default 16 KiB frame size. */
  private static byte[] randomFrames(Random random, int total) {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    while (out.size() < total) {
      int length = random.nextInt(512);
      out.write(length >> 16);
      out.write(length >> 8);
      out.write(length);
      out.write(random.nextInt(10));
      out.write(random.nextInt(256));
      out.writeBytes(ByteBuffer.allocate(4).putInt(random.nextInt()).array());
      out.writeBytes(randomBytes(random, length));
    }
    return out.toByteArray();
  }

  private static byte[] concat(byte[] a, byte[] b) {
    byte[] out = Arrays.copyOf(a, a.length + b.length);
    System.arraycopy(b, 0, out, a.length, b.length);
    return out;
  }

  /** Writes {@code bytes} (stopping if the broker closes first) and reads until the broker closes. */
  private static String sendAndAwaitClose(byte[] bytes, Duration wait) throws Exception {
    try (Socket socket = new Socket("127.0.0.1", port)) {
      socket.setSoTimeout((int) wait.toMillis());
      OutputStream out = socket.getOutputStream();
      int written = 0;
      try {
        for (; written < bytes.length; written += 512) {
          out.write(bytes, written, Math.min(512, bytes.length - written));
        }
        out.flush();
      } catch (IOException e) {
        // the broker closed while we were still writing
      }
      InputStream in = socket.getInputStream();
      ByteArrayOutputStream answer = new ByteArrayOutputStream();
      byte[] buffer = new byte[4096];
      long start = System.currentTimeMillis();
      try {
        for (int n; (n = in.read(buffer)) >= 0; ) {
          answer.write(buffer, 0, n);
        }
      } catch (SocketTimeoutException e) {
        return "still open after " + wait.toMillis() + " ms (" + answer.size() + " bytes answered: "
            + frameTypes(answer.toByteArray()) + ")";
      } catch (IOException e) {
        // reset by the broker: closed too
      }
      String text = answer.toString(StandardCharsets.ISO_8859_1);
      String first = text.isEmpty() ? "nothing" : text.startsWith("HTTP/") ? text.lines().findFirst().orElse("")
          : answer.size() + " bytes (HTTP/2 frames: " + frameTypes(answer.toByteArray()) + ")";
      return "closed by the broker after " + (System.currentTimeMillis() - start) + " ms, answered " + first;
    }
  }

  /** The frame types of a server's HTTP/2 byte stream, e.g. [SETTINGS, GOAWAY]. */
  private static List<String> frameTypes(byte[] bytes) {
    String[] names = {"DATA", "HEADERS", "PRIORITY", "RST_STREAM", "SETTINGS", "PUSH_PROMISE", "PING", "GOAWAY",
        "WINDOW_UPDATE", "CONTINUATION"};
    List<String> types = new ArrayList<>();
    for (int at = 0; at + 9 <= bytes.length; ) {
      int length = ((bytes[at] & 0xff) << 16) | ((bytes[at + 1] & 0xff) << 8) | (bytes[at + 2] & 0xff);
      int type = bytes[at + 3] & 0xff;
      types.add(type < names.length ? names[type] : "0x" + Integer.toHexString(type));
      at += 9 + length;
    }
    return types;
  }

  // (b) -----------------------------------------------------------------------------------------

  @Test
  void malformedProtobufGetsAnErrorStatusAndTheBrokerKeepsServing() throws Exception {
    ManagedChannel channel = RawGrpc.channel(port);
    try {
      Random random = new Random(7);
      byte[] noise = new byte[1500];
      random.nextBytes(noise);
      Map<String, byte[]> bodies = new TreeMap<>();
      bodies.put("random bytes", noise);
      bodies.put("truncated varint", new byte[] {0x1a, (byte) 0xff, (byte) 0xff, (byte) 0xff});
      bodies.put("length past the end", new byte[] {0x1a, 0x7f, 0x0a, 0x01, 0x74});
      bodies.put("wrong wire type for messages", new byte[] {0x1d, 1, 2, 3, 4});
      bodies.put("end-group without start", new byte[] {0x0c});
      Map<String, String> answers = new TreeMap<>();
      for (Map.Entry<String, byte[]> body : bodies.entrySet()) {
        RawGrpc.Outcome publish = RawGrpc.call(channel, RawGrpc.raw("futureq.v1.Producer/Publish", MethodType.UNARY),
            new Metadata(), WAIT, body.getValue());
        answers.put("Publish, " + body.getKey(), publish.toString());
        assertEquals(Status.Code.INVALID_ARGUMENT, publish.code(), body.getKey() + ": " + publish);
      }
      RawGrpc.Outcome stream = RawGrpc.call(channel, RawGrpc.raw("futureq.v1.Producer/PublishStream",
          MethodType.BIDI_STREAMING), new Metadata(), WAIT, noise);
      answers.put("PublishStream, random bytes", stream + ", " + stream.messages().size() + " responses");
      assertEquals(Status.Code.INVALID_ARGUMENT, stream.code(), stream.toString());
      RawGrpc.Outcome subscribe = RawGrpc.call(channel, RawGrpc.raw("futureq.v1.Consumer/Subscribe",
          MethodType.BIDI_STREAMING), new Metadata(), WAIT, noise);
      answers.put("Subscribe, random bytes as the init frame", subscribe.toString());
      assertEquals(Status.Code.INVALID_ARGUMENT, subscribe.code(), subscribe.toString());
      answers.forEach((what, answer) -> say("(b) " + what + " -> " + answer));
      // the same connection still serves a well-formed call
      byte[] good = PublishRequest.newBuilder().setRequestId("ok").addMessages(Message.newBuilder()
          .setTopic("hostile-b").setPayload(ByteString.copyFromUtf8("fine"))).build().toByteArray();
      RawGrpc.Outcome ok = RawGrpc.call(channel, RawGrpc.raw("futureq.v1.Producer/Publish", MethodType.UNARY),
          new Metadata(), WAIT, good);
      assertEquals(Status.Code.OK, ok.code(), ok.toString());
    } finally {
      channel.shutdownNow().awaitTermination(10, TimeUnit.SECONDS);
    }
  }

  @Test
  void everyMalformedUnaryPublishIsAnsweredInvalidArgumentNotCancelled() throws Exception {
    // The handler stops reading at the parse failure; before the unary drain, about 2 % of these
    // calls raced the client's end-of-stream and were reset (CANCELLED) instead of answered.
    ManagedChannel channel = RawGrpc.channel(port);
    try {
      Map<Status.Code, Integer> codes = new TreeMap<>();
      for (int i = 0; i < 300; i++) {
        RawGrpc.Outcome publish = RawGrpc.call(channel, RawGrpc.raw("futureq.v1.Producer/Publish", MethodType.UNARY),
            new Metadata(), WAIT, new byte[] {0x1a, (byte) 0xff, (byte) 0xff, (byte) 0xff});
        codes.merge(publish.code(), 1, Integer::sum);
      }
      assertEquals(Map.of(Status.Code.INVALID_ARGUMENT, 300), codes);
    } finally {
      channel.shutdownNow().awaitTermination(10, TimeUnit.SECONDS);
    }
  }

  // (c) -----------------------------------------------------------------------------------------

  @Test
  void oversizedMetadataIsRefusedAndTheBrokerKeepsServing() throws Exception {
    ManagedChannel channel = RawGrpc.channel(port);
    try {
      Metadata headers = new Metadata();
      headers.put(Metadata.Key.of("x-huge", Metadata.ASCII_STRING_MARSHALLER), "x".repeat(64 * 1024));
      byte[] request = PublishRequest.newBuilder().setRequestId("big-header").addMessages(Message.newBuilder()
          .setTopic("hostile-c").setPayload(ByteString.copyFromUtf8("x"))).build().toByteArray();
      RawGrpc.Outcome outcome = RawGrpc.call(channel, RawGrpc.raw("futureq.v1.Producer/Publish", MethodType.UNARY),
          headers, WAIT, request);
      say("(c) Publish with a 64 KiB header value -> " + outcome);
      assertNotEquals(Status.Code.OK, outcome.code(), outcome.toString());

      Metadata many = new Metadata();
      for (int i = 0; i < 2000; i++) {
        many.put(Metadata.Key.of("x-h" + i, Metadata.ASCII_STRING_MARSHALLER), "v".repeat(40));
      }
      RawGrpc.Outcome manyOutcome = RawGrpc.call(channel, RawGrpc.raw("futureq.v1.Producer/Publish",
          MethodType.UNARY), many, WAIT, request);
      say("(c) Publish with 2,000 headers (~100 KiB) -> " + manyOutcome);
      assertNotEquals(Status.Code.OK, manyOutcome.code(), manyOutcome.toString());
    } finally {
      channel.shutdownNow().awaitTermination(10, TimeUnit.SECONDS);
    }
  }

  // (d) -----------------------------------------------------------------------------------------

  @Test
  void anUnknownMethodOrServiceIsUnimplemented() throws Exception {
    ManagedChannel channel = RawGrpc.channel(port);
    try {
      for (String method : List.of("futureq.v1.Producer/Nope", "futureq.v1.Nope/Publish",
          "futureq.v2.Producer/Publish")) {
        RawGrpc.Outcome outcome = RawGrpc.call(channel, RawGrpc.raw(method, MethodType.UNARY), new Metadata(), WAIT,
            new byte[0]);
        say("(d) " + method + " -> " + outcome);
        assertEquals(Status.Code.UNIMPLEMENTED, outcome.code(), method + ": " + outcome);
      }
    } finally {
      channel.shutdownNow().awaitTermination(10, TimeUnit.SECONDS);
    }
  }

  // (e) -----------------------------------------------------------------------------------------

  @Test
  void twoThousandAbandonedSubscribeStreamsLeaveNoConsumerAndLittleHeapBehind() throws Exception {
    String topic = "hostile-e";
    String group = "abandoners";
    int backlog = 600;
    List<CompletableFuture<SendResult>> sent = new ArrayList<>();
    for (int i = 0; i < backlog; i++) {
      sent.add(producer.send(OutgoingMessage.to(topic).payload("b-" + i).build()));
    }
    CompletableFuture.allOf(sent.toArray(CompletableFuture[]::new)).get(30, TimeUnit.SECONDS);
    long heapBefore = usedHeapAfterGc();

    int waves = 10;
    int perWave = 200;
    int channelsPerWave = 4;
    AtomicInteger deliveries = new AtomicInteger();
    Map<String, AtomicInteger> closes = new ConcurrentHashMap<>();
    List<Integer> attachedPerWave = new ArrayList<>();
    List<Integer> leftPerWave = new ArrayList<>();
    for (int wave = 0; wave < waves; wave++) {
      List<ManagedChannel> channels = new ArrayList<>();
      for (int c = 0; c < channelsPerWave; c++) {
        channels.add(RawGrpc.channel(port));
      }
      List<ClientCall<ConsumerFrame, DeliveryFrame>> calls = new ArrayList<>();
      for (int s = 0; s < perWave; s++) {
        ClientCall<ConsumerFrame, DeliveryFrame> call = channels.get(s % channelsPerWave).newCall(RawGrpc.SUBSCRIBE,
            CallOptions.DEFAULT);
        call.start(new ClientCall.Listener<>() {
          @Override
          public void onMessage(DeliveryFrame frame) {
            deliveries.addAndGet(frame.getDeliveriesCount());
          }

          @Override
          public void onClose(Status status, Metadata trailers) {
            closes.computeIfAbsent(status.getCode().toString(), k -> new AtomicInteger()).incrementAndGet();
          }
        }, new Metadata());
        call.request(10);
        call.sendMessage(ConsumerFrame.newBuilder().setInit(SubscribeInit.newBuilder().setTopic(topic)
            .setGroup(group).setMaxInFlight(2)).build());
        calls.add(call);
      }
      attachedPerWave.add(awaitConsumers(topic, group, perWave, WAIT));
      if (wave % 2 == 0) {
        calls.forEach(call -> call.cancel("abandoned", null));
        channels.forEach(ManagedChannel::shutdown);
      } else {
        channels.forEach(ManagedChannel::shutdownNow); // the connections just drop
      }
      for (ManagedChannel channel : channels) {
        channel.awaitTermination(10, TimeUnit.SECONDS);
      }
      leftPerWave.add(awaitConsumers(topic, group, 0, WAIT));
    }
    int left = consumers(topic, group);
    long heapAfter = usedHeapAfterGc();
    say("(e) " + waves * perWave + " Subscribe streams in " + waves + " waves of " + perWave + " over "
        + channelsPerWave + " connections (even waves cancelled, odd waves' connections dropped): consumers "
        + "attached per wave " + attachedPerWave + ", left after each wave " + leftPerWave + ", " + deliveries.get()
        + " deliveries to them, client-side "
        + "closes " + closes + "; consumers left afterwards " + left + "; broker+test heap after GC "
        + mib(heapBefore) + " -> " + mib(heapAfter) + " MiB");
    for (int attached : attachedPerWave) {
      assertEquals(perWave, attached, "every stream of a wave joined the group: " + attachedPerWave);
    }
    assertEquals(Collections.nCopies(waves, 0), leftPerWave, "abandoned streams must leave their group");
    assertEquals(0, left, "abandoned streams must leave their group");
    assertTrue(heapAfter - heapBefore < 200L << 20, "heap grew by " + mib(heapAfter - heapBefore) + " MiB");

    // a normal subscriber of the same group gets the whole backlog, and a new message promptly
    LinkedBlockingQueue<ReceivedMessage> got = new LinkedBlockingQueue<>();
    try (FutureQConsumer consumer = client.subscribe(topic, group, got::add, ConsumerOptions.defaults())) {
      Set<String> payloads = ConcurrentHashMap.newKeySet();
      long until = System.currentTimeMillis() + 60_000;
      while (payloads.size() < backlog && System.currentTimeMillis() < until) {
        ReceivedMessage m = got.poll(1, TimeUnit.SECONDS);
        if (m != null) {
          payloads.add(new String(m.payload(), StandardCharsets.UTF_8));
        }
      }
      assertEquals(backlog, payloads.size(), "backlog delivered to a normal subscriber after the abandoned streams");
      long sentAt = System.currentTimeMillis();
      producer.send(OutgoingMessage.to(topic).payload("fresh").build()).get(10, TimeUnit.SECONDS);
      ReceivedMessage fresh = got.poll(10, TimeUnit.SECONDS);
      assertNotNull(fresh, "a new message reaches the normal subscriber");
      assertEquals("fresh", new String(fresh.payload(), StandardCharsets.UTF_8));
      say("(e) afterwards a normal subscriber got the " + backlog + "-message backlog and a new message "
          + (fresh.receivedAtUnixMs() - sentAt) + " ms after its publish call");
    }
  }

  /** Waits until {@code group} of {@code topic} has {@code expected} consumers; returns the last count seen. */
  private static int awaitConsumers(String topic, String group, int expected, Duration within) {
    int[] seen = {-1};
    Await.holdsWithin("group " + group + " of " + topic + " has " + expected + " consumers", within,
        () -> (seen[0] = consumers(topic, group)) == expected);
    return seen[0];
  }

  private static int consumers(String topic, String group) throws Exception {
    return Groups.consumers(client, topic, group);
  }

  // (f) -----------------------------------------------------------------------------------------

  @Test
  void aConsumerThatNeverReadsCostsItsGroupAtMostItsMaxInFlightAndOtherGroupsNothing() throws Exception {
    String topic = "hostile-f";
    int count = 40;
    String padding = "p".repeat(8 * 1024);
    // the stalled client: a 64 KiB receive window that it never frees (no request(n), no acks)
    ManagedChannel stalledChannel = RawGrpc.channel(port, 64 * 1024);
    CompletableFuture<Status> stalledClosed = new CompletableFuture<>();
    ClientCall<ConsumerFrame, DeliveryFrame> stalled = stalledChannel.newCall(RawGrpc.SUBSCRIBE, CallOptions.DEFAULT);
    stalled.start(new ClientCall.Listener<>() {
      @Override
      public void onClose(Status status, Metadata trailers) {
        stalledClosed.complete(status);
      }
    }, new Metadata());
    stalled.sendMessage(ConsumerFrame.newBuilder().setInit(SubscribeInit.newBuilder().setTopic(topic).setGroup("A")
        .setMaxInFlight(50)).build());

    Seen groupB = new Seen();
    Seen groupA = new Seen();
    try (FutureQConsumer b = client.subscribe(topic, "B", groupB::record, ConsumerOptions.defaults());
        FutureQConsumer a2 = client.subscribe(topic, "A", groupA::record, ConsumerOptions.defaults())) {
      assertEquals(2, awaitConsumers(topic, "A", 2, WAIT), "stalled + normal consumer in group A");
      assertEquals(1, awaitConsumers(topic, "B", 1, WAIT), "normal consumer in group B");
      for (int i = 0; i < count; i++) {
        producer.send(OutgoingMessage.to(topic).payload("f-" + i + "-" + padding).build()).get(10, TimeUnit.SECONDS);
        Thread.sleep(100); // paces the load at 10 messages a second: the rate is what this step is about
      }
      groupB.await("f-", count, Duration.ofSeconds(30));
      groupA.await("f-", count, Duration.ofSeconds(60));
      Status stalledStatus = stalledClosed.getNow(null);
      say("(f) " + count + " messages of 8 KiB at 10/s; the stalled group-A client (max_in_flight 50, 64 KiB window, "
          + "never reads): " + (stalledStatus == null ? "stream still open" : "closed with " + stalledStatus.getCode())
          + ", group A has " + consumers(topic, "A") + " consumers; group B got " + groupB.count("f-")
          + ", latest " + groupB.maxLateness("f-") + " ms after due, max attempt " + groupB.maxAttempt
          + "; group A's normal consumer got " + groupA.count("f-") + ", latest " + groupA.maxLateness("f-")
          + " ms after due, max attempt " + groupA.maxAttempt);
      assertEquals(count, groupB.count("f-"), "group B got every message");
      assertTrue(groupB.maxLateness("f-") < 3000, "group B kept receiving on time; latest "
          + groupB.maxLateness("f-") + " ms after due");
      assertEquals(count, groupA.count("f-"), "group A's normal consumer got every message");

      // Bounded: a delivery that timed out keeps the stalled consumer's credit until it answers, so it
      // takes at most its max_in_flight (50) deliveries in all; everything else goes to the healthy one.
      String big = "q".repeat(64 * 1024);
      long heapBefore = usedHeapAfterGc();
      long heapMax = heapBefore;
      int more = 500;
      for (int i = 0; i < more; i++) {
        producer.send(OutgoingMessage.to(topic).payload("g-" + i + "-" + big).build());
        if (i % 10 == 9) {
          Thread.sleep(200); // paces the load at 50 messages a second: the rate is what this step is about
        }
        if (i % 100 == 99) {
          heapMax = Math.max(heapMax, usedHeapAfterGc());
        }
      }
      groupA.await("g-", more, Duration.ofSeconds(60));
      groupB.await("g-", more, Duration.ofSeconds(30));
      long heapAfter = usedHeapAfterGc();
      Status closed = stalledClosed.getNow(null);
      say("(f) then " + more + " messages of 64 KiB at 50/s: group A's normal consumer got " + groupA.count("g-")
          + ", latest " + groupA.maxLateness("g-") + " ms after due; group B got " + groupB.count("g-") + ", latest "
          + groupB.maxLateness("g-") + " ms after due; redeliveries that reached group A's normal consumer in all "
          + groupA.redeliveries() + " (max attempt " + groupA.maxAttempt + "); group A has " + consumers(topic, "A")
          + " consumers (the stalled client " + (closed == null ? "saw no status" : "saw " + closed.getCode())
          + "); heap after GC " + mib(heapBefore) + " MiB before, at most " + mib(heapMax) + " MiB during, "
          + mib(heapAfter) + " MiB after");
      assertEquals(more, groupB.count("g-"), "group B got every message");
      assertTrue(groupB.maxLateness("g-") < 3000, "group B kept receiving on time; latest "
          + groupB.maxLateness("g-") + " ms after due");
      assertEquals(more, groupA.count("g-"), "group A's normal consumer got every message");
      assertTrue(groupA.redeliveries() <= 50 + 10, "the stalled consumer took at most its max_in_flight (50) "
          + "deliveries, each redelivered once to the healthy consumer; redeliveries seen " + groupA.redeliveries());
      assertTrue(heapMax - heapBefore < 200L << 20, "heap grew by " + mib(heapMax - heapBefore) + " MiB");
    } finally {
      stalled.cancel("done", null);
      stalledChannel.shutdownNow().awaitTermination(10, TimeUnit.SECONDS);
    }
  }

  /** What one consumer saw, keeping no payloads: payload id -> ms from due to first receipt, highest attempt. */
  private static final class Seen {
    final Map<String, Long> lateness = new ConcurrentHashMap<>();
    final AtomicInteger maxAttempt = new AtomicInteger();

    final AtomicInteger extraAttempts = new AtomicInteger();

    void record(ReceivedMessage m) {
      byte[] payload = m.payload();
      String head = new String(payload, 0, Math.min(payload.length, 24), StandardCharsets.UTF_8);
      if (lateness.putIfAbsent(head.substring(0, head.indexOf('-', 2) + 1),
          m.receivedAtUnixMs() - m.dueAtUnixMs()) == null) {
        extraAttempts.addAndGet(m.attempt() - 1);
      }
      maxAttempt.accumulateAndGet(m.attempt(), Math::max);
    }

    /** Deliveries elsewhere before this consumer's first receipt, summed over messages. */
    int redeliveries() {
      return extraAttempts.get();
    }

    int count(String prefix) {
      return (int) lateness.keySet().stream().filter(k -> k.startsWith(prefix)).count();
    }

    long maxLateness(String prefix) {
      return lateness.entrySet().stream().filter(e -> e.getKey().startsWith(prefix)).mapToLong(Map.Entry::getValue)
          .max().orElse(-1);
    }

    /** Waits for {@code n} messages of {@code prefix}; the counts are asserted after they are reported. */
    void await(String prefix, int n, Duration within) {
      Await.holdsWithin(n + " messages " + prefix + "*", within, () -> count(prefix) >= n);
    }
  }

  // ---------------------------------------------------------------------------------------------

  /** /ready answers 200, and a message published now on a new topic reaches a new subscriber. */
  private static void assertStillServes() throws Exception {
    HttpResponse<String> ready = HttpClient.newHttpClient().send(HttpRequest.newBuilder(URI.create(
        "http://127.0.0.1:" + broker.managementPort() + "/ready")).timeout(Duration.ofSeconds(5)).build(),
        HttpResponse.BodyHandlers.ofString());
    assertEquals(200, ready.statusCode(), "broker not ready: " + ready.body());
    String topic = "still-serves-" + UUID.randomUUID();
    String payload = "alive-" + UUID.randomUUID();
    LinkedBlockingQueue<ReceivedMessage> got = new LinkedBlockingQueue<>();
    try (FutureQConsumer consumer = client.subscribe(topic, "check", got::add, ConsumerOptions.defaults())) {
      producer.send(OutgoingMessage.to(topic).payload(payload).build()).get(10, TimeUnit.SECONDS);
      ReceivedMessage m = got.poll(WAIT.toMillis(), TimeUnit.MILLISECONDS);
      assertNotNull(m, "a normal publish and consume still work");
      assertEquals(payload, new String(m.payload(), StandardCharsets.UTF_8));
    }
  }

  private static long usedHeapAfterGc() throws InterruptedException {
    for (int i = 0; i < 3; i++) {
      System.gc();
      Thread.sleep(300); // lets the collection and its reference processing settle: no event to await
    }
    return ManagementFactory.getMemoryMXBean().getHeapMemoryUsage().getUsed();
  }

  private static long mib(long bytes) {
    return bytes >> 20;
  }

  private static void say(String line) {
    System.out.println("[hostile] " + line);
  }
}
