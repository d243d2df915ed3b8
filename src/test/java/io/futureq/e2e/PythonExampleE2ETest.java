package io.futureq.e2e;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.futureq.api.grpc.GetTopicStatsRequest;
import io.futureq.api.grpc.TopicStats;
import io.futureq.testing.Await;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * The README's Python producer and consumer (examples/python), on stubs generated from the public protos with
 * Debian's python3-grpc-tools, run as processes against a real broker. Skips where no python3 can import grpc and
 * grpc_tools; .ci/run installs python3-grpcio and python3-grpc-tools.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class PythonExampleE2ETest {
  private static final Path EXAMPLES = Path.of("examples", "python");
  private static final Duration WAIT = Duration.ofSeconds(60);
  private static final Pattern PYTHON_BLOCK = Pattern.compile("```python\n(.*?)```", Pattern.DOTALL);

  @RegisterExtension
  static final BrokerExtension broker = BrokerExtension.withDefaults();
  @TempDir
  Path dir;

  @Test
  void theReadmeShowsTheExampleScriptsAsTheyAre() throws IOException {
    List<String> blocks = new ArrayList<>();
    Matcher m = PYTHON_BLOCK.matcher(Files.readString(Path.of("README.md")));
    while (m.find()) {
      blocks.add(m.group(1));
    }
    for (String script : List.of("producer.py", "consumer.py")) {
      assertTrue(blocks.contains(Files.readString(EXAMPLES.resolve(script))),
          "README.md shows examples/python/" + script + " in a ```python block, as it is in the file");
    }
  }

  @Test
  void thePythonConsumerReceivesWhatThePythonProducerPublishedAndNotWhatItCancelled() throws Exception {
    Optional<Path> python = pythonWithGrpc();
    assumeTrue(python.isPresent(), "no python3 here imports grpc and grpc_tools (Debian's python3-grpcio and "
        + "python3-grpc-tools; .ci/run installs them)");
    Path stubs = dir.resolve("stubs");
    Run generated = run(List.of(EXAMPLES.resolve("generate-stubs.sh").toString(), stubs.toString()),
        Map.of("PYTHON", python.get().toString()));
    assertEquals(0, generated.exit, generated.toString());
    String topic = "python-example";
    Path consumerOut = dir.resolve("consumer.out");
    Path consumerErr = dir.resolve("consumer.err");
    Process consumer = command(python.get(), stubs, "consumer.py", "--topic", topic, "--group", "mailer",
        "--count", "1").redirectOutput(consumerOut.toFile()).redirectError(consumerErr.toFile()).start();
    try {
      Await.until("the Python consumer subscribed", WAIT, () -> Files.readString(consumerErr).contains(
          "subscribed to " + topic + " as mailer"), () -> "its stderr: " + readOrEmpty(consumerErr));

      // Both due in 5 s, the cancelled one first: were it not cancelled, the consumer (which takes one) would get it.
      Run cancelled = producer(python.get(), stubs, "publish", "--topic", topic, "--delay", "5", "--key",
          "order-1", "cancelled");
      assertEquals(0, cancelled.exit, cancelled.toString());
      Run cancel = producer(python.get(), stubs, "cancel", "--topic", topic, "--key", "order-1");
      assertRun(0, "cancelled " + cancelled.out, cancel);
      assertRun(3, "not found", producer(python.get(), stubs, "cancel", "--topic", topic, "--key", "order-1"));
      Run kept = producer(python.get(), stubs, "publish", "--topic", topic, "--delay", "5", "--key", "order-2",
          "kept");
      assertEquals(0, kept.exit, kept.toString());

      assertTrue(consumer.waitFor(WAIT.toSeconds(), TimeUnit.SECONDS), "the consumer still runs after " + WAIT
          + "; its output: " + readOrEmpty(consumerOut) + readOrEmpty(consumerErr));
      assertEquals(0, consumer.exitValue(), readOrEmpty(consumerErr));
      assertEquals("{\"message_id\": \"" + kept.out + "\", \"key\": \"order-2\", \"attempt\": 1, \"headers\": {}, "
          + "\"payload\": \"kept\"}", Files.readString(consumerOut).strip());
    } finally {
      consumer.destroyForcibly();
    }
    // The consumer's ack deleted the message: nothing is left for the group.
    TopicStats stats = Await.until("the acked message deleted", WAIT, () -> broker.admin().getTopicStats(
        GetTopicStatsRequest.newBuilder().setTopic(topic).build()).toCompletableFuture().get(10, TimeUnit.SECONDS),
        s -> s.getPending() == 0);
    assertEquals(0, stats.getGroups(0).getLag(), stats.toString());
  }

  @Test
  void aBadRequestExitsWithTheBrokersReason() throws Exception {
    Optional<Path> python = pythonWithGrpc();
    assumeTrue(python.isPresent(), "no python3 here imports grpc and grpc_tools");
    Path stubs = dir.resolve("stubs");
    run(List.of(EXAMPLES.resolve("generate-stubs.sh").toString(), stubs.toString()),
        Map.of("PYTHON", python.get().toString()));

    Run bad = producer(python.get(), stubs, "publish", "--topic", "no spaces", "x");

    assertRun(1, "", bad);
    assertTrue(bad.err.startsWith("producer: INVALID_ARGUMENT: messages[0].topic: character ' '"), bad.err);
  }

  /** The first python3 on the PATH, or Debian's, that imports grpc and grpc_tools (pyenv's may come first). */
  static Optional<Path> pythonWithGrpc() throws Exception {
    List<Path> candidates = new ArrayList<>(Arrays.stream(System.getenv().getOrDefault("PATH", "").split(":"))
        .map(d -> Path.of(d, "python3")).toList());
    candidates.add(Path.of("/usr/bin/python3"));
    for (Path python : candidates) {
      if (Files.isExecutable(python)
          && run(List.of(python.toString(), "-c", "import grpc, grpc_tools.protoc"), Map.of()).exit == 0) {
        return Optional.of(python);
      }
    }
    return Optional.empty();
  }

  private Run producer(Path python, Path stubs, String... args) throws Exception {
    Process p = command(python, stubs, "producer.py", args).start();
    return finish(p, String.join(" ", args));
  }

  /** {@code python script args} with the stubs on its path, talking to the test's broker. */
  private static ProcessBuilder command(Path python, Path stubs, String script, String... args) {
    List<String> command = new ArrayList<>(List.of(python.toString(), EXAMPLES.resolve(script).toString()));
    command.addAll(List.of(args));
    ProcessBuilder builder = new ProcessBuilder(command);
    builder.environment().put("PYTHONPATH", stubs.toString());
    builder.environment().put("FUTUREQ_SERVER", broker.server());
    builder.environment().remove("FUTUREQ_TOKEN");
    return builder;
  }

  private static Run run(List<String> command, Map<String, String> environment) throws Exception {
    ProcessBuilder builder = new ProcessBuilder(command);
    builder.environment().putAll(environment);
    return finish(builder.start(), String.join(" ", command));
  }

  /** Waits for {@code p}, reading its stderr on another thread so that neither pipe fills. */
  private static Run finish(Process p, String what) throws Exception {
    CompletableFuture<String> err = new CompletableFuture<>();
    Thread reader = new Thread(() -> {
      try {
        err.complete(new String(p.getErrorStream().readAllBytes()));
      } catch (IOException e) {
        err.completeExceptionally(e);
      }
    });
    reader.start();
    String out = new String(p.getInputStream().readAllBytes());
    if (!p.waitFor(WAIT.toSeconds(), TimeUnit.SECONDS)) {
      p.destroyForcibly();
      throw new AssertionError(what + " still runs after " + WAIT);
    }
    return new Run(p.exitValue(), out.strip(), err.get(10, TimeUnit.SECONDS).strip());
  }

  private static String readOrEmpty(Path file) {
    try {
      return Files.readString(file);
    } catch (IOException e) {
      return "";
    }
  }

  private static void assertRun(int exit, String out, Run run) {
    assertEquals(exit, run.exit, run.toString());
    assertEquals(out, run.out, run.toString());
  }

  /** A finished process: its exit status and what it wrote, stripped. */
  private record Run(int exit, String out, String err) {
  }
}
