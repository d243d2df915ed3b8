package io.futureq.config;

import java.util.Locale;

/** Where the broker keeps its data: {@code futureq.storage.engine}. */
public enum StorageEngine {
  /** RocksDB in {@code futureq.storage.data-dir}: durable, fsynced when {@code fsync} is on. */
  ROCKSDB,
  /** The heap only: no data directory, no fsync, nothing survives a restart. Standalone only. */
  MEMORY;

  /** The name used in the configuration, {@code /ready} and Admin.GetClusterInfo. */
  public String configName() {
    return name().toLowerCase(Locale.ROOT);
  }

  /** As {@code /ready} shows it: the name and, for memory, what that costs. */
  public String description() {
    return this == MEMORY ? "memory (nothing survives a restart)" : configName();
  }

  static StorageEngine read(SettingsReader r, String key) {
    String value = r.string(key);
    for (StorageEngine engine : values()) {
      if (engine.configName().equals(value)) {
        return engine;
      }
    }
    r.problem(key + ": must be \"rocksdb\" or \"memory\", got \"" + value + "\"");
    return ROCKSDB;
  }
}
