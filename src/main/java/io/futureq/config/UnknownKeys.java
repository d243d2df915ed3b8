package io.futureq.config;

import com.typesafe.config.Config;
import com.typesafe.config.ConfigFactory;
import com.typesafe.config.ConfigValue;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

/**
 * Finds {@code futureq.*} keys that no setting reads, such as {@code futureq.group.in-flight-timout}: HOCON
 * accepts any key, so a typo would otherwise leave the default in force without a word.
 */
final class UnknownKeys {
  /**
   * Settings that existed once and are ignored now, so that a config written for an earlier version still starts:
   * {@code futureq.raft.max-outstanding-entries} bounded a client pipeline that the write leader's in-process
   * submission replaced.
   */
  private static final Set<String> RETIRED = Set.of("futureq.raft.max-outstanding-entries");

  private UnknownKeys() {}

  /** One problem per unknown key, naming the closest known one. */
  static List<String> in(Config config) {
    Config reference = ConfigFactory.parseResources("futureq.conf").resolve();
    Set<String> known = new TreeSet<>();
    Set<String> maps = new TreeSet<>();
    SettingPaths.forEach(reference.getObject("futureq"), "futureq",
        (key, value) -> (SettingPaths.isMap(value) ? maps : known).add(key));
    List<String> problems = new ArrayList<>();
    if (!config.hasPath("futureq")) {
      return problems;
    }
    for (Map.Entry<String, ConfigValue> entry : config.getConfig("futureq").entrySet()) {
      String key = "futureq." + entry.getKey();
      if (!known.contains(key) && !RETIRED.contains(key) && maps.stream().noneMatch(m -> key.startsWith(m + "."))) {
        problems.add(key + ": no such setting (did you mean " + closest(key, known) + "?); "
            + "conf/futureq.conf lists them all");
      }
    }
    return problems;
  }

  /** The known name nearest to {@code key} (Levenshtein), for "did you mean". */
  static String closest(String key, Set<String> known) {
    return known.stream().min(Comparator.comparingInt((String k) -> distance(key, k))).orElse("");
  }

  /** Levenshtein distance. */
  static int distance(String a, String b) {
    int[] previous = new int[b.length() + 1];
    int[] current = new int[b.length() + 1];
    for (int j = 0; j <= b.length(); j++) {
      previous[j] = j;
    }
    for (int i = 1; i <= a.length(); i++) {
      current[0] = i;
      for (int j = 1; j <= b.length(); j++) {
        int substitute = previous[j - 1] + (a.charAt(i - 1) == b.charAt(j - 1) ? 0 : 1);
        current[j] = Math.min(substitute, Math.min(previous[j], current[j - 1]) + 1);
      }
      int[] swap = previous;
      previous = current;
      current = swap;
    }
    return previous[b.length()];
  }
}
