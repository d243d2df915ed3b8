package io.futureq.config;

import com.typesafe.config.Config;
import com.typesafe.config.ConfigException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/** Reads typed values and collects every problem, so start-up reports all bad keys at once. */
final class SettingsReader {
  private final Config config;
  private final List<String> problems = new ArrayList<>();

  SettingsReader(Config config) {
    this.config = config;
  }

  List<String> problems() {
    return problems;
  }

  /** Records a problem found by a check of its own, such as a value outside a fixed set. */
  void problem(String message) {
    problems.add(message);
  }

  String string(String key) {
    try {
      return config.getString(key);
    } catch (ConfigException e) {
      return fail(key, e, "");
    }
  }

  String nonEmpty(String key) {
    String value = string(key);
    if (value.isBlank() && config.hasPath(key)) {
      problems.add(key + ": must not be empty");
    }
    return value;
  }

  List<String> stringList(String key) {
    try {
      return config.getStringList(key);
    } catch (ConfigException e) {
      return fail(key, e, List.of());
    }
  }

  boolean bool(String key) {
    try {
      return config.getBoolean(key);
    } catch (ConfigException e) {
      return fail(key, e, false);
    }
  }

  int port(String key) {
    return (int) longIn(key, 0, 65535);
  }

  int intIn(String key, long min, long max) {
    return (int) longIn(key, min, max);
  }

  long longIn(String key, long min, long max) {
    try {
      return check(key, config.getLong(key), min, max);
    } catch (ConfigException e) {
      return fail(key, e, min);
    }
  }

  long bytesIn(String key, long min, long max) {
    try {
      return check(key, config.getBytes(key), min, max);
    } catch (ConfigException e) {
      return fail(key, e, min);
    }
  }

  Duration durationIn(String key, Duration min, Duration max) {
    try {
      Duration value = config.getDuration(key);
      if (value.compareTo(min) < 0 || value.compareTo(max) > 0) {
        problems.add(key + ": " + value.toMillis() + "ms is outside [" + min.toMillis() + "ms, "
            + max.toMillis() + "ms]");
      }
      return value;
    } catch (ConfigException e) {
      return fail(key, e, min);
    }
  }

  <E extends Enum<E>> E enumOf(String key, Class<E> type, E fallback) {
    try {
      return config.getEnum(type, key);
    } catch (ConfigException e) {
      return fail(key, e, fallback);
    }
  }

  private long check(String key, long value, long min, long max) {
    if (value < min || value > max) {
      problems.add(key + ": " + value + " is outside [" + min + ", " + max + "]");
    }
    return value;
  }

  private <T> T fail(String key, ConfigException e, T fallback) {
    String why = e instanceof ConfigException.Missing ? "is missing" : e.getMessage();
    problems.add(key + ": " + why);
    return fallback;
  }
}
