package io.futureq.cli;

import java.time.Duration;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import picocli.CommandLine.ITypeConverter;
import picocli.CommandLine.TypeConversionException;

/** Reads a duration as a whole number and a unit: {@code 500ms}, {@code 5s}, {@code 1m}, {@code 2h}, {@code 1d}. */
final class DurationConverter implements ITypeConverter<Duration> {
  private static final Pattern FORM = Pattern.compile("(\\d{1,18})(ms|s|m|h|d)");

  @Override
  public Duration convert(String value) {
    Matcher m = FORM.matcher(value.trim());
    if (!m.matches()) {
      throw new TypeConversionException("'" + value + "' is not a duration (use e.g. 500ms, 5s, 1m, 2h, 1d)");
    }
    try {
      Duration d = of(Long.parseLong(m.group(1)), m.group(2));
      d.toMillis(); // callers send milliseconds: reject what does not fit in them here
      return d;
    } catch (ArithmeticException e) {
      throw new TypeConversionException("'" + value + "' is too long a duration");
    }
  }

  private static Duration of(long n, String unit) {
    switch (unit) {
      case "ms":
        return Duration.ofMillis(n);
      case "s":
        return Duration.ofSeconds(n);
      case "m":
        return Duration.ofMinutes(n);
      case "h":
        return Duration.ofHours(n);
      default:
        return Duration.ofDays(n);
    }
  }

  /** The shortest form {@link #convert} reads back, for messages. */
  static String format(Duration d) {
    long ms = d.toMillis();
    if (ms == 0) {
      return "0s";
    }
    if (ms % 1000 != 0) {
      return ms + "ms";
    }
    long s = ms / 1000;
    return s % 60 != 0 ? s + "s" : s % 3600 != 0 ? s / 60 + "m" : s % 86400 != 0 ? s / 3600 + "h" : s / 86400 + "d";
  }
}
