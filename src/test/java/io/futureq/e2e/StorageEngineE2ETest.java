package io.futureq.e2e;

import static io.futureq.e2e.Messages.message;
import static io.futureq.e2e.Messages.request;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.futureq.api.grpc.ClusterInfo;
import io.futureq.api.grpc.GetClusterInfoRequest;
import io.futureq.api.grpc.ListTopicsRequest;
import io.futureq.api.grpc.PublishResponse;
import io.futureq.config.StorageEngine;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/** What a user sees of futureq.storage.engine: /ready and GetClusterInfo name it; memory keeps nothing. */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class StorageEngineE2ETest {
  @TempDir
  Path dir;

  @ParameterizedTest
  @EnumSource(StorageEngine.class)
  void readyAndClusterInfoNameTheStorageEngine(StorageEngine engine) throws Exception {
    try (TestBroker broker = TestBroker.start(engine, dir.resolve("data"), Map.of())) {
      HttpResponse<String> ready = get("http://127.0.0.1:" + broker.managementPort + "/ready");
      ClusterInfo info = broker.admin.getClusterInfo(GetClusterInfoRequest.getDefaultInstance())
          .toCompletableFuture().get(10, TimeUnit.SECONDS);

      assertEquals(200, ready.statusCode(), ready.body());
      String expected = engine == StorageEngine.MEMORY ? "memory (nothing survives a restart)" : "rocksdb";
      assertEquals("OK\nstorage: " + expected + "\n", ready.body());
      assertEquals(200, get("http://127.0.0.1:" + broker.managementPort + "/alive").statusCode());
      assertEquals(engine.configName(), info.getStorage());
      assertEquals("standalone", info.getMode());
    }
  }

  @Test
  void theMemoryEngineWritesNoDataDirectoryAndARestartStartsEmpty() throws Exception {
    Path data = dir.resolve("data");
    try (TestBroker broker = TestBroker.start(StorageEngine.MEMORY, data, Map.of())) {
      PublishResponse published = broker.producer.publish(request(message("kept-nowhere", "x", 60_000)))
          .toCompletableFuture().get(10, TimeUnit.SECONDS);
      assertEquals(1, published.getMessageIdsCount());
      assertEquals(1, broker.admin.listTopics(ListTopicsRequest.getDefaultInstance()).toCompletableFuture()
          .get(10, TimeUnit.SECONDS).getTopicsCount());
    }
    assertTrue(Files.notExists(data), "the memory engine created " + data);

    try (TestBroker broker = TestBroker.start(StorageEngine.MEMORY, data, Map.of())) {
      assertEquals(0, broker.admin.listTopics(ListTopicsRequest.getDefaultInstance()).toCompletableFuture()
          .get(10, TimeUnit.SECONDS).getTopicsCount());
    }
  }

  private static HttpResponse<String> get(String url) throws Exception {
    return HttpClient.newHttpClient().send(HttpRequest.newBuilder(URI.create(url)).timeout(Duration.ofSeconds(5))
        .build(), HttpResponse.BodyHandlers.ofString());
  }
}
