package io.futureq.log;

import com.google.protobuf.ByteString;
import io.futureq.log.CommandResult.Reason;
import io.futureq.log.CommandResult.StoredRef;
import io.futureq.log.proto.ApplyResult;
import io.futureq.log.proto.ApplyResults;
import io.futureq.log.proto.CancelledResult;
import io.futureq.log.proto.DeadLetteredResult;
import io.futureq.log.proto.GroupCreatedResult;
import io.futureq.log.proto.GroupDeletedResult;
import io.futureq.log.proto.JournalDeletedResult;
import io.futureq.log.proto.JournalWrittenResult;
import io.futureq.log.proto.LeaderEntryResult;
import io.futureq.log.proto.NackDelayedResult;
import io.futureq.log.proto.PurgedResult;
import io.futureq.log.proto.RemovalReason;
import io.futureq.log.proto.RemovedResult;
import io.futureq.log.proto.RescheduledResult;
import io.futureq.log.proto.StoredMessage;
import io.futureq.log.proto.StoredMessageRef;
import io.futureq.log.proto.StoredResult;
import java.util.ArrayList;
import java.util.List;

/**
 * The one encoding of {@link CommandResult}s as {@link ApplyResults}: what a Raft replica replies
 * after applying an entry, and what the write leader answers its writers. {@code decode(encode(results))}
 * gives results equal field by field, except that a store's result names each message (storage key,
 * event id, duplicate flag) without its content: results go back to the writers, which need no payloads
 * (topics learn of stored messages from the applied results on their own replica, in memory), and a
 * payload copied into every reply cost encoding, remoting and decoding twice per message in a cluster.
 */
public final class CommandResultCodec {
  private CommandResultCodec() {}

  /** One {@link ApplyResult} per result, in order. */
  public static ApplyResults encode(List<CommandResult> results) {
    ApplyResults.Builder out = ApplyResults.newBuilder();
    for (CommandResult result : results) {
      out.addResults(encode(result));
    }
    return out.build();
  }

  /**
   * The results in order.
   *
   * @throws IllegalArgumentException if a result has no body (written by a newer version)
   */
  public static List<CommandResult> decode(ApplyResults encoded) {
    List<CommandResult> out = new ArrayList<>(encoded.getResultsCount());
    for (ApplyResult result : encoded.getResultsList()) {
      out.add(decode(result));
    }
    return out;
  }

