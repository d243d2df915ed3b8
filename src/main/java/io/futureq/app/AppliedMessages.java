package io.futureq.app;

import io.futureq.log.CommandResult;
import io.futureq.log.EventLog;
import kamon.Kamon;
import kamon.metric.Counter;

/**
 * Counts the messages this node's replica of a log shard stored ({@code futureq_log_applied_messages_total}, by
 * shard; duplicates of a keyed message not counted), then tells the listener it wraps. With fewer replicas than
 * nodes, these counters show how the writes spread: each node applies only its shards' messages.
 */
final class AppliedMessages implements EventLog.AppliedListener {
  static final String NAME = "futureq.log.applied.messages";

  private final Counter counter;
  private final EventLog.AppliedListener next;

  AppliedMessages(int shard, EventLog.AppliedListener next) {
    this.counter = Kamon.counter(NAME, "Messages this node's replica of a log shard stored (duplicates not counted).")
        .withTag("shard", String.valueOf(shard));
    this.next = next;
  }

  @Override
  public void applied(long index, CommandResult result) {
    long fresh = stored(result);
    if (fresh > 0) {
      counter.increment(fresh);
    }
    next.applied(index, result);
  }

  /** Messages {@code result} stored: a write leader's entry carries the results of the commands it wrote. */
  static long stored(CommandResult result) {
    long fresh = 0;
    if (result instanceof CommandResult.LeaderEntryApplied entry) {
      for (CommandResult inner : entry.results()) {
        fresh += stored(inner);
      }
    } else if (result instanceof CommandResult.Stored stored) {
      for (CommandResult.StoredRef ref : stored.messages()) {
        if (!ref.duplicate()) {
          fresh++;
        }
      }
    }
    return fresh;
  }

  @Override
  public void storeReplaced(long appliedIndex) {
    next.storeReplaced(appliedIndex);
  }
}
