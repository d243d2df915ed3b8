package io.futureq.client;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import org.junit.jupiter.api.Test;

/** The one reader of broker addresses: the builder's targets and the CLI's --server. */
class HostPortTest {
  @Test
  void readsHostsIpv4AndBracketedIpv6() {
    assertEquals(new HostPort("broker-1.example", 8443), HostPort.parse("broker-1.example:8443"));
    assertEquals(new HostPort("127.0.0.1", 1), HostPort.parse("127.0.0.1:1"));
    assertEquals(new HostPort("::1", 65535), HostPort.parse("[::1]:65535"));
  }

  @Test
  void namesWhatIsWrong() {
    assertProblem(HostPort.Problem.NOT_HOST_PORT, "'localhost' is not HOST:PORT", "localhost");
    assertProblem(HostPort.Problem.NOT_HOST_PORT, "'localhost:' is not HOST:PORT", "localhost:");
    assertProblem(HostPort.Problem.NOT_HOST_PORT, "':8443' is not HOST:PORT", ":8443");
    assertProblem(HostPort.Problem.PORT_NOT_A_NUMBER, "'localhost:https' is not HOST:PORT (port must be a number)",
        "localhost:https");
    assertProblem(HostPort.Problem.PORT_OUT_OF_RANGE, "'localhost:0': port must be 1-65535", "localhost:0");
    assertProblem(HostPort.Problem.PORT_OUT_OF_RANGE, "'localhost:65536': port must be 1-65535", "localhost:65536");
  }

  @Test
  void theBuilderSaysTargetAndTheValue() {
    assertEquals("target must be HOST:PORT, got 'localhost'", builderError("localhost"));
    assertEquals("target port must be a number, got 'localhost:x'", builderError("localhost:x"));
    assertEquals("target port must be 1-65535, got 70000", builderError("localhost:70000"));
  }

  private static String builderError(String target) {
    return assertThrows(IllegalArgumentException.class, () -> FutureQClient.builder().target(target)).getMessage();
  }

  private static void assertProblem(HostPort.Problem problem, String message, String text) {
    HostPort.InvalidException e = assertThrows(HostPort.InvalidException.class, () -> HostPort.parse(text));
    assertEquals(problem, e.problem(), text);
    assertEquals(message, e.getMessage());
  }
}
