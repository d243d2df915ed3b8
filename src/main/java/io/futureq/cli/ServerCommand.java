package io.futureq.cli;

import io.futureq.app.Node;
import io.futureq.app.StartupException;
import io.futureq.config.BrokerSettings;
import io.futureq.config.SettingsException;
import java.io.File;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** {@code futureq server}: runs a broker until SIGTERM or SIGINT. */
@Command(name = "server", mixinStandardHelpOptions = true,
    description = "Run the broker. Exits 2 on bad configuration or unusable storage.")
final class ServerCommand implements Callable<Integer> {
  static final int BAD_START = 2;

  @Option(names = "--config", paramLabel = "FILE", description = "HOCON file with settings to override.")
  File config;

  @Override
  public Integer call() {
    if (config != null && !config.isFile()) {
      System.err.println("futureq: --config " + config + ": no such file");
      return BAD_START;
    }
    BrokerSettings settings;
    try {
      settings = BrokerSettings.from(BrokerSettings.load(config, System.getenv()));
    } catch (SettingsException e) {
      System.err.println("futureq: " + e.getMessage());
      return BAD_START;
    } catch (com.typesafe.config.ConfigException e) {
      System.err.println("futureq: invalid configuration: " + e.getMessage());
      return BAD_START;
    }
    Node node;
    try {
      node = Node.start(settings);
    } catch (StartupException e) {
      System.err.println("futureq: " + e.getMessage());
      return BAD_START;
    }
    node.system().getWhenTerminated().toCompletableFuture().join();
    return 0;
  }
}
