package io.futureq.e2e;

import io.futureq.api.grpc.AdminClient;
import io.futureq.api.grpc.ConsumerClient;
import io.futureq.api.grpc.ProducerClient;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.Map;
import java.util.stream.Stream;
import org.apache.pekko.actor.typed.ActorSystem;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * One real broker for a test class: started before the class's first test on a data directory of its own, closed
 * after its last test, its directory removed. A class registers it as a static field,
 * {@code @RegisterExtension static final BrokerExtension broker = BrokerExtension.withSettings(Map.of(...));},
 * in place of a {@code @TempDir}, a {@code @BeforeAll} that starts a {@link TestBroker} and an {@code @AfterAll}
 * that closes it. Tests that restart a broker on one directory still use {@link TestBroker} themselves.
 */
public final class BrokerExtension implements BeforeAllCallback, AfterAllCallback {
  private final Map<String, Object> settings;
  private Path dataDir;
  private TestBroker broker;

  private BrokerExtension(Map<String, Object> settings) {
    this.settings = Map.copyOf(settings);
  }

  /** A broker with {@link TestBroker}'s test settings. */
  public static BrokerExtension withDefaults() {
    return new BrokerExtension(Map.of());
  }

  /** A broker whose settings are {@link TestBroker}'s, then {@code settings} over them. */
  public static BrokerExtension withSettings(Map<String, Object> settings) {
    return new BrokerExtension(settings);
  }

  @Override
  public void beforeAll(ExtensionContext context) throws IOException {
    dataDir = Files.createTempDirectory("futureq-" + context.getRequiredTestClass().getSimpleName() + "-");
    broker = TestBroker.start(dataDir.resolve("data"), settings);
  }

  @Override
  public void afterAll(ExtensionContext context) {
    try {
      if (broker != null) {
        broker.close();
      }
    } finally {
      broker = null;
      deleteTree(dataDir);
    }
  }

  public TestBroker broker() {
    if (broker == null) {
      throw new IllegalStateException("the broker runs only between the class's @BeforeAll and @AfterAll");
    }
    return broker;
  }

  public int grpcPort() {
    return broker().node.grpcPort();
  }

  /** The broker's gRPC address as the CLI and the Java client take it. */
  public String server() {
    return "127.0.0.1:" + grpcPort();
  }

  public ProducerClient producer() {
    return broker().producer;
  }

  public ConsumerClient consumer() {
    return broker().consumer;
  }

  public AdminClient admin() {
    return broker().admin;
  }

  /** The actor system the generated gRPC clients run on. */
  public ActorSystem<Void> clientSystem() {
    return broker().clientSystem;
  }

  public int managementPort() {
    return broker().managementPort;
  }

  private static void deleteTree(Path root) {
    if (root == null || !Files.exists(root)) {
      return;
    }
    try (Stream<Path> paths = Files.walk(root)) {
      paths.sorted(Comparator.reverseOrder()).forEach(path -> {
        try {
          Files.deleteIfExists(path);
        } catch (IOException e) {
          throw new UncheckedIOException(e);
        }
      });
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