  private static ApplyResult encode(CommandResult result) {
    ApplyResult.Builder out = ApplyResult.newBuilder();
    if (result instanceof CommandResult.Stored s) {
      StoredResult.Builder stored = StoredResult.newBuilder();
      s.messages().forEach(ref -> stored.addMessages(encodeStored(ref)));
      out.setStored(stored);
    } else if (result instanceof CommandResult.Removed r) {
      RemovedResult.Builder removed = RemovedResult.newBuilder().setTopic(r.topic()).setReason(encode(r.reason()));
      r.storageKeys().forEach(key -> removed.addStorageKeys(ByteString.copyFrom(key)));
      out.setRemoved(removed);
    } else if (result instanceof CommandResult.Cancelled c) {
      CancelledResult.Builder cancelled = CancelledResult.newBuilder().setTopic(c.topic()).setLogIndex(c.logIndex());
      if (c.existed()) {
        cancelled.setStorageKey(ByteString.copyFrom(c.storageKey())).setMessage(c.message());
      }
      out.setCancelled(cancelled);
    } else if (result instanceof CommandResult.GroupCreated g) {
      out.setGroupCreated(GroupCreatedResult.newBuilder().setTopic(g.topic()).setGroup(g.group())
          .setLogIndex(g.logIndex()).setExisted(g.existed()));
    } else if (result instanceof CommandResult.DeadLettered d) {
      DeadLetteredResult.Builder dead = DeadLetteredResult.newBuilder().setTopic(d.topic()).setGroup(d.group());
      if (d.copy() != null) {
        dead.setCopy(encodeRef(d.copy()));
      }
      out.setDeadLettered(dead);
    } else if (result instanceof CommandResult.JournalWritten w) {
      out.setJournalWritten(JournalWrittenResult.newBuilder().setEvents(w.events()).setLogIndex(w.logIndex()));
    } else if (result instanceof CommandResult.JournalDeleted d) {
      out.setJournalDeleted(JournalDeletedResult.newBuilder().setPersistenceId(d.persistenceId())
          .setDeletedTo(d.deletedTo()).setRemoved(d.removed()).setLogIndex(d.logIndex()));
    } else if (result instanceof CommandResult.GroupDeleted g) {
      GroupDeletedResult.Builder deleted = GroupDeletedResult.newBuilder().setTopic(g.topic()).setGroup(g.group())
          .setExisted(g.existed());
      g.removed().forEach(key -> deleted.addRemovedKeys(ByteString.copyFrom(key)));
      out.setGroupDeleted(deleted);
    } else if (result instanceof CommandResult.Purged p) {
      PurgedResult.Builder purged = PurgedResult.newBuilder().setTopic(p.topic()).setExisted(p.existed())
          .setMore(p.more()).setBeforeEventId(p.beforeEventId()).setTopicDeleted(p.topicDeleted())
          .addAllDeletedGroups(p.deletedGroups());
      p.removed().forEach(key -> purged.addRemovedKeys(ByteString.copyFrom(key)));
      out.setPurged(purged);
    } else if (result instanceof CommandResult.Rescheduled r) {
      RescheduledResult.Builder moved = RescheduledResult.newBuilder().setTopic(r.topic())
          .addAllAckedGroups(r.ackedBy());
      if (r.existed()) {
        moved.setFromStorageKey(ByteString.copyFrom(r.from())).setMoved(encodeRef(r.moved()));
      }
      out.setRescheduled(moved);
    } else if (result instanceof CommandResult.NackDelayed n) {
      out.setNackDelayed(NackDelayedResult.newBuilder().setTopic(n.topic()).setGroup(n.group())
          .setMarked(n.marked()));
    } else if (result instanceof CommandResult.LeaderEntryApplied l) {
      out.setLeaderEntry(LeaderEntryResult.newBuilder().setFenced(l.fenced())
          .addAllResults(encode(l.results()).getResultsList()));
    } else {
      throw new IllegalArgumentException("no encoding for result " + result);
    }
    return out.build();
  }

