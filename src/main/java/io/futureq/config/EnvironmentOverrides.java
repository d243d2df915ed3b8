package io.futureq.config;

import com.typesafe.config.Config;
import com.typesafe.config.ConfigException;
import com.typesafe.config.ConfigFactory;
import com.typesafe.config.ConfigObject;
import com.typesafe.config.ConfigValueType;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

/**
 * The {@code futureq.*} settings given as environment variables: the key upper-cased with {@code .} and
 * {@code -} as {@code _} ({@code futureq.api.port} is {@code FUTUREQ_API_PORT}). A list setting takes
 * comma-separated items ({@code a:1,b:2}) and a map setting comma-separated {@code name=value} pairs
 * ({@code node-1=10.0.0.1:50005,node-2=10.0.0.2:50005}); either may also be written in HOCON ({@code [...]},
 * {@code {...}}).
 */
final class EnvironmentOverrides {
  private EnvironmentOverrides() {}

  /**
   * @param reference the {@code futureq} object of the defaults: its keys are the settings there are
   * @throws ConfigException.BadValue for a list or map variable that cannot be read
   */
  static Config from(ConfigObject reference, Map<String, String> environment) {
    Map<String, Object> values = new HashMap<>();
    collect(reference, "futureq", environment, values);
    return ConfigFactory.parseMap(values, "environment");
  }

  /**
   * The launcher's and the CLI's own variables, which are not settings: a {@code FUTUREQ_} variable that is neither
   * one of these nor a setting is a typo, and refused.
   */
  static final Set<String> NOT_SETTINGS = Set.of("FUTUREQ_SERVER", "FUTUREQ_TOKEN", "FUTUREQ_TLS", "FUTUREQ_CA",
      "FUTUREQ_CERT", "FUTUREQ_KEY", "FUTUREQ_LOG_FORMAT", "FUTUREQ_LOG_LEVEL", "FUTUREQ_PEKKO_LOG_LEVEL",
      "FUTUREQ_RATIS_LOG_LEVEL", "FUTUREQ_CLASSPATH", "FUTUREQ_BUILD_DIR");

  /** One problem per {@code FUTUREQ_} variable that names no setting, with the closest variable that does. */
  static List<String> unknown(ConfigObject reference, Map<String, String> environment) {
    Set<String> known = new TreeSet<>(NOT_SETTINGS);
    SettingPaths.forEach(reference, "futureq", (key, value) -> known.add(variable(key)));
    List<String> problems = new ArrayList<>();
    environment.keySet().stream().filter(v -> v.startsWith("FUTUREQ_") && !known.contains(v)).sorted()
        .forEach(v -> problems.add(v + ": no such setting (did you mean " + UnknownKeys.closest(v, known)
            + "?); conf/futureq.conf lists the settings, README the variables"));
    return problems;
  }

  static String variable(String key) {
    return key.toUpperCase(Locale.ROOT).replace('.', '_').replace('-', '_');
  }

  private static void collect(ConfigObject reference, String path, Map<String, String> environment,
      Map<String, Object> values) {
    SettingPaths.forEach(reference, path, (key, value) -> {
      String text = environment.get(variable(key));
      if (text == null) {
        return;
      }
      if (value.valueType() == ConfigValueType.LIST) {
        values.put(key, list(key, text));
      } else if (SettingPaths.isMap(value)) {
        values.put(key, map(key, text));
      } else {
        values.put(key, text);
      }
    });
  }

  private static Object list(String key, String text) {
    if (text.strip().startsWith("[")) {
      return hocon(key, text).getList("v").unwrapped();
    }
    return Arrays.stream(text.split(",")).map(String::strip).filter(s -> !s.isEmpty()).toList();
  }

  private static Object map(String key, String text) {
    if (text.strip().startsWith("{")) {
      return hocon(key, text).getObject("v").unwrapped();
    }
    Map<String, String> map = new LinkedHashMap<>();
    for (String pair : List.of(text.split(","))) {
      if (pair.isBlank()) {
        continue;
      }
      int equals = pair.indexOf('=');
      if (equals <= 0) {
        throw new ConfigException.BadValue(key, variable(key) + ": '" + pair.strip() + "' is not NAME=VALUE");
      }
      map.put(pair.substring(0, equals).strip(), pair.substring(equals + 1).strip());
    }
    return map;
  }

  private static Config hocon(String key, String text) {
    try {
      return ConfigFactory.parseString("v = " + text);
    } catch (ConfigException e) {
      throw new ConfigException.BadValue(key, variable(key) + " is not valid HOCON: " + e.getMessage());
    }
  }
}
