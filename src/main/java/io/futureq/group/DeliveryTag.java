package io.futureq.group;

/**
 * Names one delivery: the group incarnation (so tags from before a group restart are recognised
 * as stale) and a sequence number. Text form: two hex numbers joined by '-'.
 */
public record DeliveryTag(long incarnation, long seq) {

  @Override
  public String toString() {
    return Long.toHexString(incarnation) + "-" + Long.toHexString(seq);
  }

  /**
   * Parses the text form.
   *
   * @throws IllegalArgumentException if {@code text} is not a delivery tag
   */
  public static DeliveryTag parse(String text) {
    int dash = text.indexOf('-');
    if (dash <= 0 || dash == text.length() - 1 || text.length() > 33) {
      throw new IllegalArgumentException("malformed delivery tag '" + text + "'");
    }
    try {
      return new DeliveryTag(Long.parseUnsignedLong(text.substring(0, dash), 16),
          Long.parseUnsignedLong(text.substring(dash + 1), 16));
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException("malformed delivery tag '" + text + "'", e);
    }
  }
}
