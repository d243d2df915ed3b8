package io.futureq.api;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * The proto module (buf.yaml at the root: src/main/protobuf) lints clean with buf's STANDARD rules, less the
 * exemptions buf.yaml gives with their reasons. Skips without buf; .ci/run installs it from npm (@bufbuild/buf).
 */
class BufLintTest {
  @Test
  void theProtosLintCleanWithBufsStandardRules() throws Exception {
    Path buf = Arrays.stream(System.getenv().getOrDefault("PATH", "").split(":"))
        .map(d -> Path.of(d, "buf")).filter(Files::isExecutable).findFirst().orElse(null);
    assumeTrue(buf != null, "buf is not installed (npm install -g @bufbuild/buf; .ci/run installs it)");
    assertTrue(Files.readString(Path.of("buf.yaml")).contains("    - STANDARD\n"), "buf.yaml uses STANDARD");

    Process lint = new ProcessBuilder(buf.toString(), "lint", "--error-format", "text").redirectErrorStream(true)
        .start();
    String out = new String(lint.getInputStream().readAllBytes());

    assertTrue(lint.waitFor(120, TimeUnit.SECONDS), "buf lint still running");
    assertEquals(0, lint.exitValue(), "buf lint:\n" + out);
    assertEquals("", out.strip(), "buf lint printed");
  }
}
