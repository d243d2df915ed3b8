package io.futureq.cli;

import com.sun.management.OperatingSystemMXBean;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.function.LongSupplier;
import java.util.regex.Pattern;

/**
 * CPU time (user plus system, all threads) a process has used so far, in nanoseconds: this process through the
 * JVM's management bean, another one on the same Linux host through {@code /proc/PID/stat}. Callers subtract two
 * readings; a reading of another process fails with {@link UncheckedIOException} once that process is gone.
 */
final class ProcessCpu {
  /** USER_HZ, the unit of {@code /proc} CPU times, where {@code getconf} cannot say: 100 on mainstream Linux. */
  private static final long DEFAULT_CLOCK_TICKS = 100;
  /** The thread name in a task's stat line, as the kernel keeps it (15 characters). */
  private static final Pattern COMPILER_THREAD = Pattern.compile("^\\d+ \\(C[12] CompilerThre");

  private final LongSupplier nanos;

  private ProcessCpu(LongSupplier nanos) {
    this.nanos = nanos;
  }

  /** This JVM's process. */
  static ProcessCpu self() {
    if (ManagementFactory.getOperatingSystemMXBean() instanceof OperatingSystemMXBean os
        && os.getProcessCpuTime() >= 0) {
      return new ProcessCpu(os::getProcessCpuTime);
    }
    return of(ProcessHandle.current().pid());
  }

  /** Process {@code pid}; fails with {@link UncheckedIOException} if its {@code /proc/PID/stat} is unreadable. */
  static ProcessCpu of(long pid) {
    Path stat = Path.of("/proc", Long.toString(pid), "stat");
    long nanosPerTick = 1_000_000_000L / clockTicksPerSecond();
    ProcessCpu cpu = new ProcessCpu(() -> ticks(read(stat)) * nanosPerTick);
    cpu.nanos();
    return cpu;
  }

  /**
   * The CPU time of process {@code pid}'s JIT compiler threads (HotSpot's "C1/C2 CompilerThread"s, read from
   * {@code /proc/PID/task/TID/stat}): how much of a JVM's CPU went to compiling rather than to its work. A compiler
   * thread that exits takes its time with it, so on hosts where HotSpot adds and removes them this reads low.
   */
  static ProcessCpu compilerThreadsOf(long pid) {
    Path tasks = Path.of("/proc", Long.toString(pid), "task");
    long nanosPerTick = 1_000_000_000L / clockTicksPerSecond();
    ProcessCpu cpu = new ProcessCpu(() -> {
      long ticks = 0;
      try (var threads = Files.list(tasks)) {
        for (Path thread : (Iterable<Path>) threads::iterator) {
          String stat = readIfThere(thread.resolve("stat"));
          if (stat != null && COMPILER_THREAD.matcher(stat).find()) {
            ticks += ticks(stat);
          }
        }
      } catch (IOException e) {
        throw new UncheckedIOException("cannot list " + tasks + ": " + e.getClass().getSimpleName(), e);
      }
      return ticks * nanosPerTick;
    });
    cpu.nanos();
    return cpu;
  }

  long nanos() {
    return nanos.getAsLong();
  }

  /** utime + stime, fields 14 and 15 of a {@code /proc/PID/stat} line, in clock ticks. */
  static long ticks(String stat) {
    // Field 2, the command name in parentheses, may itself hold spaces and parentheses.
    String[] fields = stat.substring(stat.lastIndexOf(')') + 1).trim().split(" +");
    if (fields.length < 13) {
      throw new IllegalArgumentException("not a /proc/PID/stat line: " + stat);
    }
    return Long.parseLong(fields[11]) + Long.parseLong(fields[12]);
  }

  /** A thread's stat, or null when the thread ended between listing and reading. */
  private static String readIfThere(Path stat) {
    try {
      return Files.readString(stat, StandardCharsets.US_ASCII);
    } catch (IOException e) {
      return null;
    }
  }

  private static String read(Path stat) {
    try {
      return Files.readString(stat, StandardCharsets.US_ASCII);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read " + stat + ": " + e.getClass().getSimpleName(), e);
    }
  }

  private static long clockTicksPerSecond() {
    try {
      Process getconf = new ProcessBuilder("getconf", "CLK_TCK").redirectErrorStream(true).start();
      String out = new String(getconf.getInputStream().readAllBytes(), StandardCharsets.US_ASCII).trim();
      return getconf.waitFor() == 0 && out.matches("[1-9]\\d{0,8}") ? Long.parseLong(out) : DEFAULT_CLOCK_TICKS;
    } catch (IOException e) {
      return DEFAULT_CLOCK_TICKS;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return DEFAULT_CLOCK_TICKS;
    }
  }
}
