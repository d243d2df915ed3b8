package io.futureq.config;

import com.typesafe.config.Config;
import com.typesafe.config.ConfigException;
import com.typesafe.config.ConfigFactory;
import java.io.File;
import java.time.Duration;
import java.util.List;
import java.util.Map;

/** Every setting of a broker, read and checked once at start-up. */
public record BrokerSettings(
    ClusterSettings cluster,
    ApiSettings api,
    StorageSettings storage,
    TopicSettings topic,
    GroupSettings group,
    MetricsSettings metrics,
    EndpointSettings management,
    LimitSettings limits,
    RaftSettings raft,
    SecuritySettings security,
    EndpointSettings console,
    Config config) {

  /**
   * Reads and validates {@code futureq.*}; {@code futureq.raft.*} only when clustered ({@link #raft()} is
   * null when standalone).
   *
   * @throws SettingsException listing every bad key and why, and every {@code futureq.*} key that is no setting
   */
  public static BrokerSettings from(Config config) {
    SettingsReader r = new SettingsReader(config);
    BrokerSettings settings = new BrokerSettings(
        ClusterSettings.from(r),
        ApiSettings.from(r),
        StorageSettings.from(r),
        TopicSettings.from(r),
        GroupSettings.from(r),
        MetricsSettings.from(r),
        EndpointSettings.from(r, "futureq.management.", false),
        LimitSettings.from(r),
        null,
        SecuritySettings.from(r),
        EndpointSettings.from(r, "futureq.console.", true),
        config);
    if (settings.cluster().enabled()) {
      settings = new BrokerSettings(settings.cluster(), settings.api(), settings.storage(), settings.topic(),
          settings.group(), settings.metrics(), settings.management(), settings.limits(),
          RaftSettings.from(r, config, settings.cluster().tls()), settings.security(), settings.console(), config);
    }
    List<String> problems = r.problems();
    problems.addAll(0, UnknownKeys.in(config));
    if (settings.api().keepaliveInterval().compareTo(settings.api().idleTimeout()) >= 0) {
      problems.add("futureq.api.keepalive-interval: must be shorter than futureq.api.idle-timeout (the pings are "
          + "what keeps a quiet Subscribe stream's connection from being closed as idle)");
    }
    if (settings.api().maxPayloadBytes() > settings.api().maxBatchBytes()) {
      problems.add("futureq.api.max-payload-size: must not exceed futureq.api.max-batch-size");
    }
    settings.security().check(settings.api(), problems);
    settings.security().checkConsole(settings.console(), problems);
    settings.cluster().check(settings.raft(), problems);
    if (settings.cluster().enabled() && settings.storage().engine() == StorageEngine.MEMORY) {
      problems.add("futureq.storage.engine: memory runs standalone only; with futureq.cluster.enabled = true every "
          + "replica must keep its Raft state and store across restarts, so use rocksdb");
    }
    if (settings.raft() != null) {
      checkRemovalMargin(config, settings.raft(), problems);
    }
    if (!problems.isEmpty()) {
      throw new SettingsException(problems);
    }
    return settings;
  }

  /**
   * The split-brain resolver's removal margin lets a crashed or cut-off node's topics start on the
   * survivors that long after it is downed; that is safe only once its groups have stopped delivering,
   * which they do when their replica's lease (the Raft election timeout) runs out. See conf/futureq.conf.
   */
  private static void checkRemovalMargin(Config config, RaftSettings raft, List<String> problems) {
    String margin = "pekko.cluster.down-removal-margin";
    String stableAfter = "pekko.cluster.split-brain-resolver.stable-after";
    if (!config.hasPath(margin) || !config.hasPath(stableAfter)) {
      return;
    }
    try {
      boolean off = "off".equalsIgnoreCase(config.getString(margin));
      Duration effective = off ? config.getDuration(stableAfter) : config.getDuration(margin);
      if (effective.compareTo(raft.electionTimeout()) <= 0) {
        problems.add((off ? stableAfter : margin) + ": must be longer than futureq.raft.election-timeout ("
            + raft.electionTimeout().toMillis() + " ms), the lease after which a cut-off node stops delivering; got "
            + effective.toMillis() + " ms");
      }
    } catch (ConfigException e) {
      problems.add(margin + ": must be a duration or off (" + e.getMessage() + ")");
    }
  }

  /**
   * Loads the layered configuration, strongest first: system properties, environment overrides
   * ({@code futureq.api.max-in-flight} is {@code FUTUREQ_API_MAX_IN_FLIGHT}, see {@link EnvironmentOverrides}),
   * {@code file} (if any),
   * the defaults in {@code futureq.conf}, then Pekko's reference configuration.
   *
   * @throws SettingsException naming each {@code FUTUREQ_} variable that is not a setting (a typo would otherwise
   *     leave the default in force without a word), nor one of the launcher's and CLI's own
   */
  public static Config load(File file, Map<String, String> environment) {
    return load(ConfigFactory.empty(), file, environment);
  }

  /** As {@link #load(File, Map)}, with {@code overrides} strongest of all (tests, embedding). */
  public static Config load(Config overrides, File file, Map<String, String> environment) {
    Config defaults = ConfigFactory.parseResources("futureq.conf");
    List<String> unknownVariables = EnvironmentOverrides.unknown(defaults.resolve().getObject("futureq"), environment);
    if (!unknownVariables.isEmpty()) {
      throw new SettingsException(unknownVariables);
    }
    Config user = file == null ? ConfigFactory.empty() : ConfigFactory.parseFile(file);
    return overrides.withFallback(ConfigFactory.systemProperties())
        .withFallback(EnvironmentOverrides.from(defaults.resolve().getObject("futureq"), environment))
        .withFallback(user)
        .withFallback(defaults)
        .withFallback(ConfigFactory.defaultReference())
        .resolve();
  }
}
