package io.futureq.console;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.futureq.api.grpc.GetMessageRequest;
import io.futureq.api.grpc.ListMessagesRequest;
import io.futureq.security.Principal;
import java.io.IOException;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import org.apache.pekko.grpc.javadsl.Metadata;
import org.apache.pekko.grpc.javadsl.MetadataBuilder;
import org.apache.pekko.http.javadsl.model.HttpMethod;
import org.apache.pekko.http.javadsl.model.HttpMethods;
import org.apache.pekko.http.javadsl.model.HttpRequest;
import org.apache.pekko.http.javadsl.model.HttpResponse;
import org.apache.pekko.http.javadsl.model.Query;
import org.apache.pekko.http.javadsl.model.StatusCodes;
import org.apache.pekko.stream.Materializer;

/**
 * The console's routes: the page and its files (open: the page asks for a token), and the JSON API under
 * {@code /api/} (docs/console.md), where every request is authenticated with the API's tokens
 * ({@code Authorization: Bearer TOKEN}) before anything else and each call is authorized as the API's call of the
 * same name.
 */
final class ConsoleHandler {
  private static final Duration BODY_TIMEOUT = Duration.ofSeconds(5);

  private final ConsoleContext cc;
  private final StaticFiles files = new StaticFiles();
  private final Materializer mat;

  ConsoleHandler(ConsoleContext cc, Materializer mat) {
    this.cc = cc;
    this.mat = mat;
  }

  CompletionStage<HttpResponse> handle(HttpRequest request) {
    String path = request.getUri().path();
    if (!path.startsWith("/api/")) {
      if (request.method() != HttpMethods.GET) {
        return done(ConsoleReply.error(StatusCodes.METHOD_NOT_ALLOWED, "METHOD_NOT_ALLOWED", "GET only"));
      }
      if (path.equals("/favicon.ico")) {
        return done(HttpResponse.create().withStatus(StatusCodes.NO_CONTENT)); // none: browsers ask anyway
      }
      return done(files.serve(path.equals("/") ? "index.html" : path.substring(path.lastIndexOf('/') + 1)));
    }
    if (path.equals("/api/auth") && request.method() == HttpMethods.GET) {
      // Open, so that the page knows whether to ask for a token before calling anything that needs one.
      return done(ConsoleReply.ok(ConsoleReply.object().put("authentication", cc.access().authenticationOn())));
    }
    try {
      String authorization = request.getHeader("Authorization").map(h -> h.value()).orElse(null);
      Principal principal = cc.access().principal(authorization);
      Metadata md = authorization == null ? new MetadataBuilder().build()
          : new MetadataBuilder().addText("authorization", authorization).build();
      Call call = new Call(request, principal, md, path.substring("/api/".length()).split("/"),
          request.getUri().query());
      return route(call).exceptionally(ConsoleReply::failure);
    } catch (RuntimeException e) {
      return done(ConsoleReply.failure(e));
    }
  }

  private record Call(HttpRequest request, Principal principal, Metadata md, String[] path, Query query) {
    HttpMethod method() {
      return request.method();
    }

    boolean is(HttpMethod m, int segments) {
      return request.method() == m && path.length == segments;
    }

    Optional<String> param(String name) {
      return query.get(name).filter(v -> !v.isEmpty());
    }

    Long number(String name) {
      Optional<String> v = param(name);
      try {
        return v.isEmpty() ? null : Long.parseLong(v.get());
      } catch (NumberFormatException e) {
        throw new ConsoleReply.BadRequest(name + ": must be a whole number; got '" + v.get() + "'");
      }
    }
  }

  private CompletableFuture<HttpResponse> route(Call c) {
    String first = c.path()[0];
    if (first.equals("session") && c.is(HttpMethods.GET, 1)) {
      return ok(CompletableFuture.completedFuture(cc.overview().session(c.principal())));
    }
    if (first.equals("overview") && c.is(HttpMethods.GET, 1)) {
      return ok(cc.overview().overview(c.principal(), c.md(), now()));
    }
    if (first.equals("timeline") && c.method() == HttpMethods.GET && c.path().length <= 2) {
      Optional<String> topic = c.param("topic");
      TimelineWindow window = TimelineWindow.of(c.param("span").orElse(null), c.number("from"), c.number("to"),
          now());
      if (c.path().length == 2 && c.path()[1].equals("stream")) {
        return done(cc.stream().open(topic.orElse(null), c.param("span").orElse(null), window, c.principal(),
            c.md()));
      }
      return ok(cc.timelineTopics().of(topic.orElse(null), c.principal(), c.md())
          .thenCompose(topics -> cc.timeline().read(topics, window, now())));
    }
    if (first.equals("topics")) {
      return topics(c);
    }
    return done(notFound(c));
  }

