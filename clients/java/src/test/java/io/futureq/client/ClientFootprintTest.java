package io.futureq.client;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.File;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * What an application takes on by depending on futureq-client: the runtime class path Maven resolves
 * for it (written by the dependency plugin before the tests) stays small and free of the broker's
 * parts and of any logging backend, which is the application's choice.
 */
class ClientFootprintTest {
  /** Artifacts of the broker, or logging backends: none may reach a client application. */
  private static final Pattern FORBIDDEN = Pattern.compile(
      "/(org/apache/pekko|org/rocksdb|ch/qos/logback|org/scala-lang|org/apache/ratis|io/kamon|org/apache/logging"
          + "|org/slf4j/slf4j-(simple|reload4j|jdk14|nop))/");

  private final List<Path> classPath = readClassPath();

  @Test
  void runtimeClassPathHasGrpcProtobufAndSlf4jApiOnly() {
    List<Path> forbidden = classPath.stream().filter(p -> FORBIDDEN.matcher(slashed(p)).find()).toList();

    assertEquals(List.of(), forbidden);
    for (String needed : List.of("/io/grpc/grpc-api/", "/com/google/protobuf/protobuf-java/", "/org/slf4j/slf4j-api/")) {
      assertTrue(classPath.stream().anyMatch(p -> slashed(p).contains(needed)), needed + " in " + classPath);
    }
  }

  @Test
  void runtimeClassPathFitsTheSizeLimit() throws IOException {
    long max = Long.parseLong(System.getProperty("futureq.client.footprint-max-bytes"));
    long total = 0;
    for (Path jar : classPath) {
      total += Files.size(jar);
    }

    assertTrue(total <= max, "runtime class path is " + total + " bytes, more than " + max + ": " + classPath);
  }

  private static List<Path> readClassPath() {
    try {
      String text = Files.readString(Path.of(System.getProperty("futureq.client.runtime-classpath"))).trim();
      return Arrays.stream(text.split(Pattern.quote(File.pathSeparator))).filter(s -> !s.isEmpty()).map(Path::of)
          .toList();
    } catch (IOException e) {
      throw new IllegalStateException("the runtime class path file is written by maven-dependency-plugin", e);
    }
  }

  private static String slashed(Path p) {
    return p.toString().replace(File.separatorChar, '/');
  }
}
