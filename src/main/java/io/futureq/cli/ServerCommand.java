package io.futureq.cli;

import com.typesafe.config.ConfigException;
import io.futureq.app.Node;
import io.futureq.app.StartupException;
import io.futureq.config.BrokerSettings;
import io.futureq.config.SettingsException;
import java.io.File;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.pekko.actor.CoordinatedShutdown;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import sun.misc.Signal;
import sun.misc.SignalHandler;

/** {@code futureq server}: runs a broker until SIGTERM or SIGINT, then shuts it down and exits 0. */
@Command(name = "server", mixinStandardHelpOptions = true,
    description = "Run the broker. Exits 2 on bad configuration, a port in use or unusable storage.")
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
    } catch (ConfigException e) {
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
    stopOnSignals(node);
    node.system().getWhenTerminated().toCompletableFuture().join();
    // A node that stopped on its own (its replica, or an actor it needs, failed) exits 1: a supervisor restarts it.
    return node.failure().isPresent() ? 1 : 0;
  }

  /**
   * Makes SIGTERM and SIGINT run the graceful shutdown and end the process with status 0. Left to the
   * JVM, a signal runs the same shutdown from a shutdown hook but the JVM then exits with 128 + the
   * signal number (143 for SIGTERM), which supervisors read as a failure. A second signal during the
   * shutdown goes back to the JVM's own handling. {@code sun.misc.Signal} (module jdk.unsupported) is
   * the only way to handle a signal in Java 17.
   */
  private static void stopOnSignals(Node node) {
    for (String name : List.of("TERM", "INT")) {
      AtomicReference<SignalHandler> jvmHandler = new AtomicReference<>();
      try {
        jvmHandler.set(Signal.handle(new Signal(name), signal -> {
          SignalHandler previous = jvmHandler.get();
          if (previous != null) {
            Signal.handle(signal, previous);
          }
          CoordinatedShutdown.get(node.system()).run(new SignalReceived("SIG" + signal.getName()));
        }));
      } catch (IllegalArgumentException e) {
        // The JVM reserves this signal (java -Xrs): it keeps its usual effect and exit status.
      }
    }
  }

  /** Why the broker shut down, as CoordinatedShutdown reports it. */
  private record SignalReceived(String signal) implements CoordinatedShutdown.Reason {}
}
