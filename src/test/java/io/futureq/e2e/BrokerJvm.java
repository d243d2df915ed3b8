package io.futureq.e2e;

import java.util.List;

/**
 * JVM options of the broker processes the tests start: C1 only and the serial collector. A broker process on this
 * 2-core machine spent 12.5 s of CPU until ready with the defaults and 6.7 s with these (7.2 s to 5.3 s wall,
 * measured alone); the test JVMs and other brokers share those cores, and C2's speed is not what is tested.
 */
public final class BrokerJvm {
  public static final List<String> OPTIONS = List.of("-XX:TieredStopAtLevel=1", "-XX:+UseSerialGC");

  private BrokerJvm() {}

  /** {@code JAVA_OPTS} for {@code bin/futureq}: a heap of {@code heap} (e.g. "512m") and {@link #OPTIONS}. */
  public static String javaOpts(String heap) {
    return "-Xmx" + heap + " " + String.join(" ", OPTIONS);
  }
}
