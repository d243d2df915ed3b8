package io.futureq.group;

import java.util.Arrays;
import java.util.Map;
import java.util.TreeMap;

/**
 * Remembers which key ranges a group has read and at which applied log index, to decide whether a
 * message announced after commit was already seen by a read or slipped behind the cursor.
 *
 * <p>Reads cover contiguous ascending ranges; each range was read from one snapshot. A message
 * with key k committed at index i was seen iff the range holding k was read from a snapshot with
 * index >= i. Announcements arrive in log order, so once an index has been announced, every range
 * read from an older snapshot can only hold unseen messages from then on: those ranges collapse
 * into {@code floor}.
 */
final class ReadHistory {
  private final TreeMap<byte[], Long> rangeEnds = new TreeMap<>(Arrays::compareUnsigned);
  private byte[] floor;
  private long announcedIndex;

  /** @param floor keys at or below it were never read (null: none) */
  ReadHistory(byte[] floor) {
    this.floor = floor;
  }

  /** A read up to and including {@code end} from a snapshot at {@code snapshotIndex}. */
  void recordRead(byte[] end, long snapshotIndex) {
    Map.Entry<byte[], Long> last = rangeEnds.lastEntry();
    if (last != null && last.getValue() == snapshotIndex) {
      rangeEnds.remove(last.getKey());
    }
    rangeEnds.put(end, snapshotIndex);
    prune();
  }

  /**
   * Whether a read saw the message at {@code key}, committed at {@code index}. Only meaningful for
   * keys at or below the cursor. Announcements must come in log order.
   */
  boolean seen(byte[] key, long index) {
    announcedIndex = Math.max(announcedIndex, index);
    boolean seen;
    if (floor != null && Arrays.compareUnsigned(key, floor) <= 0) {
      seen = false;
    } else {
      Map.Entry<byte[], Long> range = rangeEnds.ceilingEntry(key);
      seen = range != null && index <= range.getValue();
    }
    prune();
    return seen;
  }

  /** Notes an announcement of a key beyond the cursor, which only moves the announced index. */
  void announced(long index) {
    announcedIndex = Math.max(announcedIndex, index);
    prune();
  }

  int size() {
    return rangeEnds.size();
  }

  private void prune() {
    while (!rangeEnds.isEmpty() && rangeEnds.firstEntry().getValue() < announcedIndex) {
      floor = rangeEnds.pollFirstEntry().getKey();
    }
  }
}
