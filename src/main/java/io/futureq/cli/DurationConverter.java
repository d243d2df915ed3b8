package io.futureq.cli;

import com.typesafe.config.ConfigException;
import com.typesafe.config.ConfigFactory;
import java.time.Duration;
import java.util.Map;
import java.util.regex.Pattern;
import picocli.CommandLine.ITypeConverter;
import picocli.CommandLine.TypeConversionException;

/**
 * Reads a duration as the configuration does (HOCON's grammar): a number, decimals allowed, and a unit such as
 * {@code 500ms}, {@code 1.5s}, {@code 5 s}, {@code 90m}, {@code 2h}, {@code 1d} or {@code 3 days}. Unlike the
 * configuration, the unit is required (HOCON reads a bare number as milliseconds, an easy slip on a command line)
 * and the duration may not be negative.
 */
final class DurationConverter implements ITypeConverter<Duration> {
  /** What the help texts and errors show. */
  static final String EXAMPLES = "500ms, 1.5s, 90s, 5m, 2h, 1d";
  private static final Pattern BARE_NUMBER = Pattern.compile("\\s*[-+]?[0-9.]+\\s*");

  @Override
  public Duration convert(String value) {
    if (BARE_NUMBER.matcher(value).matches()) {
      throw new TypeConversionException("'" + value + "' has no unit (use e.g. " + EXAMPLES + ")");
    }
    Duration d;
    try {
      d = ConfigFactory.parseMap(Map.of("d", value)).getDuration("d");
    } catch (ConfigException e) {
      throw new TypeConversionException("'" + value + "' is not a duration (use e.g. " + EXAMPLES + ")");
    }
    if (d.isNegative()) {
      throw new TypeConversionException("'" + value + "' is negative");
    }
    // The configuration library counts in nanoseconds and saturates there (about 292 years): beyond is refused.
    if (d.compareTo(Duration.ofNanos(Long.MAX_VALUE)) >= 0) {
      throw new TypeConversionException("'" + value + "' is too long a duration");
    }
    return d;
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
