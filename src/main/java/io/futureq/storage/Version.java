package io.futureq.storage;

/**
 * One committed write of a key in a {@link MemoryStore}: {@code value} is null for a delete,
 * {@code older} is the write it hides. Immutable, so readers walk a chain while the writer
 * replaces it.
 */
record Version(long seq, byte[] value, Version older) {

  /** The value a reader at {@code readSeq} sees: that of the newest version at or below it. */
  byte[] valueAt(long readSeq) {
    for (Version v = this; v != null; v = v.older) {
      if (v.seq <= readSeq) {
        return v.value;
      }
    }
    return null;
  }

  /**
   * The chain that reads the same as this one at every sequence number from {@code oldest} on,
   * without the versions below it nobody can see; null when that is no value at all, and this very
   * chain when there is nothing to drop.
   */
  Version trimmedAt(long oldest) {
    if (seq <= oldest) {
      if (value == null) {
        return null;
      }
      return older == null ? this : new Version(seq, value, null);
    }
    Version rest = older == null ? null : older.trimmedAt(oldest);
    return rest == older ? this : new Version(seq, value, rest);
  }

  int length() {
    return older == null ? 1 : 1 + older.length();
  }
}
