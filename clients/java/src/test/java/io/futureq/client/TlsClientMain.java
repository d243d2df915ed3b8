package io.futureq.client;

import java.time.Duration;

/**
 * A TLS client's first call, in a JVM of its own for {@link ConscryptWarningTest}: OkHttp's platform probe runs once
 * per JVM, so only a fresh one shows what a user's application prints. Arguments: the address to call.
 */
final class TlsClientMain {
  private TlsClientMain() {}

  public static void main(String[] args) {
    try (FutureQClient client = FutureQClient.builder().target(args[0]).tls().discoveryInterval(Duration.ZERO)
        .requestTimeout(Duration.ofSeconds(10)).build()) {
      client.listTopics().join();
    } catch (RuntimeException e) {
      System.out.println("call failed: " + FutureQException.from(e).getMessage());
    }
  }
}
