package io.futureq.app;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.futureq.log.CommandResult;
import io.futureq.log.proto.StoredMessage;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

class AppliedMessagesTest {
  private static CommandResult.Stored stored(boolean... duplicates) {
    List<CommandResult.StoredRef> refs = new ArrayList<>();
    for (boolean duplicate : duplicates) {
      refs.add(new CommandResult.StoredRef(new byte[] {1}, StoredMessage.getDefaultInstance(), duplicate));
    }
    return new CommandResult.Stored(refs, Set.of());
  }

  /** The write leader's entries are what a replica applies: their publishes count, duplicates of a key not. */
  @Test
  void countsTheMessagesStoredInsideAWriteLeadersEntry() {
    CommandResult entry = new CommandResult.LeaderEntryApplied(false, List.of(stored(false, false, true),
        new CommandResult.GroupCreated("t", "g", false, 7), stored(false)));
    assertEquals(3, AppliedMessages.stored(entry));
    assertEquals(2, AppliedMessages.stored(stored(false, false)));
    assertEquals(0, AppliedMessages.stored(new CommandResult.GroupCreated("t", "g", false, 7)));
  }
}
