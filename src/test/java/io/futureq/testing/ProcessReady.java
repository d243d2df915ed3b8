package io.futureq.testing;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.concurrent.Callable;

/**
 * Waits for a broker run as a process of its own to answer 200 on its management {@code /ready}: what every harness
 * that starts {@code futureq server} processes does after each launch.
 */
public final class ProcessReady {
  private static final HttpClient HTTP = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();

  private ProcessReady() {
  }

  /** {@code http://host:port/ready}. */
  public static URI url(String host, int managementPort) {
    return URI.create("http://" + host + ":" + managementPort + "/ready");
  }

  /**
   * Returns once GET {@code ready} answers 200. Fails at once if {@code process} exits meanwhile (naming its exit
   * status), or after {@code within} (naming the last answer); both failures end with what {@code output} gives
   * (the process's log, say). Until it listens, a refused connection is "not yet".
   */
  public static void await(String name, Process process, URI ready, Duration within, Callable<String> output) {
    String[] answer = {"none"};
    Await.until(name + " ready (GET " + ready + " answers 200)", within, () -> {
      if (!process.isAlive()) {
        int status = process.exitValue();
        throw new AssertionError(name + " exited with " + status + signal(status) + " while starting:\n"
            + read(output));
      }
      HttpResponse<String> r = HTTP.send(HttpRequest.newBuilder(ready).timeout(Duration.ofSeconds(2)).build(),
          HttpResponse.BodyHandlers.ofString());
      answer[0] = r.statusCode() + " " + r.body().trim();
      return r.statusCode() == 200;
    }, () -> "/ready last answered: " + answer[0] + "\n" + read(output));
  }

  private static String signal(int status) {
    return switch (status) {
      case 137 -> " (SIGKILL)";
      case 143 -> " (SIGTERM, sent from outside: no harness stops a starting broker)";
      default -> "";
    };
  }

  private static String read(Callable<String> output) {
    try {
      return output.call();
    } catch (Exception e) {
      return "(output unreadable: " + e + ")";
    }
  }
}
