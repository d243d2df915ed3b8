package io.futureq.group;

import java.util.Arrays;

/**
 * Delivery tags named by an ack or nack, as inclusive ranges. Tags number a stream's deliveries
 * 1, 2, 3, ... in the order they were sent, so a run of acks packs into one range.
 *
 * @param bounds first and last tag of each range, in pairs; every first is >= 1 and <= its last
 */
public record TagRanges(long[] bounds) {
  public static final TagRanges NONE = new TagRanges(new long[0]);

  public TagRanges {
    if (bounds.length % 2 != 0) {
      throw new IllegalArgumentException("tag range bounds come in pairs, got " + bounds.length);
    }
    for (int i = 0; i < bounds.length; i += 2) {
      if (bounds[i] < 1 || bounds[i] > bounds[i + 1]) {
        throw new IllegalArgumentException("bad tag range " + bounds[i] + ".." + bounds[i + 1]);
      }
    }
    bounds = bounds.clone();
  }

  public static TagRanges of(long first, long last) {
    return new TagRanges(new long[] {first, last});
  }

  public int size() {
    return bounds.length / 2;
  }

  public long first(int range) {
    return bounds[2 * range];
  }

  public long last(int range) {
    return bounds[2 * range + 1];
  }

  public boolean isEmpty() {
    return bounds.length == 0;
  }

  /** The highest tag named, or 0 if none. */
  public long highest() {
    long max = 0;
    for (int i = 1; i < bounds.length; i += 2) {
      max = Math.max(max, bounds[i]);
    }
    return max;
  }

  /** Only the tags from {@code from} on (tags below it belong to an earlier group attachment). */
  public TagRanges from(long from) {
    long[] out = new long[bounds.length];
    int n = 0;
    boolean clipped = false;
    for (int i = 0; i < bounds.length; i += 2) {
      if (bounds[i + 1] >= from) {
        out[n++] = Math.max(bounds[i], from);
        out[n++] = bounds[i + 1];
      }
      clipped |= bounds[i] < from;
    }
    return clipped ? new TagRanges(Arrays.copyOf(out, n)) : this;
  }

  /**
   * Gathers the tags of several acks into one {@link TagRanges}: a range that touches or overlaps the
   * last one gathered extends it, so acks of tags one by one in delivery order become one range. Not
   * thread-safe.
   */
  public static final class Gather {
    private long[] bounds = new long[16];
    private int n;

    public void add(TagRanges tags) {
      for (int r = 0; r < tags.size(); r++) {
        add(tags.first(r), tags.last(r));
      }
    }

    private void add(long first, long last) {
      if (n > 0 && first >= bounds[n - 2] && first <= bounds[n - 1] + 1) {
        bounds[n - 1] = Math.max(bounds[n - 1], last);
        return;
      }
      if (n == bounds.length) {
        bounds = Arrays.copyOf(bounds, n * 2);
      }
      bounds[n++] = first;
      bounds[n++] = last;
    }

    public boolean isEmpty() {
      return n == 0;
    }

    /** The tags gathered so far; the gather starts empty again. */
    public TagRanges take() {
      TagRanges out = new TagRanges(Arrays.copyOf(bounds, n));
      n = 0;
      return out;
    }
  }

  @Override
  public boolean equals(Object other) {
    return other instanceof TagRanges t && Arrays.equals(bounds, t.bounds);
  }

  @Override
  public int hashCode() {
    return Arrays.hashCode(bounds);
  }

  @Override
  public String toString() {
    StringBuilder s = new StringBuilder("TagRanges[");
    for (int i = 0; i < bounds.length; i += 2) {
      s.append(i == 0 ? "" : ",").append(bounds[i]).append(bounds[i] == bounds[i + 1] ? "" : ".." + bounds[i + 1]);
    }
    return s.append(']').toString();
  }
}
