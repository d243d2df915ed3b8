package io.futureq.bench;

import com.sun.management.OperatingSystemMXBean;
import io.futureq.api.grpc.AckFrame;
import io.futureq.api.grpc.ConsumerFrame;
import io.futureq.api.grpc.DeliveryFrame;
import io.grpc.CallOptions;
import io.grpc.Channel;
import io.grpc.ClientCall;
import io.grpc.Grpc;
import io.grpc.InsecureChannelCredentials;
import io.grpc.ManagedChannel;
import io.grpc.Metadata;
import io.grpc.MethodDescriptor;
import io.grpc.Status;
import io.grpc.protobuf.ProtoUtils;
import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;

/**
 * The client half of the gRPC floor bench ({@code scripts/grpc-floor-bench.sh}): plain grpc-java, as the bench's
 * {@code --ack-each} consumers, on one channel. Each of {@code streams} streams keeps {@code inFlight} frames of one
 * ack each in flight: it sends one frame for each delivery that comes back. A warm-up run, then {@code runs} runs
 * of {@code count} round trips (one frame in, one delivery out) over all streams; for each measured run it prints the
 * server's CPU (user + system, {@code /proc/PID/stat}) and context switches (summed over its threads,
 * {@code /proc/PID/task/TID/status}) per round trip, the round trips per second, and the server threads that used
 * most CPU.
 *
 * <p>Arguments: host:port, server pid, streams, in flight, count, warm-up count, runs, label.
 */
public final class GrpcFloorClient {
  private static final MethodDescriptor<ConsumerFrame, DeliveryFrame> SUBSCRIBE =
      MethodDescriptor.<ConsumerFrame, DeliveryFrame>newBuilder()
          .setType(MethodDescriptor.MethodType.BIDI_STREAMING)
          .setFullMethodName(MethodDescriptor.generateFullMethodName("futureq.v1.Consumer", "Subscribe"))
          .setRequestMarshaller(ProtoUtils.marshaller(ConsumerFrame.getDefaultInstance()))
          .setResponseMarshaller(ProtoUtils.marshaller(DeliveryFrame.getDefaultInstance()))
          .build();
  /** USER_HZ, the unit of {@code /proc} CPU times, on mainstream Linux. */
  private static final long NANOS_PER_TICK = 10_000_000L;

  private GrpcFloorClient() {}

  public static void main(String[] args) throws Exception {
    String target = args[0];
    long pid = Long.parseLong(args[1]);
    int streams = Integer.parseInt(args[2]);
    int inFlight = Integer.parseInt(args[3]);
    int count = Integer.parseInt(args[4]);
    int warmup = Integer.parseInt(args[5]);
    int runs = Integer.parseInt(args[6]);
    String label = args[7];
    ManagedChannel channel = Grpc.newChannelBuilder(target, InsecureChannelCredentials.create()).build();
    try {
      run(channel, streams, inFlight, warmup);
      for (int r = 1; r <= runs; r++) {
        Snapshot before = Snapshot.of(pid);
        long start = System.nanoTime();
        run(channel, streams, inFlight, count);
        long wall = System.nanoTime() - start;
        Snapshot after = Snapshot.of(pid);
        System.out.println(report(label, r, count, wall, before, after));
      }
    } finally {
      channel.shutdownNow().awaitTermination(10, TimeUnit.SECONDS);
    }
  }

  /** {@code count} round trips over {@code streams} new streams, {@code inFlight} frames in flight on each. */
  private static void run(Channel channel, int streams, int inFlight, int count) throws Exception {
    List<Stream> running = new ArrayList<>();
    for (int s = 0; s < streams; s++) {
      running.add(new Stream(channel, count / streams + (s < count % streams ? 1 : 0), inFlight));
    }
    for (Stream stream : running) {
      stream.done.get(10, TimeUnit.MINUTES);
    }
  }

