package io.futureq.e2e;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import java.io.BufferedInputStream;
import java.io.ByteArrayOutputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Base64;
import java.util.List;
import java.util.Map;

/**
 * A minimal client of Firefox's Marionette protocol, the one Firefox itself speaks (geckodriver translates
 * WebDriver to it): frames {@code <length>:<json>}, a hello from the browser on connect, then commands
 * {@code [0, id, name, params]} answered {@code [1, id, error, result]}. One command at a time, as a test needs.
 */
final class Marionette implements AutoCloseable {
  private static final ObjectMapper JSON = new ObjectMapper();

  private final Socket socket;
  private final InputStream in;
  private final OutputStream out;
  private final JsonNode hello;
  private int nextId = 1;

  private Marionette(Socket socket) throws IOException {
    this.socket = socket;
    this.in = new BufferedInputStream(socket.getInputStream());
    this.out = socket.getOutputStream();
    this.hello = read();
  }

  /** Connects to Marionette on {@code port}; every read waits at most {@code timeout}. */
  static Marionette connect(int port, Duration timeout) throws IOException {
    Socket socket = new Socket();
    try {
      socket.connect(new InetSocketAddress("127.0.0.1", port), (int) timeout.toMillis());
      socket.setSoTimeout((int) timeout.toMillis());
      return new Marionette(socket);
    } catch (IOException | RuntimeException e) {
      socket.close();
      throw e;
    }
  }

  /** The browser's greeting: {@code {"applicationType": "gecko", "marionetteProtocol": 3}}. */
  JsonNode hello() {
    return hello;
  }

  /** Runs command {@code name} and returns its result; a Marionette error becomes a {@link Failure}. */
  synchronized JsonNode command(String name, Map<String, ?> params) {
    int id = nextId++;
    try {
      byte[] body = JSON.writeValueAsBytes(List.of(0, id, name, params));
      out.write((body.length + ":").getBytes(StandardCharsets.US_ASCII));
      out.write(body);
      out.flush();
      JsonNode reply = read();
      if (!(reply instanceof ArrayNode) || reply.size() != 4 || reply.get(0).asInt() != 1
          || reply.get(1).asInt() != id) {
        throw new IOException("unexpected reply to " + name + ": " + reply);
      }
      JsonNode error = reply.get(2);
      if (!error.isNull()) {
        throw new Failure(name + " failed: " + error.path("error").asText() + ": " + error.path("message").asText());
      }
      return reply.get(3);
    } catch (IOException e) {
      throw new UncheckedIOException(name + ": " + e.getMessage(), e);
    }
  }

  /** Starts a session; {@code capabilities} go as the command's parameters, as geckodriver passes them. */
  JsonNode newSession(Map<String, ?> capabilities) {
    return command("WebDriver:NewSession", capabilities);
  }

  /** Loads {@code url} and returns once it has loaded (a change of the hash alone returns at once). */
  void navigate(String url) {
    command("WebDriver:Navigate", Map.of("url", url));
  }

  /** Runs {@code script} as a function body with {@code args} as {@code arguments}; its return value. */
  JsonNode execute(String script, Object... args) {
    return command("WebDriver:ExecuteScript", Map.of("script", script, "args", List.of(args))).path("value");
  }

  /** Where scripts run: {@code "content"} (the page, the default) or {@code "chrome"} (the browser itself). */
  void context(String context) {
    command("Marionette:SetContext", Map.of("value", context));
  }

  /** The viewport as PNG. */
  byte[] screenshot() {
    String base64 = command("WebDriver:TakeScreenshot", Map.of("full", false, "hash", false)).path("value")
        .asText();
    return Base64.getDecoder().decode(base64);
  }

  void deleteSession() {
    command("WebDriver:DeleteSession", Map.of());
  }

  private JsonNode read() throws IOException {
    int length = 0;
    int digits = 0;
    for (int c = in.read(); c != ':'; c = in.read()) {
      if (c < '0' || c > '9' || ++digits > 9) {
        throw c < 0 ? new EOFException("Marionette closed the connection") : new IOException("bad frame length");
      }
      length = length * 10 + (c - '0');
    }
    ByteArrayOutputStream body = new ByteArrayOutputStream(length);
    byte[] buffer = new byte[8192];
    while (body.size() < length) {
      int n = in.read(buffer, 0, Math.min(buffer.length, length - body.size()));
      if (n < 0) {
        throw new EOFException("Marionette closed the connection mid-frame");
      }
      body.write(buffer, 0, n);
    }
    return JSON.readTree(body.toByteArray());
  }

  @Override
  public void close() {
    try {
      socket.close();
    } catch (IOException e) {
      // closing anyway
    }
  }

  /** An error Marionette answered (a script that threw, an unknown command, a refused context). */
  static final class Failure extends RuntimeException {
    private static final long serialVersionUID = 1L;

    Failure(String message) {
      super(message);
    }
  }
}
