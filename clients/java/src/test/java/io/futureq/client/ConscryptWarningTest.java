package io.futureq.client;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * A TLS client on an ordinary JVM prints nothing of OkHttp's search for Android's Conscrypt provider (it printed
 * "WARNING: Unable to find Conscrypt" on stderr at the first TLS connection).
 */
class ConscryptWarningTest {
  @Test
  void aTlsClientsFirstConnectionLogsNoConscryptWarning() throws Exception {
    String output;
    // A port nothing listens on: the connection is refused after OkHttp's platform has been probed.
    try (ServerSocket closedSoon = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      closedSoon.close();
      String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
      Process p = new ProcessBuilder(List.of(java, "-cp", System.getProperty("java.class.path"),
          TlsClientMain.class.getName(), "127.0.0.1:" + closedSoon.getLocalPort())).redirectErrorStream(true).start();
      output = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
      assertTrue(p.waitFor(60, TimeUnit.SECONDS), "the client JVM did not exit: " + output);
    } catch (IOException e) {
      throw new AssertionError("could not run the client JVM", e);
    }
    assertTrue(output.contains("call failed: UNAVAILABLE"), "the TLS call did not reach the transport: " + output);
    assertFalse(output.contains("Conscrypt"), "OkHttp's platform probe reached the output: " + output);
  }
}
