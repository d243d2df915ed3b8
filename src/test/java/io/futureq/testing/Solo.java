package io.futureq.testing;

import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;
import org.junit.jupiter.api.Tag;

/**
 * A test class that runs with no other test JVM beside it (pom.xml: the {@code solo-tests} execution, after the
 * rest): it kills and restarts broker processes under load and times their recovery (the crash loops, the
 * partition, a cluster of processes losing its leader). The other classes, broker processes that start once
 * included, run in two JVMs at once, since most of their time is spent waiting (elections, timeouts); beside them,
 * a crash-loop node once took over two minutes to become ready.
 */
@Target(ElementType.TYPE)
@Retention(RetentionPolicy.RUNTIME)
@Tag("solo")
public @interface Solo {
}
