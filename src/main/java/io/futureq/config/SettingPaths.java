package io.futureq.config;

import com.typesafe.config.ConfigObject;
import com.typesafe.config.ConfigValue;
import java.util.Map;
import java.util.function.BiConsumer;

/**
 * The settings that futureq.conf defines: every leaf value, and every empty object, which is a map whose keys
 * the user chooses ({@code futureq.raft.peers}).
 */
final class SettingPaths {
  private SettingPaths() {}

  /** Calls {@code action} with the path and default of every setting under {@code object}, found at {@code path}. */
  static void forEach(ConfigObject object, String path, BiConsumer<String, ConfigValue> action) {
    for (Map.Entry<String, ConfigValue> entry : object.entrySet()) {
      String key = path + "." + entry.getKey();
      if (entry.getValue() instanceof ConfigObject child && !child.isEmpty()) {
        forEach(child, key, action);
      } else {
        action.accept(key, entry.getValue());
      }
    }
  }

  /** Whether {@code value}, a default, is a map of the user's own keys. */
  static boolean isMap(ConfigValue value) {
    return value instanceof ConfigObject;
  }
}