  private static String report(String label, int run, int count, long wallNanos, Snapshot before, Snapshot after) {
    long cpu = (after.ticks - before.ticks) * NANOS_PER_TICK;
    long switches = after.switches - before.switches;
    String threads = after.threadTicks.entrySet().stream()
        .map(e -> Map.entry(e.getKey(), e.getValue() - before.threadTicks.getOrDefault(e.getKey(), 0L)))
        .filter(e -> e.getValue() > 0).sorted(Map.Entry.<String, Long>comparingByValue(Comparator.reverseOrder()))
        .limit(5).map(e -> String.format(Locale.ROOT, "%s %.1f", e.getKey(), e.getValue() * NANOS_PER_TICK / 1e3
            / count)).collect(Collectors.joining(", "));
    return String.format(Locale.ROOT, "%-12s run %d  %d round trips  %6.0f ms  %7.0f rt/s  server %5.1f us/rt"
            + "  %4.2f cs/rt  client %5.1f us/rt  top threads us/rt: %s", label, run, count, wallNanos / 1e6,
        count * 1e9 / wallNanos, cpu / 1e3 / count, (double) switches / count,
        (after.clientCpu - before.clientCpu) / 1e3 / count, threads);
  }

  /** One stream: sends a frame of one ack for each delivery it gets, until it has sent {@code target}. */
  private static final class Stream extends ClientCall.Listener<DeliveryFrame> {
    final CompletableFuture<Void> done = new CompletableFuture<>();
    private final ClientCall<ConsumerFrame, DeliveryFrame> call;
    private final int target;
    private int sent;
    private int received;

    Stream(Channel channel, int target, int inFlight) {
      this.call = channel.newCall(SUBSCRIBE, CallOptions.DEFAULT);
      this.target = target;
      synchronized (this) {
        call.start(this, new Metadata());
        call.request(1);
        for (int i = 0; i < inFlight && sent < target; i++) {
          send();
        }
      }
    }

    @Override
    public synchronized void onMessage(DeliveryFrame frame) {
      for (int i = 0; i < frame.getDeliveriesCount(); i++) {
        received++;
        if (sent < target) {
          send();
        }
      }
      if (received >= target) {
        call.halfClose();
      } else {
        call.request(1);
      }
    }

    @Override
    public void onClose(Status status, Metadata trailers) {
      if (status.isOk() && received >= target) {
        done.complete(null);
      } else {
        done.completeExceptionally(status.asRuntimeException());
      }
    }

    private void send() {
      sent++;
      call.sendMessage(ConsumerFrame.newBuilder().setAck(AckFrame.newBuilder().addDeliveryTags(sent)).build());
    }
  }

  /** A process's CPU ticks (in total and by thread name) and context switches (summed over its threads). */
  private record Snapshot(long ticks, long switches, Map<String, Long> threadTicks, long clientCpu) {
    static Snapshot of(long pid) throws IOException {
      Path proc = Path.of("/proc", Long.toString(pid));
      long ticks = ticks(Files.readString(proc.resolve("stat")));
      long switches = 0;
      Map<String, Long> byName = new HashMap<>();
      try (var tasks = Files.list(proc.resolve("task"))) {
        for (Path task : (Iterable<Path>) tasks::iterator) {
          try {
            String stat = Files.readString(task.resolve("stat"));
            String name = stat.substring(stat.indexOf('(') + 1, stat.lastIndexOf(')')).replaceAll("[-#]?\\d+$", "");
            byName.merge(name, ticks(stat), Long::sum);
            for (String line : Files.readAllLines(task.resolve("status"))) {
              if (line.startsWith("voluntary_ctxt_switches") || line.startsWith("nonvoluntary_ctxt_switches")) {
                switches += Long.parseLong(line.substring(line.indexOf(':') + 1).trim());
              }
            }
          } catch (IOException e) {
            // the thread ended between listing and reading
          }
        }
      }
      long clientCpu = ((OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean())
          .getProcessCpuTime();
      return new Snapshot(ticks, switches, byName, clientCpu);
    }

    /** utime + stime, fields 14 and 15 of a stat line. */
    private static long ticks(String stat) {
      String[] fields = stat.substring(stat.lastIndexOf(')') + 1).trim().split(" +");
      return Long.parseLong(fields[11]) + Long.parseLong(fields[12]);
    }
  }
}
