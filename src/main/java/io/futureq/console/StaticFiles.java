package io.futureq.console;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.pekko.http.javadsl.model.ContentType;
import org.apache.pekko.http.javadsl.model.ContentTypes;
import org.apache.pekko.http.javadsl.model.HttpCharsets;
import org.apache.pekko.http.javadsl.model.HttpResponse;
import org.apache.pekko.http.javadsl.model.MediaTypes;
import org.apache.pekko.http.javadsl.model.StatusCodes;
import org.apache.pekko.http.javadsl.model.headers.RawHeader;

/** The pages, styles and scripts under {@code console/} in the broker's jar; nothing else is served. */
final class StaticFiles {
  private static final String ROOT = "console/";
  /** The console's own files only: no inline script, no framing by another site. */
  private static final String POLICY = "default-src 'self'; img-src 'self' data:; frame-ancestors 'none'";
  private final Map<String, byte[]> cache = new ConcurrentHashMap<>();

  /** The file {@code name} ({@code [a-z0-9-]+.(html|css|js|png|txt)}), or 404. */
  HttpResponse serve(String name) {
    if (!name.matches("[a-z0-9-]+\\.(html|css|js|png|txt)")) {
      return notFound(name);
    }
    byte[] bytes = cache.computeIfAbsent(name, StaticFiles::read);
    if (bytes.length == 0) {
      return notFound(name);
    }
    return HttpResponse.create().withEntity(contentType(name), bytes)
        .addHeader(RawHeader.create("Cache-Control", "no-cache"))
        .addHeader(RawHeader.create("X-Content-Type-Options", "nosniff"))
        .addHeader(RawHeader.create("Content-Security-Policy", POLICY));
  }

  private static HttpResponse notFound(String name) {
    return ConsoleReply.error(StatusCodes.NOT_FOUND, "NOT_FOUND", "no console file " + name);
  }

  private static byte[] read(String name) {
    try (InputStream in = StaticFiles.class.getClassLoader().getResourceAsStream(ROOT + name)) {
      return in == null ? new byte[0] : in.readAllBytes();
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read console file " + name, e);
    }
  }

  private static ContentType contentType(String name) {
    String ext = name.substring(name.lastIndexOf('.') + 1);
    return switch (ext) {
      case "html" -> MediaTypes.TEXT_HTML.toContentType(HttpCharsets.UTF_8);
      case "css" -> MediaTypes.TEXT_CSS.toContentType(HttpCharsets.UTF_8);
      case "js" -> MediaTypes.APPLICATION_JAVASCRIPT.toContentType(HttpCharsets.UTF_8);
      case "png" -> MediaTypes.IMAGE_PNG.toContentType();
      default -> ContentTypes.TEXT_PLAIN_UTF8;
    };
  }
}
