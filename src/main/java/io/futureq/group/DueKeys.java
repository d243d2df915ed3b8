package io.futureq.group;

import java.util.Arrays;

/** Storage keys in unsigned order, null (before the first key) lowest. */
final class DueKeys {
  private DueKeys() {}

  static int compare(byte[] a, byte[] b) {
    if (a == null || b == null) {
      return a == null ? (b == null ? 0 : -1) : 1;
    }
    return Arrays.compareUnsigned(a, b);
  }
}
