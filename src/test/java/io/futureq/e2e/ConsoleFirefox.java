package io.futureq.e2e;

import com.fasterxml.jackson.databind.JsonNode;
import io.futureq.testing.Await;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.Assumptions;

/**
 * A real headless Firefox (Debian's {@code firefox-esr}) on the console, driven through Marionette, the protocol
 * Firefox speaks itself ({@link Marionette}; geckodriver is not in Debian). Each one runs in a profile directory of
 * its own, on a Marionette port Firefox picks (written to the profile's {@code MarionetteActivePort}), and is killed
 * with its child processes on {@link #close}. Tests that need it skip, saying why, where Firefox is not installed.
 *
 * <p>Errors are read where Firefox keeps them, its console service, by a script in the browser's own "chrome"
 * context (which Firefox 138 and later allow only with {@code -remote-allow-system-access}): uncaught exceptions,
 * unhandled rejections, refused loads and content security policy violations, and the pages' own
 * {@code console.error} calls, which a script Firefox runs before each page's own ({@link #CONSOLE_ERRORS}) reports
 * as errors too (else they reach only the developer tools).
 */
final class ConsoleFirefox implements ConsolePage, AutoCloseable {
  static final List<Path> FIREFOX = List.of(Path.of("/usr/bin/firefox-esr"), Path.of("/usr/bin/firefox"));
  static final String MISSING = "Firefox is not installed here (apt-get install firefox-esr)";
  private static final Duration START = Duration.ofSeconds(90);
  private static final Duration COMMAND = Duration.ofSeconds(120);
  private static final Duration WAIT = Duration.ofSeconds(20);
  // Console messages that are errors and come from a page, not from the browser itself (nsIScriptError flags:
  // 0 error, 1 warning, 8 info). Read and cleared at once, so each call returns what came since the last.
  private static final String PAGE_ERRORS = String.join("\n",
      "const messages = Services.console.getMessageArray() || [];",
      "Services.console.reset();",
      "return messages.filter((m) => m instanceof Ci.nsIScriptError && !m.isFromChromeContext",
      "    && (m.flags & 9) === 0 && String(m.sourceName).startsWith(arguments[0]))",
      "  .map((m) => m.category + ': ' + m.errorMessage + ' (' + m.sourceName + ':' + m.lineNumber + ')');");
  /**
   * A process script for every content process: as each page's window is made, before any of its scripts runs, it
   * wraps the page's {@code console.error} so that each call is also reported as an error of the page
   * ({@code reportError}), which the console service then holds. It runs in a sandbox of the page's own principal
   * without X-ray wrappers, so the page sees and calls it as its own function. (The browser's own process refuses
   * a {@code data:} process script, logging an error of its own that {@link #PAGE_ERRORS} leaves out.)
   */
  private static final String CONSOLE_ERRORS = String.join("\n",
      "Services.obs.addObserver((win) => {",
      "  if (win.document.nodePrincipal.isSystemPrincipal) {",
      "    return;",
      "  }",
      "  const sandbox = Cu.Sandbox(win, { sandboxPrototype: win, wantXrays: false, sameZoneAs: win });",
      "  Cu.evalInSandbox('const original = console.error;'",
      "    + 'console.error = function (...args) {'",
      "    + '  original.apply(console, args);'",
      "    + '  reportError(new Error(\"console.error: \" + args.map(String).join(\" \")));'",
      "    + '};', sandbox, null, win.location.href, 1);",
      "}, 'content-document-global-created');");
  private static final String SHOWN = "const e = document.querySelector(arguments[0]);"
      + "return !!e && e.getClientRects().length > 0 && getComputedStyle(e).visibility !== 'hidden';";

  private final Process process;
  private final Path profile;
  private final String base;
  private Marionette marionette;

  private ConsoleFirefox(Process process, Path profile, String base) {
    this.process = process;
    this.profile = profile;
    this.base = base;
  }

