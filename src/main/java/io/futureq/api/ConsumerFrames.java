package io.futureq.api;

import com.google.protobuf.UnsafeByteOperations;
import io.futureq.api.grpc.ConsumerFrame;
import io.futureq.api.grpc.Delivery;
import io.futureq.api.grpc.DeliveryFrame;
import io.futureq.api.grpc.Subscribed;
import io.futureq.api.grpc.TagRange;
import io.futureq.group.GroupDelivery;
import io.futureq.group.SubscriberSession;
import io.futureq.group.TagRanges;
import io.futureq.log.Headers;
import io.futureq.log.proto.StoredMessage;
import io.futureq.storage.MessageIds;
import io.grpc.Status;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.function.LongSupplier;

/**
 * Translates a Subscribe stream at the edge: client frames to session commands (checking every
 * field), and session output to delivery frames.
 */
final class ConsumerFrames {
  /**
   * A frame closes once it holds this many payload bytes, so that frames stay well under the
   * client's message size limit; a single larger delivery still goes out in a frame of its own.
   */
  static final int FRAME_BYTES = 256 * 1024;

  private final Duration maxRequeueDelay;
  private final LongSupplier nowMs;

  /** @param nowMs the wall clock, in epoch milliseconds, that TTLs are measured on */
  ConsumerFrames(Duration maxRequeueDelay, LongSupplier nowMs) {
    this.maxRequeueDelay = maxRequeueDelay;
    this.nowMs = nowMs;
  }

  /** The session command for a frame after the init. */
  SubscriberSession.Command command(ConsumerFrame frame) {
    try {
      switch (frame.getFrameCase()) {
        case ACK:
          return new SubscriberSession.Ack(tags(frame.getAck().getDeliveryTagsList(), frame.getAck().getRangesList(),
              "ack"));
        case NACK: {
          TagRanges tags = tags(frame.getNack().getDeliveryTagsList(), frame.getNack().getRangesList(), "nack");
          long delayMs = frame.getNack().getRequeueDelayMs();
          if (delayMs < 0 || delayMs > maxRequeueDelay.toMillis()) {
            throw InvalidRequest.invalid("nack.requeue_delay_ms: must be between 0 and " + maxRequeueDelay.toMillis()
                + " (futureq.group.max-requeue-delay), got " + delayMs);
          }
          return new SubscriberSession.Nack(tags, Duration.ofMillis(delayMs));
        }
        case INIT:
          return new SubscriberSession.FrameRefused(new SubscriberSession.Refusal(
              SubscriberSession.Reason.ALREADY_SUBSCRIBED, "init: this stream is already subscribed"));
        default:
          throw InvalidRequest.invalid("frame: must carry init, ack or nack");
      }
    } catch (InvalidRequest e) {
      return new SubscriberSession.FrameRefused(new SubscriberSession.Refusal(SubscriberSession.Reason.BAD_FRAME,
          e.getMessage()));
    }
  }

  private static TagRanges tags(List<Long> singles, List<TagRange> ranges, String frame) {
    long[] bounds = new long[2 * (singles.size() + ranges.size())];
    int n = 0;
    for (int i = 0; i < singles.size(); i++) {
      long tag = singles.get(i);
      if (tag < 1) {
        throw InvalidRequest.invalid(frame + ".delivery_tags[" + i + "]: must be a delivery tag (>= 1), got "
            + Long.toUnsignedString(tag));
      }
      bounds[n++] = tag;
      bounds[n++] = tag;
    }
    for (int i = 0; i < ranges.size(); i++) {
      TagRange r = ranges.get(i);
      if (r.getFirst() < 1 || r.getLast() < r.getFirst()) {
        throw InvalidRequest.invalid(frame + ".ranges[" + i + "]: must have 1 <= first <= last, got first "
            + Long.toUnsignedString(r.getFirst()) + " and last " + Long.toUnsignedString(r.getLast()));
      }
      bounds[n++] = r.getFirst();
      bounds[n++] = r.getLast();
    }
    return new TagRanges(bounds);
  }

  /**
   * The frames that carry one session output (none for the end of the stream). A delivery whose TTL has passed by
   * now is left out: this is the last moment the broker holds it, and a node that was stopped or slow between the
   * group's send and here (the group may be on another node) would hand a consumer a message after its TTL, even
   * after its key was taken by a new one. Its tag is skipped; the group delivers it to no one again (it is expired)
   * and the expiry removes it.
   */
  List<DeliveryFrame> frames(SubscriberSession.Output output) {
    if (output instanceof SubscriberSession.Subscribed s) {
      return List.of(DeliveryFrame.newBuilder().setSubscribed(Subscribed.newBuilder().setTopic(s.topic())
          .setGroup(s.group()).setMaxInFlight(s.maxInFlight()).setMaxInFlightBytes(s.maxInFlightBytes())).build());
    }
    if (!(output instanceof SubscriberSession.Emit emit)) {
      return List.of();
    }
    List<DeliveryFrame> frames = new ArrayList<>(1);
    DeliveryFrame.Builder frame = DeliveryFrame.newBuilder();
    int bytes = 0;
    long now = nowMs.getAsLong();
    for (GroupDelivery d : emit.deliveries()) {
      if (d.message().expiredAt(now)) {
        continue;
      }
      StoredMessage m = d.message().message();
      Delivery.Builder delivery = Delivery.newBuilder().setDeliveryTag(d.tag())
          .setMessageIdBytes(UnsafeByteOperations.unsafeWrap(MessageIds.asciiOf(d.message().storageKey())))
          .setKey(m.getKey()).setPayload(m.getPayload()).setDueAtUnixMs(m.getDueMs())
          .setEnqueuedAtUnixMs(m.getEnqueuedMs()).setAttempt(d.attempt());
      if (m.getHeadersCount() > 0) {
        Headers.putAll(m.getHeadersList(), delivery::putHeaders);
      }
      frame.addDeliveries(delivery);
      bytes += m.getPayload().size();
      if (bytes >= FRAME_BYTES) {
        frames.add(frame.build());
        frame = DeliveryFrame.newBuilder();
        bytes = 0;
      }
    }
    if (frame.getDeliveriesCount() > 0) {
      frames.add(frame.build());
    }
    return frames;
  }

  /** The status a refused stream ends with. */
  static Status status(SubscriberSession.Refusal refusal) {
    Status status;
    switch (refusal.reason()) {
      case BAD_FRAME:
        status = Status.INVALID_ARGUMENT;
        break;
      case OVER_LIMIT:
        status = Status.RESOURCE_EXHAUSTED;
        break;
      case UNAVAILABLE:
        status = Status.UNAVAILABLE;
        break;
      case DELETED:
        status = Status.NOT_FOUND;
        break;
      default:
        status = Status.FAILED_PRECONDITION;
    }
    return status.withDescription(refusal.message());
  }
}
