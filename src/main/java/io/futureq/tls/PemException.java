package io.futureq.tls;

import java.nio.file.Path;

/** A PEM file that is missing, unreadable or holds something else than the key or certificates it should. */
public final class PemException extends RuntimeException {
  public PemException(Path file, String problem) {
    super(file + ": " + problem);
  }

  public PemException(Path file, String problem, Throwable cause) {
    super(file + ": " + problem, cause);
  }
}
