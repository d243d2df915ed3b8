package io.futureq.security;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;
import java.time.Duration;
import java.util.Objects;
import java.util.function.LongSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A file read into a value, read again when its modification time or size changes: at most once per interval,
 * by the call that finds the interval over (no thread of its own, nothing to stop). A file that no longer reads
 * keeps the last good value, so a half-written edit cannot lock everyone out; that is logged as WARN.
 */
final class WatchedFile<T> {
  private static final Logger LOG = LoggerFactory.getLogger(WatchedFile.class);

  interface Reader<T> {
    T read(Path file) throws IOException;
  }

  private final Path file;
  private final Reader<T> reader;
  private final long intervalNanos;
  private final LongSupplier nanoClock;
  private volatile T value;
  private volatile long nextCheck;
  private Object stamp;

  /** Reads {@code file} now. @throws IllegalArgumentException naming the file if it cannot be read */
  WatchedFile(Path file, Reader<T> reader, Duration interval, LongSupplier nanoClock) {
    this.file = file;
    this.reader = reader;
    this.intervalNanos = interval.toNanos();
    this.nanoClock = nanoClock;
    try {
      this.stamp = stamp();
      this.value = reader.read(file);
    } catch (IOException e) {
      throw new IllegalArgumentException("cannot read " + file + ": " + e, e);
    }
    this.nextCheck = nanoClock.getAsLong() + intervalNanos;
  }

  T current() {
    if (nanoClock.getAsLong() - nextCheck >= 0) {
      reloadIfChanged();
    }
    return value;
  }

  private synchronized void reloadIfChanged() {
    long now = nanoClock.getAsLong();
    if (now - nextCheck < 0) {
      return;
    }
    nextCheck = now + intervalNanos;
    try {
      Object seen = stamp();
      if (Objects.equals(seen, stamp)) {
        return;
      }
      stamp = seen;
      value = reader.read(file);
      LOG.info("reloaded {}", file);
    } catch (IOException | RuntimeException e) {
      LOG.warn("{} changed but cannot be read, keeping its previous content: {}", file, e.getMessage());
    }
  }

  private Object stamp() throws IOException {
    BasicFileAttributes a = Files.readAttributes(file, BasicFileAttributes.class);
    return a.lastModifiedTime().toString() + "/" + a.size();
  }
}
