package io.futureq.testing;

import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;
import org.junit.jupiter.api.Tag;

/**
 * A test class that runs with no other test JVM beside it (pom.xml: the {@code solo-tests} execution, after the
 * rest): it starts broker processes whose start-up and recovery it waits for, or it measures lateness or heap. The
 * other classes run in two JVMs at once, since most of their time is spent waiting (elections, timeouts); beside
 * them, a crash-loop node once took over two minutes to become ready.
 */
@Target(ElementType.TYPE)
@Retention(RetentionPolicy.RUNTIME)
@Tag("solo")
public @interface Solo {
}
