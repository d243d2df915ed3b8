package io.futureq.security;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.google.protobuf.Descriptors;
import io.futureq.api.grpc.Admin;
import io.futureq.api.grpc.Consumer;
import io.futureq.api.grpc.Producer;
import io.futureq.client.ConsumerOptions;
import io.futureq.client.FutureQClient;
import io.futureq.client.FutureQConsumer;
import io.futureq.client.FutureQException;
import io.futureq.client.FutureQProducer;
import io.futureq.client.OutgoingMessage;
import io.futureq.client.ProducerOptions;
import io.futureq.e2e.TestBroker;
import io.futureq.reliability.RawGrpc;
import io.grpc.CallOptions;
import io.grpc.ClientCall;
import io.grpc.ManagedChannel;
import io.grpc.Metadata;
import io.grpc.MethodDescriptor;
import io.grpc.Status;
import io.grpc.netty.shaded.io.grpc.netty.NettyChannelBuilder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyPair;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Authentication and authorization against one real broker on loopback, through the Java client's token option
 * (and raw grpc-java where no client would go): static tokens of a reloaded access file, JWTs signed by a key made
 * here, revocation, and every permission on and off.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class AuthE2ETest {
  private static final String ALICE = TokenHash.newToken();
  private static final String BOB = TokenHash.newToken();
  private static final String CAROL = TokenHash.newToken();
  private static final String ERIN = TokenHash.newToken();

  private final KeyPair keys = TestTokens.rsaKeyPair();
  private Path accessFile;
  private Path revokedFile;
  private TestBroker broker;
  private final List<FutureQClient> clients = new ArrayList<>();

  @BeforeAll
  void start(@TempDir Path dir) throws Exception {
    accessFile = Files.writeString(dir.resolve("access"), accessLines());
    revokedFile = Files.writeString(dir.resolve("revoked"), "# no JWT revoked yet\n");
    Path publicKey = TestTokens.writePublicKey(keys, dir.resolve("jwt.pem"));
    broker = TestBroker.start(dir.resolve("data"), Map.of(
        "futureq.security.auth.enabled", true,
        "futureq.security.auth.access-file", accessFile.toString(),
        "futureq.security.auth.jwt.public-key-file", publicKey.toString(),
        "futureq.security.auth.jwt.issuer", TestTokens.ISSUER,
        "futureq.security.auth.jwt.audience", TestTokens.AUDIENCE,
        "futureq.security.auth.jwt.revoked-file", revokedFile.toString(),
        // Every call looks at the files, so a test sees its edit at once.
        "futureq.security.auth.reload-interval", "0s"));
  }

  private static String accessLines() {
    return String.join("\n",
        "# principal alice produces and consumes orders.*",
        "token alice " + TokenHash.of(ALICE),
        "grant alice produce orders.*",
        "grant alice consume orders.*",
        "token bob " + TokenHash.of(BOB) + "   # bob administers orders.*",
        "grant bob admin orders.*",
        "token carol " + TokenHash.of(CAROL),
        "grant carol cluster",
        "token erin " + TokenHash.of(ERIN) + "   # erin's team consumes orders.* as its own groups only",
        "grant erin consume orders.* group billing-*",
        "grant jwt-user consume billing", "");
  }

  @AfterAll
  void stop() {
    clients.forEach(FutureQClient::close);
    broker.close();
  }

  @Test
  void missingUnknownExpiredWronglySignedAndRevokedTokensAreUnauthenticated() throws Exception {
    KeyPair otherKeys = TestTokens.rsaKeyPair();
    Map<String, String> refused = Map.of(
        "unknown static token", TokenHash.newToken(),
        "expired JWT", TestTokens.jwt(keys, "jwt-user", "j-expired", Duration.ofMinutes(-5), TestTokens.ISSUER,
            Map.of()),
        "JWT signed by another key", TestTokens.jwt(otherKeys, "jwt-user", "j-other", Map.of()),
        "JWT of another issuer", TestTokens.jwt(keys, "jwt-user", "j-iss", Duration.ofMinutes(5),
            "https://elsewhere.test", Map.of()),
        "not a token at all", "a.b.c");
    for (Map.Entry<String, String> e : refused.entrySet()) {
      FutureQException failure = failure(client(e.getValue()).listTopics());
      assertEquals(Status.Code.UNAUTHENTICATED, failure.code(), e.getKey());
      assertEquals("UNAUTHENTICATED: " + NotAuthenticated.MESSAGE, failure.getMessage(),
          e.getKey() + ": the same message whatever was wrong");
    }
    FutureQException none = failure(client(null).listTopics());
    assertEquals(Status.Code.UNAUTHENTICATED, none.code());

    String jwt = TestTokens.jwt(keys, "jwt-user", "j-to-revoke", Map.of());
    client(jwt).listTopics().get(10, TimeUnit.SECONDS);
    Files.writeString(revokedFile, "j-to-revoke\n");
    assertEquals(Status.Code.UNAUTHENTICATED, failure(client(jwt).listTopics()).code(), "revoked by jti");
  }

  /** A refused stream fails the client's sends and subscription at once, not at a delivery timeout. */
  @Test
  void theClientsStreamsEndUnauthenticatedWithoutAValidToken() throws Exception {
    FutureQClient stranger = client(TokenHash.newToken());
    FutureQProducer producer = stranger.producer(ProducerOptions.defaults()
        .withDeliveryTimeout(Duration.ofMinutes(5)));
    assertEquals(Status.Code.UNAUTHENTICATED, failure(producer.send(message("orders.eu", "s1"))).code());
    assertEquals(Status.Code.UNAUTHENTICATED, failure(subscribe(stranger, "orders.eu").subscribed()).code());
  }

  @Test
  void everyProducerConsumerAndAdminRpcNeedsAToken_healthAndReflectionDoNot() throws Exception {
    ManagedChannel channel = NettyChannelBuilder.forAddress("127.0.0.1", broker.node.grpcPort()).usePlaintext()
        .build();
    try {
      int checked = 0;
      for (Descriptors.FileDescriptor file : List.of(Producer.description.descriptor(),
          Consumer.description.descriptor(), Admin.description.descriptor())) {
        for (Descriptors.ServiceDescriptor service : file.getServices()) {
          for (Descriptors.MethodDescriptor method : service.getMethods()) {
            Status status = rawCall(channel, method.getFullName().replaceFirst("\\.([^.]+)$", "/$1"),
                method.isClientStreaming() || method.isServerStreaming()
                    ? MethodDescriptor.MethodType.BIDI_STREAMING : MethodDescriptor.MethodType.UNARY);
            assertEquals(Status.Code.UNAUTHENTICATED, status.getCode(), method.getFullName() + ": " + status);
            checked++;
          }
        }
      }
      assertEquals(15, checked, "3 Producer, 1 Consumer and 11 Admin RPCs");
      assertEquals(Status.Code.OK, rawCall(channel, "grpc.health.v1.Health/Check",
          MethodDescriptor.MethodType.UNARY).getCode(), "health stays open");
    } finally {
      channel.shutdownNow();
    }
  }

  @Test
  void producePermissionIsPerTopicPattern() throws Exception {
    FutureQProducer alice = client(ALICE).producer(ProducerOptions.defaults());
    alice.send(message("orders.eu", "o1")).get(10, TimeUnit.SECONDS);
    FutureQException denied = failure(alice.send(message("billing", "b1")));
    assertEquals(Status.Code.PERMISSION_DENIED, denied.code());
    assertTrue(denied.getMessage().contains("lacks permission 'produce' on topic 'billing'"), denied.getMessage());
    // Cancel is a producer's call too.
    assertEquals(false, client(ALICE).producer(ProducerOptions.defaults()).cancel("orders.eu", "nope")
        .get(10, TimeUnit.SECONDS));
    FutureQException bobCancels = failure(client(BOB).producer(ProducerOptions.defaults()).cancel("orders.eu", "o1"));
    assertEquals(Status.Code.PERMISSION_DENIED, bobCancels.code());
    assertTrue(bobCancels.getMessage().contains("'produce' on topic 'orders.eu'"), bobCancels.getMessage());
  }

  @Test
  void consumePermissionIsPerTopicAndDeadLetterTopicsFollowTheirTopic() throws Exception {
    FutureQClient alice = client(ALICE);
    subscribe(alice, "orders.eu").subscribed().get(10, TimeUnit.SECONDS);
    subscribe(alice, "orders.eu.dead-letter").subscribed().get(10, TimeUnit.SECONDS);

    FutureQException billing = failure(subscribe(alice, "billing").subscribed());
    assertEquals(Status.Code.PERMISSION_DENIED, billing.code());
    assertTrue(billing.getMessage().contains("lacks permission 'consume' on topic 'billing'"), billing.getMessage());
    FutureQException billingDead = failure(subscribe(alice, "billing.dead-letter").subscribed());
    assertEquals(Status.Code.PERMISSION_DENIED, billingDead.code());
    assertTrue(billingDead.getMessage().contains("'consume' on topic 'billing.dead-letter'"),
        billingDead.getMessage());
    FutureQException bob = failure(subscribe(client(BOB), "orders.eu").subscribed());
    assertEquals(Status.Code.PERMISSION_DENIED, bob.code(), "admin does not imply consume");
  }

  @Test
  void aConsumeGrantWithAGroupPatternAdmitsOnlyThoseGroups() throws Exception {
    FutureQClient erin = client(ERIN);
    subscribe(erin, "orders.eu", "billing-eu").subscribed().get(10, TimeUnit.SECONDS);
    // A universal subscriber gets every message, and on a topic without groups its ack removes them: not erin's.
    FutureQException universal = failure(subscribe(erin, "orders.eu", "").subscribed());
    assertTrue(universal.getMessage().contains("on topic 'orders.eu' as a universal subscriber (no group)"),
        universal.getMessage());
    FutureQException shipping = failure(subscribe(erin, "orders.eu", "shipping").subscribed());
    assertEquals(Status.Code.PERMISSION_DENIED, shipping.code());
    assertTrue(shipping.getMessage().contains("principal 'erin' lacks permission 'consume' on topic 'orders.eu' as "
        + "group 'shipping'"), shipping.getMessage());
    FutureQException billing = failure(subscribe(erin, "billing", "billing-eu").subscribed());
    assertTrue(billing.getMessage().contains("lacks permission 'consume' on topic 'billing'"), billing.getMessage());
    // A grant without a group pattern, as before: any group.
    subscribe(client(ALICE), "orders.eu", "shipping").subscribed().get(10, TimeUnit.SECONDS);
    subscribe(client(ALICE), "orders.eu", "").subscribed().get(10, TimeUnit.SECONDS);

    String jwt = TestTokens.jwt(keys, "jwt-user", "j-groups", Map.of("consume",
        List.of(Map.of("topic", "invoices.*", "group", "ledger"))));
    subscribe(client(jwt), "invoices.2026", "ledger").subscribed().get(10, TimeUnit.SECONDS);
    FutureQException other = failure(subscribe(client(jwt), "invoices.2026", "audit").subscribed());
    assertTrue(other.getMessage().contains("on topic 'invoices.2026' as group 'audit'"), other.getMessage());
    String malformed = TestTokens.jwt(keys, "jwt-user", "j-bad-groups", Map.of("consume",
        List.of(Map.of("topic", "invoices.*", "team", "ledger"))));
    assertEquals(Status.Code.UNAUTHENTICATED, failure(subscribe(client(malformed), "invoices.2026", "ledger")
        .subscribed()).code());
  }

  @Test
  void adminPermissionCoversStatsBrowsingAndChanges_listTopicsShowsOnlyPermittedTopics() throws Exception {
    client(ALICE).producer(ProducerOptions.defaults()).send(message("orders.admin", "a1")).get(10, TimeUnit.SECONDS);
    String jwt = TestTokens.jwt(keys, "jwt-user", "j-admin", Map.of("produce", List.of("billing")));
    client(jwt).producer(ProducerOptions.defaults()).send(message("billing", "b1")).get(10, TimeUnit.SECONDS);

    FutureQClient bob = client(BOB);
    assertEquals(1, bob.topicStats("orders.admin").get(10, TimeUnit.SECONDS).getPending());
    assertTrue(bob.getMessageByKey("orders.admin", "a1", false).get(10, TimeUnit.SECONDS).getKey().equals("a1"));
    List<String> bobSees = new ArrayList<>();
    bob.listTopics().get(10, TimeUnit.SECONDS).getTopicsList().forEach(t -> bobSees.add(t.getName()));
    assertTrue(bobSees.contains("orders.admin") && !bobSees.contains("billing"), bobSees.toString());

    FutureQClient alice = client(ALICE);
    List<Function<FutureQClient, CompletableFuture<?>>> adminCalls = List.of(
        c -> c.topicStats("orders.admin"), c -> c.getMessageByKey("orders.admin", "a1", false),
        c -> c.rescheduleByKey("orders.admin", "a1", Instant.now()), c -> c.deleteGroup("orders.admin", "g"),
        c -> c.purgeTopic("orders.admin"), c -> c.deleteTopic("orders.admin"));
    for (Function<FutureQClient, CompletableFuture<?>> call : adminCalls) {
      FutureQException denied = failure(call.apply(alice));
      assertEquals(Status.Code.PERMISSION_DENIED, denied.code(), denied.getMessage());
      assertTrue(denied.getMessage().contains("lacks permission 'admin' on topic 'orders.admin'"),
          denied.getMessage());
    }
    FutureQException deadLetterStats = failure(bob.topicStats("orders.admin.dead-letter"));
    assertEquals(Status.Code.NOT_FOUND, deadLetterStats.code(), "allowed (it follows orders.admin), not there yet");
    assertEquals(Status.Code.PERMISSION_DENIED, failure(bob.topicStats("billing.dead-letter")).code());
  }

  @Test
  void clusterPermissionGuardsMembershipChanges_anyoneReadsTheMembers() throws Exception {
    FutureQException alice = failure(client(ALICE).removeRaftPeer("node-2"));
    assertEquals(Status.Code.PERMISSION_DENIED, alice.code());
    assertTrue(alice.getMessage().contains("lacks permission 'cluster'"), alice.getMessage());
    FutureQException carol = failure(client(CAROL).removeRaftPeer("node-2"));
    assertEquals(Status.Code.FAILED_PRECONDITION, carol.code(), "past the permission: a standalone broker says so");
    assertEquals("standalone", client(ALICE).clusterInfo().get(10, TimeUnit.SECONDS).getMode());
  }

  @Test
  void jwtGrantsComeFromItsClaimAndTheAccessFile() throws Exception {
    String jwt = TestTokens.jwt(keys, "jwt-user", "j-grants", Map.of("produce", List.of("invoices.*")));
    FutureQClient user = client(jwt);
    user.producer(ProducerOptions.defaults()).send(message("invoices.2026", "i1")).get(10, TimeUnit.SECONDS);
    subscribe(user, "billing").subscribed().get(10, TimeUnit.SECONDS); // the access file's grant for jwt-user
    FutureQException denied = failure(subscribe(user, "invoices.2026").subscribed());
    assertTrue(denied.getMessage().contains("principal 'jwt-user' lacks permission 'consume' on topic "
        + "'invoices.2026'"), denied.getMessage());
  }

  @Test
  void aChangedAccessFileIsUsedWithoutARestart() throws Exception {
    String dave = TokenHash.newToken();
    assertEquals(Status.Code.UNAUTHENTICATED, failure(client(dave).listTopics()).code());
    Files.writeString(accessFile, accessLines() + "token dave " + TokenHash.of(dave) + "\n"
        + "grant dave admin reload.*\n");
    client(dave).listTopics().get(10, TimeUnit.SECONDS);
    assertEquals(Status.Code.PERMISSION_DENIED, failure(client(dave).purgeTopic("orders.x")).code());

    Files.writeString(accessFile, "token dave this-line-is-broken\n");
    client(dave).listTopics().get(10, TimeUnit.SECONDS); // a broken edit keeps the last good file
    Files.writeString(accessFile, accessLines());
    assertEquals(Status.Code.UNAUTHENTICATED, failure(client(dave).listTopics()).code(), "dave removed");
  }

  private FutureQClient client(String token) {
    FutureQClient.Builder builder = FutureQClient.builder().target("127.0.0.1:" + broker.node.grpcPort())
        .discoveryInterval(Duration.ZERO).requestTimeout(Duration.ofSeconds(10));
    FutureQClient client = (token == null ? builder : builder.token(token)).build();
    clients.add(client);
    return client;
  }

  private static FutureQConsumer subscribe(FutureQClient client, String topic) {
    return subscribe(client, topic, "g");
  }

  private static FutureQConsumer subscribe(FutureQClient client, String topic, String group) {
    return client.subscribe(topic, group, m -> { }, ConsumerOptions.defaults());
  }

  private static OutgoingMessage message(String topic, String key) {
    return OutgoingMessage.to(topic).payload("p").key(key).delay(Duration.ofHours(1)).build();
  }

  static FutureQException failure(CompletableFuture<?> call) {
    ExecutionException e = assertThrows(ExecutionException.class, () -> call.get(20, TimeUnit.SECONDS));
    assertTrue(e.getCause() instanceof FutureQException, String.valueOf(e.getCause()));
    return (FutureQException) e.getCause();
  }

  /** One call without metadata: an empty message, half-close, the status it ends with. */
  private static Status rawCall(ManagedChannel channel, String method, MethodDescriptor.MethodType type)
      throws Exception {
    ClientCall<byte[], byte[]> call = channel.newCall(RawGrpc.raw(method, type),
        CallOptions.DEFAULT.withDeadlineAfter(10, TimeUnit.SECONDS));
    CompletableFuture<Status> closed = new CompletableFuture<>();
    call.start(new ClientCall.Listener<>() {
      @Override
      public void onClose(Status status, Metadata trailers) {
        closed.complete(status);
      }
    }, new Metadata());
    call.request(10);
    call.sendMessage(new byte[0]);
    call.halfClose();
    return closed.get(15, TimeUnit.SECONDS);
  }
}
