package io.futureq.app;

import io.futureq.api.AdminService;
import io.futureq.api.ApiServer;
import io.futureq.api.CallAccess;
import io.futureq.api.ConsumerService;
import io.futureq.api.HealthService;
import io.futureq.api.NodeDirectory;
import io.futureq.api.ProducerService;
import io.futureq.api.ShardCalls;
import io.futureq.config.BrokerSettings;
import io.futureq.config.ManagementTlsSettings;
import io.futureq.config.StorageEngine;
import io.futureq.console.ConsoleServer;
import io.futureq.group.PreciseWakeTimer;
import io.futureq.log.LogShards;
import io.futureq.log.leader.PersistenceWarmUp;
import io.futureq.log.raft.RaftStatus;
import io.futureq.metrics.LogMetrics;
import io.futureq.metrics.MetricsServer;
import io.futureq.metrics.NodeMetrics;
import io.futureq.metrics.TopicMetrics;
import io.futureq.storage.OrderedStore;
import io.futureq.tls.ReloadingTls;
import io.futureq.topic.GroupBacklogGauges;
import io.futureq.topic.LocalTopics;
import io.futureq.topic.ShardHolders;
import io.futureq.topic.TopicContext;
import io.futureq.topic.TopicEntity;
import io.futureq.topic.TopicRouter;
import java.time.Duration;
import java.time.InstantSource;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import java.util.function.UnaryOperator;
import org.apache.pekko.Done;
import org.apache.pekko.actor.CoordinatedShutdown;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.ActorSystem;
import org.apache.pekko.actor.typed.DispatcherSelector;
import org.apache.pekko.actor.typed.SpawnProtocol;
import org.apache.pekko.actor.typed.javadsl.Adapter;
import org.apache.pekko.cluster.MemberStatus;
import org.apache.pekko.cluster.sharding.typed.javadsl.ClusterSharding;
import org.apache.pekko.cluster.typed.Cluster;
import org.apache.pekko.cluster.typed.Join;
import org.apache.pekko.http.javadsl.ConnectionContext;
import org.apache.pekko.http.javadsl.Http;
import org.apache.pekko.http.javadsl.ServerBinding;
import org.apache.pekko.management.cluster.bootstrap.ClusterBootstrap;
import org.apache.pekko.management.javadsl.PekkoManagement;
import org.apache.pekko.persistence.Persistence;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The composition root: opens storage, starts the actor system, the event log, sharding, gRPC,
 * metrics and management, and registers the graceful shutdown that undoes it in reverse.
 */
