package io.futureq.client;

import io.futureq.api.grpc.AckFrame;
import io.futureq.api.grpc.ConsumerFrame;
import io.futureq.api.grpc.Delivery;
import io.futureq.api.grpc.DeliveryFrame;
import io.futureq.api.grpc.NackFrame;
import io.futureq.api.grpc.SubscribeInit;
import io.futureq.api.grpc.TagRange;
import io.grpc.CallOptions;
import io.grpc.Channel;
import io.grpc.ClientCall;
import io.grpc.Metadata;
import io.grpc.Status;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

/**
 * One Subscribe call on plain grpc-java. Frames are passed on a frame at a time (no hand-off per
 * delivery); acks are gathered and sent packed as tag ranges, when a quarter of the credit in force
 * (at most {@link #ACK_BATCH}) is waiting, when the caller flushes, or {@link #ACK_LINGER_MS} after
 * the first. The broker's cost is per frame: acks one frame each would double it, and a credit
 * returned in quarters keeps deliveries coming while the rest is handled (with a small credit, in the halves the
 * broker refills on). A stream that ended drops
 * acks and nacks: the broker redelivers what they named.
 */
final class SubscribeStream extends ClientCall.Listener<DeliveryFrame> {
  static final int ACK_BATCH = 1024;
  static final long ACK_LINGER_MS = 1;
  /** The most credit the broker waits for before it refills a consumer (its CreditRoundRobin.MAX_REFILL). */
  static final int REFILL_MAX = 64;

  /** What the stream reports to its subscription, one callback at a time. */
  interface Events {
    void subscribed(SubscribeStream stream);

    void delivered(SubscribeStream stream, List<ReceivedMessage> messages);

    void ended(SubscribeStream stream, Status status);
  }

  private final ClientCall<ConsumerFrame, DeliveryFrame> call;
  private final String topic;
  private final String group;
  private final Events events;
  private final ScheduledExecutorService timer;
  private long[] acks = new long[64];
  private int ackCount;
  /** Acks that make a frame at once: a quarter of the credit in force. */
  private int ackBatch = ACK_BATCH;
  private boolean flushScheduled;
  private boolean ended;

  SubscribeStream(Channel channel, String topic, String group, Events events, ScheduledExecutorService timer) {
    // Callbacks run on the channel's executor, one at a time, never on the transport thread: OkHttp
    // calls back holding its transport lock, which a thread sending acks under this stream's monitor
    // waits for, so a direct executor deadlocks there. The hop is per frame, not per delivery.
    this.call = channel.newCall(Rpc.SUBSCRIBE, CallOptions.DEFAULT);
    this.topic = topic;
    this.group = group;
    this.events = events;
    this.timer = timer;
  }

  /** @param maxInFlight and {@code maxInFlightBytes}: the credit asked for, 0 for the broker's default */
  synchronized void start(int maxInFlight, long maxInFlightBytes) {
    call.start(this, new Metadata());
    call.request(1);
    call.sendMessage(ConsumerFrame.newBuilder().setInit(SubscribeInit.newBuilder().setTopic(topic).setGroup(group)
        .setMaxInFlight(maxInFlight).setMaxInFlightBytes(maxInFlightBytes)).build());
  }

  @Override
  public void onMessage(DeliveryFrame frame) {
    if (frame.hasSubscribed()) {
      synchronized (this) {
        ackBatch = ackBatch(frame.getSubscribed().getMaxInFlight());
      }
      events.subscribed(this);
    }
    if (frame.getDeliveriesCount() > 0) {
      long now = System.currentTimeMillis();
      List<ReceivedMessage> messages = new ArrayList<>(frame.getDeliveriesCount());
      for (Delivery d : frame.getDeliveriesList()) {
        messages.add(new ReceivedMessage(d, topic, group, now, this));
      }
      events.delivered(this, messages);
    }
    synchronized (this) {
      if (!ended) {
        call.request(1);
      }
    }
  }

  @Override
  public void onClose(Status status, Metadata trailers) {
    synchronized (this) {
      ended = true;
    }
    events.ended(this, status);
  }

  /** Acks {@code tag} with the next frame; a frame goes out within {@link #ACK_LINGER_MS}. */
  synchronized void ack(long tag) {
    add(tag);
    if (!flushScheduled && ackCount > 0) {
      flushScheduled = true;
      timer.schedule(this::flush, ACK_LINGER_MS, TimeUnit.MILLISECONDS);
    }
  }

  /** Acks {@code tag} with the next frame, which the caller sends with {@link #flush()}. */
  synchronized void ackLater(long tag) {
    add(tag);
  }

  private void add(long tag) {
    if (ended) {
      return;
    }
    if (ackCount == acks.length) {
      acks = Arrays.copyOf(acks, acks.length * 2);
    }
    acks[ackCount++] = tag;
    if (ackCount >= ackBatch) {
      flushLocked();
    }
  }

  /**
   * A quarter of the credit, so that acks return it while the rest is being handled, but no fewer than the broker
   * waits for before it refills a consumer whose credit ran out (half the credit, at most {@link #REFILL_MAX}): with
   * a small credit, frames of fewer acks would cost a frame each and bring nothing sooner. 0 is an older broker's.
   */
  static int ackBatch(int maxInFlight) {
    if (maxInFlight == 0) {
      return ACK_BATCH;
    }
    int refill = Math.min(REFILL_MAX, (maxInFlight + 1) / 2);
    return Math.max(1, Math.min(ACK_BATCH, Math.max(maxInFlight / 4, refill)));
  }

  synchronized void flush() {
    flushScheduled = false;
    flushLocked();
  }

  synchronized void nack(long tag, Duration delay) {
    flushLocked();
    if (!ended) {
      call.sendMessage(ConsumerFrame.newBuilder().setNack(NackFrame.newBuilder().addDeliveryTags(tag)
          .setRequeueDelayMs(delay.toMillis())).build());
    }
  }

  /** Sends what is acked and ends the client's side; the broker then ends the stream. */
  synchronized void close() {
    flushLocked();
    if (!ended) {
      call.halfClose();
    }
  }

  private void flushLocked() {
    if (ackCount == 0 || ended) {
      ackCount = 0;
      return;
    }
    call.sendMessage(ConsumerFrame.newBuilder().setAck(pack(acks, ackCount)).build());
    ackCount = 0;
  }

  /** Sorts the tags and packs each run of consecutive tags into one range. */
  static AckFrame pack(long[] tags, int count) {
    Arrays.sort(tags, 0, count);
    AckFrame.Builder frame = AckFrame.newBuilder();
    int i = 0;
    while (i < count) {
      int j = i;
      while (j + 1 < count && tags[j + 1] <= tags[j] + 1) {
        j++;
      }
      if (tags[j] == tags[i]) {
        frame.addDeliveryTags(tags[i]);
      } else {
        frame.addRanges(TagRange.newBuilder().setFirst(tags[i]).setLast(tags[j]));
      }
      i = j + 1;
    }
    return frame.build();
  }
}