  private CompletableFuture<HttpResponse> topics(Call c) {
    String[] p = c.path();
    if (c.is(HttpMethods.GET, 1)) {
      return ok(cc.listing().list(c.principal(), c.md(), now()));
    }
    String topic = p[1];
    if (c.is(HttpMethods.GET, 2)) {
      return ok(cc.reads().topic(topic, c.principal(), c.md()));
    }
    if (c.is(HttpMethods.DELETE, 2)) {
      return ok(cc.actions().deleteTopic(topic, c.md()));
    }
    if (p.length >= 3 && p[2].equals("messages") && c.method() == HttpMethods.GET) {
      boolean payload = c.param("payload").map(Boolean::parseBoolean).orElse(false);
      if (p.length == 4 || c.param("key").isPresent()) {
        GetMessageRequest.Builder get = GetMessageRequest.newBuilder().setTopic(topic).setIncludePayload(true);
        if (p.length == 4) {
          get.setMessageId(p[3]);
        } else {
          get.setKey(c.param("key").get());
        }
        return ok(cc.reads().message(get.build(), c.md()));
      }
      Long size = c.number("pageSize");
      ListMessagesRequest.Builder list = ListMessagesRequest.newBuilder().setTopic(topic).setIncludePayload(payload)
          .setPageSize(size == null ? 50 : size.intValue()).setPageToken(c.param("pageToken").orElse(""));
      Optional.ofNullable(c.number("from")).ifPresent(list::setFromUnixMs);
      Optional.ofNullable(c.number("to")).ifPresent(list::setToUnixMs);
      return ok(cc.reads().messages(list.build(), c.md()));
    }
    if (c.is(HttpMethods.DELETE, 4) && p[2].equals("groups")) {
      return ok(cc.actions().deleteGroup(topic, p[3], c.md()));
    }
    if (c.is(HttpMethods.POST, 3)) {
      return switch (p[2]) {
        case "reschedule" -> body(c).thenCompose(b -> cc.actions().reschedule(topic, b, c.md()))
            .thenApply(ConsoleReply::ok);
        case "cancel" -> body(c).thenCompose(b -> cc.actions().cancel(topic, b, c.md())).thenApply(ConsoleReply::ok);
        case "purge" -> ok(cc.actions().purge(topic, c.md()));
        default -> done(notFound(c));
      };
    }
    return done(notFound(c));
  }

  private CompletableFuture<JsonNode> body(Call c) {
    return c.request().entity().toStrict(BODY_TIMEOUT.toMillis(), mat).toCompletableFuture().thenApply(strict -> {
      String text = strict.getData().utf8String();
      try {
        JsonNode node = ConsoleReply.JSON.readTree(text.isBlank() ? "{}" : text);
        if (!node.isObject()) {
          throw new ConsoleReply.BadRequest("body: must be a JSON object");
        }
        return node;
      } catch (IOException e) {
        throw new ConsoleReply.BadRequest("body: not JSON (" + e.getMessage() + ")");
      }
    });
  }

  private static HttpResponse notFound(Call c) {
    return ConsoleReply.error(StatusCodes.NOT_FOUND, "NOT_FOUND", "no console endpoint " + c.method().name() + " "
        + c.request().getUri().path());
  }

  private static CompletableFuture<HttpResponse> ok(CompletableFuture<? extends ObjectNode> body) {
    return body.thenApply(ConsoleReply::ok);
  }

  private static CompletableFuture<HttpResponse> done(HttpResponse response) {
    return CompletableFuture.completedFuture(response);
  }

  private long now() {
    return cc.clock().millis();
  }
}