public final class Node implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(Node.class);
  private static final Duration START_TIMEOUT = Duration.ofSeconds(30);
  /** The console's open pages' event streams never end by themselves: they are cut after this, not waited for. */
  private static final Duration CONSOLE_CLOSE = Duration.ofSeconds(1);

  private final ActorSystem<Guardian.Command> system;
  private final ServerBinding binding;
  private final LogShards shards;

  private Node(ActorSystem<Guardian.Command> system, ServerBinding binding, LogShards shards) {
    this.system = system;
    this.binding = binding;
    this.shards = shards;
  }

  /**
   * Starts a broker and returns once it serves.
   *
   * @throws StartupException if storage cannot be opened or a port cannot be bound
   */
  public static Node start(BrokerSettings settings) {
    return start(settings, UnaryOperator.identity());
  }

  /**
   * As {@link #start(BrokerSettings)}, with each log shard's store wrapped by {@code storeWrapper} (tests inject
   * storage faults and slowness this way).
   */
  public static Node start(BrokerSettings settings, UnaryOperator<OrderedStore> storeWrapper) {
    PortCheck.requireFree(settings);
    ShardStores opened;
    try {
      opened = ShardStores.open(settings, storeWrapper);
    } catch (RuntimeException e) {
      throw new StartupException(e.getMessage(), e);
    }
    List<OrderedStore> stores = opened.held();
    MetricsServer metrics = null;
    ActorSystem<Guardian.Command> system;
    try {
      if (settings.metrics().enabled()) {
        metrics = MetricsServer.start(settings.metrics(), settings.config());
      }
      // Gauges of stored topics are set from the store now, not at their first change, so they are there from start.
      StoredTopics.forEach(stores, meta -> TopicMetrics.of(meta.getName()).pending.update(meta.getPending()));
      system = ActorSystem.create(Guardian.create(), "futureq",
          CrashedMemberDowning.roleOverlay(settings.config(), settings.cluster().nodeId())
              .withFallback(ClusterBootstrapConfig.overlay(settings.cluster()))
              .withFallback(RemotingTls.overlay(settings.cluster().tls()))
              .withFallback(RemotingLargeWrites.overlay(settings.raft(), settings.cluster().logShards()))
              .withFallback(settings.config()));
    } catch (RuntimeException e) {
      // A taken remoting port fails here, inside Pekko's start.
      if (metrics != null) {
        metrics.close();
      }
      stores.forEach(OrderedStore::close);
      throw new StartupException("cannot start the broker: " + e.getMessage(), e);
    }
    try {
      return wire(settings, system, opened, storeWrapper, metrics);
    } catch (RuntimeException e) {
      system.terminate();
      awaitQuietly(system);
      if (metrics != null) {
        metrics.close();
      }
      stores.forEach(OrderedStore::close);
      throw new StartupException("cannot start the broker: " + e.getMessage(), e);
    }
  }

  private static Node wire(BrokerSettings settings, ActorSystem<Guardian.Command> system, ShardStores opened,
      UnaryOperator<OrderedStore> storeWrapper, MetricsServer metrics) {
    boolean clustered = settings.cluster().enabled();
    Cluster cluster = Cluster.get(system);
    if (!clustered) {
      cluster.manager().tell(Join.create(cluster.selfMember().address()));
    }
    ClusterSharding sharding = ClusterSharding.get(system);
    Duration askTimeout = settings.api().requestTimeout();
    TopicRouter router = new TopicRouter(sharding, settings.cluster().logShards(), askTimeout);
    LocalTopics localTopics = new LocalTopics();
    ShardedLog log = ShardedLog.start(system, settings, opened, storeWrapper, router, localTopics, new LogMetrics(),
        cause -> replicaFailed(system, settings.cluster().nodeId(), cause));
    LogShards shards = log.shards();
    if (log.host() != null) {
      CrashedMemberDowning.start(system, log.host());
    }
    if (metrics != null) {
      Supplier<List<NodeMetrics.RaftView>> raftViews = log.host() == null ? null
          : () -> log.raft().stream().map(r -> raftView(r.shard(), r.status())).toList();
      metrics.sample(NodeMetrics.start(() -> engineStats(heldStores(shards)), raftViews,
          settings.storage().engine() == StorageEngine.MEMORY ? null : settings.storage().dataDir(),
          settings.config().getDuration("kamon.metric.tick-interval"),
          List.of(new GroupBacklogGauges(shards, localTopics, InstantSource.system()))));
    }
    // Pekko Persistence starts on first use, and its first use on a node was the write leader's recovery when the
    // node became Raft leader: starting it, its plugins and its code then cost a failover 0.5-0.8 s.
    Persistence.get(Adapter.toClassic(system));
    Guardian.start(system, "persistence-warm-up", PersistenceWarmUp.create(), Guardian.OnFailure.LET_STOP);
    Executor storageExecutor =
        system.dispatchers().lookup(DispatcherSelector.fromConfig("futureq-blocking-dispatcher"));
    PreciseWakeTimer wakeTimer = new PreciseWakeTimer();
    system.getWhenTerminated().thenRun(wakeTimer::close);
    TopicContexts contexts = new TopicContexts(shards, shard -> new TopicContext(settings.topic(), settings.group(),
        shard.store(), shards.bucketMs(), shard.log(), storageExecutor, askTimeout,
        settings.limits().maxConsumersPerGroup(), wakeTimer, localTopics));
    log.follow(contexts);
    // Where not every node holds every shard, a shard's topics run on its holders, followed as they are listed.
    ShardHolders holders = new ShardHolders(cluster.selfMember().address());
    TopicEntity.init(sharding, system, contexts.count(), contexts::of, opened.placement() == null ? null : holders);

    Readiness readiness = Readiness.get(system);
    readiness.describeStorage(settings.storage().engine().description());
    CallAccess access = CallAccess.of(settings.security().auth()); // reads the token files: a bad one stops start-up
    // Requests about topics of shards this node does not hold go to a node that holds them.
    ShardCalls calls = new ShardCalls(shards, holders, log::voter, settings.api().requestTimeout());
    calls.attach(Guardian.start(system, ShardCalls.NAME, calls.behavior(), Guardian.OnFailure.RESTART));
    contexts.listIn(calls);
    ProducerService producer = new ProducerService(settings.api(), settings.limits(), shards, router, access, calls);
    // Subscriber sessions live under a parent of their own, not as the guardian's children.
    ActorRef<SpawnProtocol.Command> sessions = Guardian.start(system, "subscribers", SpawnProtocol.create(),
        Guardian.OnFailure.RESTART);
    ConsumerService consumer = new ConsumerService(system, sessions, settings.api(), settings.group(),
        settings.topic(), router, access);
    AdminService admin = new AdminService(system, shards, storageExecutor, router, settings.cluster().nodeId(),
        askTimeout, log.host() == null ? null : new RaftAdmin(log.host(),
        new ReplicaMover(calls, log, localTopics), calls, cluster, settings.cluster().nodeId()),
        settings.storage().engine().configName(), settings.api(), access, calls);
    HealthService health = new HealthService(readiness::isReady);
    ServerBinding binding = await(ApiServer.bind(system, settings.api(), settings.security().tls(), producer, consumer,
        admin, health)
        .toCompletableFuture(), "bind gRPC on " + settings.api().host() + ":" + settings.api().port());
    int grpcPort = binding.localAddress().getPort();
    ServerBinding console = settings.console().enabled() ? await(ConsoleServer.bind(system, settings, access,
        shards, calls, admin, producer, storageExecutor).toCompletableFuture(), "bind the console on "
        + settings.console().host() + ":" + settings.console().port()) : null;
    String grpcAddress = settings.api().advertised().at(grpcPort);
    Guardian.start(system, NodeDirectory.NAME, NodeDirectory.create(settings.cluster().nodeId(),
        cluster.selfMember().address().toString(), grpcAddress, localTopics), Guardian.OnFailure.RESTART);
    if (!clustered) {
      awaitSelfDescribed(system, askTimeout); // a clustered node is described once it has joined
    }
    registerShutdown(system, binding, settings.api().shutdownGrace(), log, readiness, metrics);
    if (console != null) {
      CoordinatedShutdown.get(system).addTask(CoordinatedShutdown.PhaseServiceUnbind(), "futureq-console-unbind",
          () -> console.terminate(CONSOLE_CLOSE).thenApply(t -> Done.getInstance()));
    }
    await(startManagement(system, settings.security().managementTls()).toCompletableFuture(),
        "start Pekko Management on " + settings.management().host() + ":" + settings.management().port());
    if (clustered) {
      ClusterBootstrap.get(system).start();
      RegionRegistration regions = RegionRegistration.watchTopics(system, contexts.count());
      readiness.require(() -> cluster.selfMember().status() != MemberStatus.up()
          ? "cluster member status " + cluster.selfMember().status()
          : Optional.ofNullable(log.behind()).orElseGet(regions::whyNot));
      TopicWakeUps.everyIntervalAndOnMemberRemoved(system, settings.topic().wakeInterval(), () -> heldStores(shards),
          router);
    }
    readiness.set(true);
    TopicWakeUps.wakeAll(heldStores(shards), router);
    LOG.info("FutureQ {} node {} serving gRPC on {}:{}, advertised as {} (data in {}); management on {}:{}; {}",
        NodeMetrics.version(), settings.cluster().nodeId(), settings.api().host(), grpcPort, grpcAddress,
        settings.storage().engine() == StorageEngine.MEMORY ? "memory only, lost on restart"
            : settings.storage().dataDir().toAbsolutePath(), settings.management().host(), settings.management().port(),
        metrics == null ? "metrics off" : "metrics on " + settings.metrics().host() + ":" + metrics.port()
            + (console == null ? "; console off" : "; console on " + consoleUrl(settings, console)));
    Exposure.log(settings, grpcPort, clustered);
    return new Node(system, binding, shards);
  }

  /** The stores of the shards this node holds now, in shard order. */
  private static List<OrderedStore> heldStores(LogShards shards) {
    return shards.held().stream().map(LogShards.Shard::store).toList();
  }

  /** The storage engine's figures, summed over the shards' stores. */
  private static Map<String, Long> engineStats(List<OrderedStore> stores) {
    Map<String, Long> sum = new TreeMap<>();
    stores.forEach(store -> store.engineStats().forEach((name, value) -> sum.merge(name, value, Long::sum)));
    return sum;
  }

  /**
   * Pekko Management over HTTP, or over HTTPS with certificates that follow their files. Cluster bootstrap then
   * probes the other members at https URIs (the scheme of its own), through the system's default HTTPS client
   * context: it is set to trust the management CA, check the dialled address and present this member's certificate.
   */
  private static CompletionStage<?> startManagement(ActorSystem<?> system,
      ManagementTlsSettings tls) {
    if (!tls.enabled()) {
      return PekkoManagement.get(system).start();
    }
    ReloadingTls engines = ReloadingTls.load(tls.files());
    Http.get(system).setDefaultClientHttpsContext(ConnectionContext.httpsClient(engines::clientEngine));
    return PekkoManagement.get(system).start(management -> management.withHttpsConnectionContext(
        ConnectionContext.httpsServer(engines::serverEngine)));
  }

  private static void registerShutdown(ActorSystem<Guardian.Command> system, ServerBinding binding, Duration grace,
      ShardedLog log, Readiness readiness, MetricsServer metrics) {
    CoordinatedShutdown shutdown = CoordinatedShutdown.get(system);
    if (log.host() != null) {
      // First of all, so that the write leaders move while this node still serves and relays writes.
      shutdown.addTask(CoordinatedShutdown.PhaseBeforeServiceUnbind(), "futureq-hand-over-raft-leadership",
          () -> log.handOverLeadership().thenApply(v -> Done.getInstance()));
    }
    shutdown.addTask(CoordinatedShutdown.PhaseServiceUnbind(), "futureq-unbind", () -> {
      readiness.set(false);
      return binding.unbind().thenApply(d -> Done.getInstance());
    });
    shutdown.addTask(CoordinatedShutdown.PhaseServiceRequestsDone(), "futureq-drain-requests",
        () -> binding.terminate(grace).thenApply(t -> Done.getInstance()));
    shutdown.addTask(CoordinatedShutdown.PhaseBeforeActorSystemTerminate(), "futureq-close-storage",
        () -> CompletableFuture.supplyAsync(() -> {
          List<OrderedStore> stores = heldStores(log.shards());
          log.close();
          stores.forEach(OrderedStore::close);
          if (metrics != null) {
            metrics.close();
          }
          return Done.getInstance();
        }));
  }

  public ActorSystem<Guardian.Command> system() {
    return system;
  }

  public int grpcPort() {
    return binding.localAddress().getPort();
  }

  /** Log shard 0's store (null if this node does not hold shard 0). */
  public OrderedStore store() {
    return shards.get(0).store();
  }

  /** Each log shard's store, by shard; null for a shard this node does not hold. */
  public List<OrderedStore> stores() {
    return shards.all().stream().map(LogShards.Shard::store).toList();
  }

  /**
   * Why the node shut down when its Raft replica could apply no more: a node that stayed up would
   * keep hosting topics that never hear of a new message again.
   */
  public record ReplicaFailed(String cause) implements CoordinatedShutdown.Reason {}

  private static void replicaFailed(ActorSystem<Guardian.Command> system, String nodeId, Throwable cause) {
    LOG.error("node {} shuts down: its Raft replica cannot apply the log ({}); its topics move to the other nodes. "
        + "Fix the cause and start it again: it catches up from the log or a snapshot", nodeId, cause.getMessage());
    CoordinatedShutdown.get(system).run(new ReplicaFailed(String.valueOf(cause.getMessage())));
  }

  /**
   * Why the node shut down, if it did so on its own (not asked by a signal or {@link #close}): its Raft replica
   * failed ({@link ReplicaFailed}), or an actor it cannot serve without did ({@link Guardian.ActorFailed}).
   */
  public Optional<String> failure() {
    return CoordinatedShutdown.get(system).getShutdownReason().flatMap(reason -> {
      if (reason instanceof ReplicaFailed replica) {
        return Optional.of("Raft replica failed: " + replica.cause());
      }
      if (reason instanceof Guardian.ActorFailed actor) {
        return Optional.of(actor.actor() + " failed: " + actor.cause());
      }
      return Optional.empty();
    });
  }

  /** Runs the graceful shutdown and waits for it. */
  @Override
  public void close() {
    CoordinatedShutdown.get(system).run(CoordinatedShutdown.unknownReason());
    awaitQuietly(system);
  }

  private static void awaitQuietly(ActorSystem<?> system) {
    try {
      system.getWhenTerminated().toCompletableFuture().get(60, TimeUnit.SECONDS);
    } catch (Exception e) {
      LOG.warn("actor system did not terminate in time", e);
    }
  }

  /**
   * The node directory is spawned asynchronously: wait until it answers, so that GetClusterInfo
   * answered right after a standalone start names this node and its gRPC address (seen missing in a
   * CI run of StatsClusterCommandTest).
   */
  private static void awaitSelfDescribed(ActorSystem<Guardian.Command> system, Duration askTimeout) {
    String self = Cluster.get(system).selfMember().address().toString();
    long deadline = System.currentTimeMillis() + START_TIMEOUT.toMillis();
    while (await(NodeDirectory.describeReachable(system, askTimeout).toCompletableFuture(), "list the node directory")
        .stream().noneMatch(d -> d.address().equals(self))) {
      if (System.currentTimeMillis() > deadline) {
        throw new IllegalStateException("the node directory of " + self + " did not register within "
            + START_TIMEOUT.toSeconds() + " s");
      }
      try {
        Thread.sleep(5);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new IllegalStateException("interrupted while starting", e);
      }
    }
  }

  private static <T> T await(CompletableFuture<T> future, String what) {
    try {
      return future.get(START_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
    } catch (Exception e) {
      Throwable cause = e.getCause() == null ? e : e.getCause();
      throw new IllegalStateException("could not " + what + ": " + cause.getMessage(), cause);
    }
  }

  private static String consoleUrl(BrokerSettings settings, ServerBinding console) {
    return (settings.security().tls().enabled() ? "https://" : "http://") + settings.console().host() + ":"
        + console.localAddress().getPort() + "/";
  }

  private static NodeMetrics.RaftView raftView(int shard, RaftStatus status) {
    return new NodeMetrics.RaftView(shard, status.term(), status.commitIndex(), status.appliedIndex(),
        status.role() == RaftStatus.Role.LEADER, status.leaderId());
  }
}
