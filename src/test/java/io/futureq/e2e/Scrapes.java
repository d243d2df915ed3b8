package io.futureq.e2e;

import io.futureq.testing.Await;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.OptionalDouble;
import java.util.TreeSet;
import java.util.function.Predicate;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** Reads a broker's GET /metrics, as Prometheus does, and the samples in it. */
final class Scrapes {
  private static final HttpClient HTTP = HttpClient.newHttpClient();
  private static final Pattern SAMPLE_NAME = Pattern.compile("(?m)^([a-zA-Z_:][a-zA-Z0-9_:]*)[{ ]");

  private Scrapes() {}

  static String scrape(int port) throws Exception {
    return HTTP.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/metrics")).build(),
        HttpResponse.BodyHandlers.ofString()).body();
  }

  /** Scrapes until a scrape is {@code accepted}; if none is within the bound, fails saying {@code what}. */
  static String until(int port, String what, Duration within, Predicate<String> accepted) {
    String[] last = {""};
    return Await.value(what, within, () -> {
      last[0] = scrape(port);
      return accepted.test(last[0]) ? last[0] : null;
    }, () -> "last scrape:\n" + last[0]);
  }

  /** The value of the sample of exactly this series ({@code name{labels}} as the scrape writes it), if there. */
  static OptionalDouble value(String scrape, String series) {
    Matcher m = Pattern.compile("(?m)^" + Pattern.quote(series) + " (\\S+)$").matcher(scrape);
    return m.find() ? OptionalDouble.of(Double.parseDouble(m.group(1))) : OptionalDouble.empty();
  }

  /** A predicate: the series is there with this value. */
  static Predicate<String> has(String series, double expected) {
    return scrape -> value(scrape, series).orElse(Double.NaN) == expected;
  }

  /** The names of the samples in the scrape (histogram samples by their _bucket, _count and _sum names). */
  static TreeSet<String> sampleNames(String scrape) {
    TreeSet<String> names = new TreeSet<>();
    Matcher m = SAMPLE_NAME.matcher(scrape);
    while (m.find()) {
      names.add(m.group(1));
    }
    return names;
  }
}