  private static CommandResult decode(ApplyResult result) {
    switch (result.getResultCase()) {
      case STORED: {
        List<StoredRef> refs = new ArrayList<>();
        result.getStored().getMessagesList().forEach(ref -> refs.add(decodeRef(ref)));
        return new CommandResult.Stored(refs);
      }
      case REMOVED: {
        RemovedResult r = result.getRemoved();
        List<byte[]> keys = new ArrayList<>(r.getStorageKeysCount());
        r.getStorageKeysList().forEach(key -> keys.add(key.toByteArray()));
        return new CommandResult.Removed(r.getTopic(), keys, decode(r.getReason()));
      }
      case CANCELLED: {
        CancelledResult c = result.getCancelled();
        return c.hasMessage() ? new CommandResult.Cancelled(c.getTopic(), c.getStorageKey().toByteArray(),
            c.getMessage(), c.getLogIndex()) : new CommandResult.Cancelled(c.getTopic(), null, null, c.getLogIndex());
      }
      case GROUP_CREATED: {
        GroupCreatedResult g = result.getGroupCreated();
        return new CommandResult.GroupCreated(g.getTopic(), g.getGroup(), g.getExisted(), g.getLogIndex());
      }
      case DEAD_LETTERED: {
        DeadLetteredResult d = result.getDeadLettered();
        return new CommandResult.DeadLettered(d.getTopic(), d.getGroup(), d.hasCopy() ? decodeRef(d.getCopy()) : null);
      }
      case JOURNAL_WRITTEN:
        return new CommandResult.JournalWritten(result.getJournalWritten().getEvents(),
            result.getJournalWritten().getLogIndex());
      case JOURNAL_DELETED: {
        JournalDeletedResult d = result.getJournalDeleted();
        return new CommandResult.JournalDeleted(d.getPersistenceId(), d.getDeletedTo(), d.getRemoved(),
            d.getLogIndex());
      }
      case GROUP_DELETED: {
        GroupDeletedResult g = result.getGroupDeleted();
        return new CommandResult.GroupDeleted(g.getTopic(), g.getGroup(), g.getExisted(),
            bytes(g.getRemovedKeysList()));
      }
      case PURGED: {
        PurgedResult p = result.getPurged();
        return new CommandResult.Purged(p.getTopic(), p.getExisted(), bytes(p.getRemovedKeysList()), p.getMore(),
            p.getBeforeEventId(), p.getTopicDeleted(), p.getDeletedGroupsList());
      }
      case RESCHEDULED: {
        RescheduledResult r = result.getRescheduled();
        return r.hasMoved() ? new CommandResult.Rescheduled(r.getTopic(), r.getFromStorageKey().toByteArray(),
            decodeRef(r.getMoved()), r.getAckedGroupsList())
            : new CommandResult.Rescheduled(r.getTopic(), null, null, r.getAckedGroupsList());
      }
      case NACK_DELAYED:
        return new CommandResult.NackDelayed(result.getNackDelayed().getTopic(), result.getNackDelayed().getGroup(),
            result.getNackDelayed().getMarked());
      case LEADER_ENTRY: {
        LeaderEntryResult l = result.getLeaderEntry();
        return new CommandResult.LeaderEntryApplied(l.getFenced(),
            decode(ApplyResults.newBuilder().addAllResults(l.getResultsList()).build()));
      }
      default:
        throw new IllegalArgumentException("apply result without a body: " + result);
    }
  }

  private static List<byte[]> bytes(List<ByteString> keys) {
    List<byte[]> out = new ArrayList<>(keys.size());
    keys.forEach(key -> out.add(key.toByteArray()));
    return out;
  }

  /** The message's name only (see the class comment). */
  private static StoredMessageRef encodeStored(StoredRef ref) {
    return StoredMessageRef.newBuilder().setStorageKey(ByteString.copyFrom(ref.storageKey()))
        .setDuplicate(ref.duplicate()).setMessage(StoredMessage.newBuilder().setEventId(ref.message().getEventId()))
        .build();
  }

  private static StoredMessageRef encodeRef(StoredRef ref) {
    return StoredMessageRef.newBuilder().setStorageKey(ByteString.copyFrom(ref.storageKey()))
        .setDuplicate(ref.duplicate()).setMessage(ref.message()).build();
  }

  private static StoredRef decodeRef(StoredMessageRef ref) {
    return new StoredRef(ref.getStorageKey().toByteArray(), ref.getMessage(), ref.getDuplicate());
  }

  private static RemovalReason encode(Reason reason) {
    switch (reason) {
      case ACKED: return RemovalReason.REMOVAL_REASON_ACKED;
      case EXPIRED: return RemovalReason.REMOVAL_REASON_EXPIRED;
      case CANCELLED: return RemovalReason.REMOVAL_REASON_CANCELLED;
      case DEAD_LETTERED: return RemovalReason.REMOVAL_REASON_DEAD_LETTERED;
      default: throw new IllegalArgumentException("no encoding for removal reason " + reason);
    }
  }

  private static Reason decode(RemovalReason reason) {
    switch (reason) {
      case REMOVAL_REASON_ACKED: return Reason.ACKED;
      case REMOVAL_REASON_EXPIRED: return Reason.EXPIRED;
      case REMOVAL_REASON_CANCELLED: return Reason.CANCELLED;
      case REMOVAL_REASON_DEAD_LETTERED: return Reason.DEAD_LETTERED;
      default: throw new IllegalArgumentException("unknown removal reason " + reason);
    }
  }
}
