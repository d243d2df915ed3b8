package io.futureq.client;

import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * Keeps grpc-okhttp's "Unable to find Conscrypt" warning off the application's log. OkHttp's platform probe (its
 * {@code Platform} class, first loaded when a TLS channel connects) looks for Android's security provider and logs a
 * WARNING through java.util.logging, on stderr by default, when that is absent: on every ordinary JVM, where the JDK's
 * own TLS is what OkHttp uses anyway. The probe runs once, in the class's initializer, so this initializes the class
 * with that logger raised to SEVERE and puts the level back: later warnings of the class still show.
 */
final class OkHttpPlatformQuiet {
  static final String PLATFORM = "io.grpc.okhttp.internal.Platform";
  private static boolean done;

  private OkHttpPlatformQuiet() {}

  /** Idempotent; does nothing where OkHttp is not on the class path (e.g. grpc-netty-shaded serves instead). */
  static synchronized void probeQuietly() {
    if (done) {
      return;
    }
    done = true;
    Logger logger = Logger.getLogger(PLATFORM);
    Level before = logger.getLevel();
    logger.setLevel(Level.SEVERE);
    try {
      Class.forName(PLATFORM, true, OkHttpPlatformQuiet.class.getClassLoader());
    } catch (ClassNotFoundException | LinkageError absent) {
      // no OkHttp transport: nothing to quieten
    } finally {
      logger.setLevel(before);
    }
  }
}
