package io.futureq.log;

import com.google.protobuf.ByteString;
import io.futureq.log.CommandResult.Reason;
import io.futureq.log.proto.ExpireMessages;
import java.util.ArrayList;
import java.util.List;

/**
 * How {@link BrokerStateMachine} applies ExpireMessages: each named message still stored under the topic is
 * removed, whichever groups still hold it. The topic's entity decided which expired, on its own clock; the entry
 * names the keys, so every replica removes the same ones.
 */
final class ExpireApply {
  private ExpireApply() {}

  static CommandResult apply(StoredMessages messages, ExpireMessages expire) {
    List<byte[]> removed = new ArrayList<>();
    for (ByteString keyBytes : expire.getStorageKeysList()) {
      byte[] key = keyBytes.toByteArray();
      StoredIndexes record = messages.indexesOf(expire.getTopic(), key);
      if (record != null) {
        messages.remove(key, record, true);
        removed.add(key);
      }
    }
    return new CommandResult.Removed(expire.getTopic(), removed, Reason.EXPIRED);
  }
}
