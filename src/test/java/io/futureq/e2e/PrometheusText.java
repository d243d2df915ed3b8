package io.futureq.e2e;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Checks a scrape against the rules of the Prometheus text format 0.0.4 that scrapers and promtool enforce: legal
 * metric and label names, one HELP and one TYPE per family before its samples, sample values that parse, and
 * histogram buckets with an {@code le} label ending at {@code +Inf}.
 */
final class PrometheusText {
  private static final String NAME = "[a-zA-Z_:][a-zA-Z0-9_:]*";
  private static final Pattern HELP = Pattern.compile("# HELP (" + NAME + ") (.+)");
  private static final Pattern TYPE =
      Pattern.compile("# TYPE (" + NAME + ") (counter|gauge|histogram|summary|untyped)");
  private static final Pattern SAMPLE = Pattern.compile("(" + NAME + ")(\\{(.*)\\})? (\\S+)( -?\\d+)?");
  private static final Pattern LABEL =
      Pattern.compile("([a-zA-Z_][a-zA-Z0-9_]*)=\"((?:[^\"\\\\\\n]|\\\\[\\\\\"n])*)\"");

  private PrometheusText() {}

  /** Every rule the scrape breaks, one line each; empty when it is clean. */
  static List<String> problems(String scrape) {
    List<String> problems = new ArrayList<>();
    Map<String, String> types = new HashMap<>();
    Set<String> helped = new HashSet<>();
    Set<String> sampled = new HashSet<>();
    Map<String, Boolean> infBucket = new HashMap<>();
    for (String line : scrape.split("\n")) {
      if (line.isEmpty()) {
        continue;
      }
      Matcher m;
      if ((m = HELP.matcher(line)).matches()) {
        if (!helped.add(m.group(1))) {
          problems.add("second HELP for " + m.group(1));
        }
      } else if ((m = TYPE.matcher(line)).matches()) {
        if (types.put(m.group(1), m.group(2)) != null || sampled.contains(m.group(1))) {
          problems.add("TYPE of " + m.group(1) + " repeated or after its samples");
        }
      } else if (line.startsWith("#")) {
        problems.add("unknown comment line: " + line);
      } else if ((m = SAMPLE.matcher(line)).matches()) {
        String family = family(m.group(1), types);
        if (family == null) {
          problems.add("sample before any TYPE of its family: " + line);
          continue;
        }
        sampled.add(family);
        checkLabels(line, m.group(3), problems);
        checkValue(line, m.group(4), problems);
        if (m.group(1).equals(family + "_bucket") && m.group(3) != null) {
          infBucket.merge(family, m.group(3).contains("le=\"+Inf\""), Boolean::logicalOr);
          if (!m.group(3).contains("le=\"")) {
            problems.add("bucket without le: " + line);
          }
        }
      } else {
        problems.add("not a sample: " + line);
      }
    }
    for (String family : types.keySet()) {
      if (!helped.contains(family)) {
        problems.add(family + ": no HELP");
      }
      if (types.get(family).equals("histogram") && sampled.contains(family) && !infBucket.getOrDefault(family, false)) {
        problems.add(family + ": no le=\"+Inf\" bucket");
      }
    }
    return problems;
  }

  private static String family(String sample, Map<String, String> types) {
    if (types.containsKey(sample)) {
      return sample;
    }
    for (String suffix : List.of("_bucket", "_sum", "_count")) {
      String base = sample.endsWith(suffix) ? sample.substring(0, sample.length() - suffix.length()) : null;
      if (base != null && List.of("histogram", "summary").contains(types.get(base))) {
        return base;
      }
    }
    return null;
  }

  private static void checkLabels(String line, String labels, List<String> problems) {
    if (labels == null || labels.isEmpty()) {
      return;
    }
    Set<String> names = new HashSet<>();
    for (String part : labels.split(",(?=[a-zA-Z_][a-zA-Z0-9_]*=\")")) {
      Matcher label = LABEL.matcher(part);
      if (!label.matches()) {
        problems.add("bad label " + part + " in " + line);
      } else if (!names.add(label.group(1)) || label.group(1).startsWith("__")) {
        problems.add("label " + label.group(1) + " repeated or reserved in " + line);
      }
    }
  }

  private static void checkValue(String line, String value, List<String> problems) {
    if (List.of("NaN", "+Inf", "-Inf").contains(value)) {
      return;
    }
    try {
      Double.parseDouble(value);
    } catch (NumberFormatException e) {
      problems.add("value is not a number in " + line);
    }
  }
}
