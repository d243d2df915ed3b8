package io.futureq.log;

import io.futureq.log.proto.LogCommand;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;

/**
 * Stands for the replica a node does not hold of a log shard (its shard placement gives the shard to other nodes):
 * the node's writer of the shard sends every append to the shard's leader elsewhere, and nothing on the node reads
 * the shard, as its topics are hosted where their shard is held. A read here is a fault in that routing, and says so.
 */
public final class NoReplica implements EventLog {
  private final int shard;

  public NoReplica(int shard) {
    this.shard = shard;
  }

  private IllegalStateException notHeld() {
    return new IllegalStateException("this node holds no replica of log shard " + shard);
  }

  @Override
  public CompletionStage<CommandResult> append(LogCommand command) {
    return CompletableFuture.failedFuture(notHeld());
  }

  @Override
  public long appliedIndex() {
    throw notHeld();
  }

  @Override
  public CompletionStage<Long> whenApplied(long index) {
    return CompletableFuture.failedFuture(notHeld());
  }

  @Override
  public boolean current() {
    return false;
  }

  @Override
  public void close() {
    // nothing held, nothing to close
  }
}
