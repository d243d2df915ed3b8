package io.futureq.e2e;

import com.typesafe.config.Config;
import com.typesafe.config.ConfigFactory;
import io.futureq.api.grpc.AdminClient;
import io.futureq.api.grpc.ConsumerClient;
import io.futureq.api.grpc.ProducerClient;
import io.futureq.app.Node;
import io.futureq.config.BrokerSettings;
import io.futureq.config.StorageEngine;
import io.futureq.storage.OrderedStore;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import java.util.function.UnaryOperator;
import org.apache.pekko.actor.typed.ActorSystem;
import org.apache.pekko.actor.typed.javadsl.Behaviors;
import org.apache.pekko.grpc.GrpcClientSettings;

/** A real broker on free loopback ports over a data directory, plus generated gRPC clients. */
public final class TestBroker implements AutoCloseable {
  public final Path dataDir;
  public final Node node;
  public final int managementPort;
  public final ActorSystem<Void> clientSystem;
  public final ProducerClient producer;
  public final ConsumerClient consumer;
  public final AdminClient admin;

  private TestBroker(Path dataDir, Node node, int managementPort) {
    this.dataDir = dataDir;
    this.node = node;
    this.managementPort = managementPort;
    this.clientSystem = ActorSystem.create(Behaviors.empty(), "test-client",
        ConfigFactory.parseString("pekko.actor.provider = local\npekko.loglevel = WARNING")
            .withFallback(ConfigFactory.load()));
    GrpcClientSettings settings = GrpcClientSettings.connectToServiceAt("127.0.0.1", node.grpcPort(), clientSystem)
        .withTls(false);
    this.producer = ProducerClient.create(settings, clientSystem);
    this.consumer = ConsumerClient.create(settings, clientSystem);
    this.admin = AdminClient.create(settings, clientSystem);
  }

  public static TestBroker start(Path dataDir) {
    return start(dataDir, Map.of());
  }

  public static TestBroker start(Path dataDir, Map<String, Object> overrides) {
    return start(dataDir, overrides, UnaryOperator.identity());
  }

  /** A broker on {@code engine}; {@code dataDir} is then only where RocksDB would write. */
  public static TestBroker start(StorageEngine engine, Path dataDir, Map<String, Object> overrides) {
    Map<String, Object> values = new HashMap<>(overrides);
    values.put("futureq.storage.engine", engine.configName());
    return start(dataDir, values);
  }

  /** A broker whose store is wrapped, e.g. by a {@link FaultyStore}. */
  public static TestBroker start(Path dataDir, Map<String, Object> overrides,
      UnaryOperator<OrderedStore> storeWrapper) {
    int managementPort = TestPorts.free();
    Map<String, Object> values = new HashMap<>();
    values.put("futureq.storage.data-dir", dataDir.toString());
    values.put("futureq.api.host", "127.0.0.1");
    values.put("futureq.api.port", 0);
    values.put("futureq.metrics.enabled", false);
    values.put("futureq.console.enabled", false); // ConsoleBrowserE2ETest turns it on, on a port of its own
    values.put("futureq.management.port", managementPort);
    values.put("futureq.cluster.remoting.port", 0);
    values.put("futureq.group.in-flight-timeout", "2s");
    values.put("futureq.topic.delete-batch-interval", "20ms");
    values.putAll(overrides);
    Config config = BrokerSettings.load(ConfigFactory.parseMap(values), null, Map.of());
    return new TestBroker(dataDir, Node.start(BrokerSettings.from(config), storeWrapper), managementPort);
  }

  @Override
  public void close() {
    producer.close();
    consumer.close();
    admin.close();
    clientSystem.terminate();
    clientSystem.getWhenTerminated().toCompletableFuture().join();
    node.close();
  }
}
