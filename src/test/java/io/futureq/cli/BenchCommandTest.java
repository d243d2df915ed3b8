package io.futureq.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.futureq.e2e.TestBroker;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** {@code futureq bench} end to end: every message published, delivered once, figures reported. */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class BenchCommandTest {
  @TempDir
  static Path dir;
  static TestBroker broker;
  static String server;

  @BeforeAll
  static void start() {
    broker = TestBroker.start(dir.resolve("data"));
    server = "127.0.0.1:" + broker.node.grpcPort();
  }

  @AfterAll
  static void stop() {
    broker.close();
  }

  @Test
  void reportsThroughputLatenessAndNoLossAsJson() {
    Cli.Result r = Cli.run("bench", "--server", server, "--messages", "2000", "--delay-min", "100ms",
        "--delay-max", "300ms", "--batch", "50", "--json");
    assertEquals(0, r.exit(), r.toString());
    String json = r.out().trim();
    assertTrue(json.contains("\"published\":2000"), json);
    assertTrue(json.contains("\"received\":2000"), json);
    assertTrue(json.contains("\"missing\":0"), json);
    assertTrue(json.contains("\"duplicates\":0"), json);
    assertTrue(json.contains("\"lateness_ms\":{\"p50\":"), json);
  }

  @Test
  void burstAndPublishOnlyModesWork() {
    Cli.Result burst = Cli.run("bench", "--server", server, "--messages", "1000", "--burst", "--delay-min", "200ms");
    assertEquals(0, burst.exit(), burst.toString());
    assertTrue(burst.out().contains("burst: last delivery"), burst.out());
    Cli.Result only = Cli.run("bench", "--server", server, "--messages", "1000", "--publish-only", "--json");
    assertEquals(0, only.exit(), only.toString());
    assertTrue(only.out().contains("\"published\":1000"), only.out());
  }

  @Test
  void rejectsInconsistentDelays() {
    Cli.Result r = Cli.run("bench", "--server", server, "--delay-min", "5s", "--delay-max", "1s");
    assertEquals(2, r.exit(), r.toString());
    assertTrue(r.err().contains("--delay-max"), r.err());
  }
}
