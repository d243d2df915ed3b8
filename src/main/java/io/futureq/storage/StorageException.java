package io.futureq.storage;

/** A storage operation failed; the message names the operation and the data directory. */
public final class StorageException extends RuntimeException {
  public StorageException(String message, Throwable cause) {
    super(message, cause);
  }
}
