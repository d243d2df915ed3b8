package io.futureq.testing;

import java.util.Optional;
import org.apache.pekko.actor.testkit.typed.internal.CapturingAppender;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.extension.TestWatcher;

/**
 * Prints what the test JVM logged during a test only when that test fails (or its class fails to set up or tear
 * down); a passing test's log is dropped. Registered for every test class (META-INF/services, with
 * junit-platform.properties turning auto-detection on); logback-capture.xml, which surefire names, holds the events
 * in Pekko's {@code CapturingAppender}. Pekko's own {@code LogCapturingExtension} needs JUnit 4 on the class path.
 */
public final class LogCapture implements TestWatcher, AfterAllCallback {
  @Override
  public void testSuccessful(ExtensionContext context) {
    appender().ifPresent(CapturingAppender::clear);
  }

  @Override
  public void testAborted(ExtensionContext context, Throwable cause) {
    appender().ifPresent(CapturingAppender::clear);
  }

  @Override
  public void testFailed(ExtensionContext context, Throwable cause) {
    appender().ifPresent(appender -> {
      System.out.println("--> log of the failed test " + context.getDisplayName());
      appender.flush();
      System.out.println("<-- log of the failed test " + context.getDisplayName());
    });
  }

  @Override
  public void afterAll(ExtensionContext context) {
    appender().ifPresent(appender -> {
      if (context.getExecutionException().isPresent()) {
        System.out.println("--> log of the failed class " + context.getDisplayName());
        appender.flush();
      } else {
        appender.clear();
      }
    });
  }

  /** Empty where the logging is not logback-capture.xml's (a test run outside the build): nothing is held then. */
  private static Optional<CapturingAppender> appender() {
    try {
      return Optional.of(CapturingAppender.get(""));
    } catch (IllegalStateException notConfigured) {
      return Optional.empty();
    }
  }
}