  /** Starts Firefox on a fresh profile under {@code dir} (a new directory per run) for the console at {@code base}. */
  static ConsoleFirefox open(String base, Path dir) throws IOException {
    Path binary = binary();
    Assumptions.assumeTrue(binary != null, MISSING);
    Path profile = Files.createTempDirectory(dir, "firefox-profile-");
    Files.writeString(profile.resolve("user.js"), String.join("\n",
        "user_pref(\"marionette.port\", 0);", // any free port, written to MarionetteActivePort
        "user_pref(\"browser.shell.checkDefaultBrowser\", false);",
        "user_pref(\"datareporting.policy.dataSubmissionEnabled\", false);",
        "user_pref(\"toolkit.telemetry.reportingpolicy.firstRun\", false);", ""));
    ProcessBuilder builder = new ProcessBuilder(binary.toString(), "--marionette", "--headless",
        "-remote-allow-system-access", "--no-remote", "--profile", profile.toString(), "about:blank")
        .redirectOutput(profile.resolve("firefox.out").toFile())
        .redirectError(profile.resolve("firefox.err").toFile());
    builder.environment().put("MOZ_HEADLESS", "1");
    builder.environment().put("MOZ_CRASHREPORTER_DISABLE", "1");
    ConsoleFirefox firefox = new ConsoleFirefox(builder.start(), profile, base);
    try {
      firefox.connect();
      return firefox;
    } catch (RuntimeException | Error | IOException e) {
      firefox.close();
      throw e;
    }
  }

  /** The Firefox installed here, or null. */
  static Path binary() {
    return FIREFOX.stream().filter(Files::isExecutable).findFirst().orElse(null);
  }

  private void connect() throws IOException {
    Path portFile = profile.resolve("MarionetteActivePort");
    int port = Await.value("Firefox's Marionette port in " + portFile, START, () -> {
      if (!process.isAlive()) {
        throw new AssertionError("Firefox exited (" + process.exitValue() + "): " + output());
      }
      String text = Files.exists(portFile) ? Files.readString(portFile).trim() : "";
      return text.isEmpty() ? null : Integer.valueOf(text);
    }, this::output);
    marionette = Marionette.connect(port, COMMAND);
    marionette.newSession(Map.of("acceptInsecureCerts", true,
        "timeouts", Map.of("pageLoad", COMMAND.toMillis(), "script", COMMAND.toMillis(), "implicit", 0)));
    marionette.command("WebDriver:SetWindowRect", Map.of("width", 1400, "height", 1000));
    marionette.context("chrome");
    try {
      marionette.execute("Services.ppmm.loadProcessScript(arguments[0], true);",
          "data:," + URLEncoder.encode(CONSOLE_ERRORS, StandardCharsets.UTF_8).replace("+", "%20"));
    } finally {
      marionette.context("content");
    }
    errors(); // what the browser logged starting up is not the pages'
  }

  @Override
  public void signIn(String token) {
    // The tab's token is dropped on a page of the same origin that runs no script, so no call goes out with it.
    marionette.navigate(base + "/console.css");
    marionette.execute("sessionStorage.clear();");
    marionette.navigate(base + "/");
    if (token != null) {
      awaitShown("the sign-in form", "#token");
      marionette.execute("document.getElementById('token').value = arguments[0];"
          + "document.getElementById('sign-in-button').click();", token);
    }
    awaitShown("the navigation once signed in", "#nav-overview");
  }

  @Override
  public void go(String hash) {
    marionette.navigate(base + "/" + hash);
  }

  @Override
  public void awaitShown(String what, String css) {
    Await.until(what, WAIT, () -> marionette.execute(SHOWN, css).asBoolean());
  }

  @Override
  public long number(String script) {
    JsonNode value = marionette.execute(script);
    if (!value.isNumber()) {
      throw new IllegalStateException("not a number: " + value + " from " + script);
    }
    return value.asLong();
  }

  @Override
  public void screenshot(String name) {
    try {
      Files.createDirectories(ConsoleBrowser.SCREENSHOTS);
      Files.write(ConsoleBrowser.SCREENSHOTS.resolve(name + ".png"), marionette.screenshot());
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  @Override
  public List<String> errors() {
    List<String> errors = new ArrayList<>();
    marionette.context("chrome");
    try {
      marionette.execute(PAGE_ERRORS, base).forEach(e -> errors.add(e.asText()));
    } finally {
      marionette.context("content");
    }
    return errors;
  }

  private String output() {
    try (Stream<String> out = Files.lines(profile.resolve("firefox.out"));
        Stream<String> err = Files.lines(profile.resolve("firefox.err"))) {
      return String.join("\n", Stream.concat(out, err).toList());
    } catch (IOException | UncheckedIOException e) {
      return "(no output: " + e.getMessage() + ")";
    }
  }

  @Override
  public void close() {
    List<ProcessHandle> children = process.descendants().toList();
    if (marionette != null) {
      try {
        marionette.deleteSession();
      } catch (RuntimeException e) {
        // killed below all the same
      }
      marionette.close();
    }
    process.destroy();
    try {
      if (!process.waitFor(20, TimeUnit.SECONDS)) {
        process.destroyForcibly().waitFor(20, TimeUnit.SECONDS);
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      process.destroyForcibly();
    }
    children.forEach(ProcessHandle::destroyForcibly);
  }
}
