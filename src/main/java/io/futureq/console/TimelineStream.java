package io.futureq.console;

import io.futureq.security.Principal;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.apache.pekko.NotUsed;
import org.apache.pekko.grpc.javadsl.Metadata;
import org.apache.pekko.http.javadsl.model.HttpEntities;
import org.apache.pekko.http.javadsl.model.HttpResponse;
import org.apache.pekko.http.javadsl.model.MediaTypes;
import org.apache.pekko.http.javadsl.model.headers.RawHeader;
import org.apache.pekko.stream.javadsl.Source;
import org.apache.pekko.util.ByteString;

/**
 * Live timeline updates as server-sent events: one stream per page, whatever it shows (one topic or all of them),
 * with one {@code timeline} event a second holding the whole window, read from the counts. A named span moves with
 * the clock; a zoomed window stays put. The topic list is read again every {@link #TOPICS_EVERY}. A failure ends
 * the stream with an {@code error} event (the page opens a new one). Nothing runs while no page is open.
 */
final class TimelineStream {
  static final Duration INTERVAL = Duration.ofSeconds(1);
  static final Duration TOPICS_EVERY = Duration.ofSeconds(5);

  private final TimelineReader timeline;
  private final TimelineTopics topics;
  private final Clock clock;

  TimelineStream(TimelineReader timeline, TimelineTopics topics, Clock clock) {
    this.timeline = timeline;
    this.topics = topics;
    this.clock = clock;
  }

  HttpResponse open(String topic, String span, TimelineWindow zoomed, Principal principal, Metadata md) {
    Watch watch = new Watch(topic, principal, md);
    Source<ByteString, NotUsed> events = Source.tick(Duration.ZERO, INTERVAL, "tick")
        .mapMaterializedValue(c -> NotUsed.getInstance())
        .mapAsync(1, t -> {
          long now = clock.millis();
          TimelineWindow window = span == null ? zoomed : TimelineWindow.of(span, null, null, now);
          return watch.topics(now).thenCompose(list -> timeline.read(list, window, now))
              .thenApply(json -> event("timeline", json.toString()));
        })
        .recover(Throwable.class, () -> event("error", ConsoleReply.object().put("error", "timeline stream ended")
            .toString()));
    return HttpResponse.create()
        .addHeader(RawHeader.create("Cache-Control", "no-store"))
        .withEntity(HttpEntities.create(MediaTypes.TEXT_EVENT_STREAM.toContentType(), events));
  }

  private static ByteString event(String name, String data) {
    return ByteString.fromString("event: " + name + "\ndata: " + data + "\n\n");
  }

  /** One page's stream: its topic list, read again now and then. Used by one tick at a time. */
  private final class Watch {
    private final String topic;
    private final Principal principal;
    private final Metadata md;
    private CompletableFuture<List<String>> list;
    private long listedAt;

    Watch(String topic, Principal principal, Metadata md) {
      this.topic = topic;
      this.principal = principal;
      this.md = md;
    }

    CompletableFuture<List<String>> topics(long now) {
      if (list == null || now - listedAt >= TOPICS_EVERY.toMillis()) {
        list = TimelineStream.this.topics.of(topic, principal, md);
        listedAt = now;
      }
      return list;
    }
  }
}
