package io.futureq.cli;

import io.futureq.client.FutureQClient;
import io.futureq.client.FutureQException;
import io.grpc.Status;
import java.io.PrintWriter;
import java.io.UncheckedIOException;
import java.util.concurrent.Callable;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Spec;

/**
 * A subcommand that talks to one broker: checks its arguments, opens a client, runs, and always closes the
 * client. A broker or connection failure prints one line, {@code futureq: <what went wrong>}, on the command
 * line's error writer and exits {@value #FAILED}; output goes to the command line's output writer, so tests can
 * capture both. Bad arguments throw {@link picocli.CommandLine.ParameterException} (exit 2).
 */
abstract class BrokerCommand implements Callable<Integer> {
  static final int FAILED = 1;

  @Mixin
  ServerOptions server;

  @Spec
  CommandSpec spec;

  @Override
  public final Integer call() {
    try {
      prepare();
    } catch (UncheckedIOException e) {
      return fail(e.getMessage());
    }
    try (FutureQClient client = server.connect()) {
      int status = run(client);
      out().flush();
      return status;
    } catch (FutureQException e) {
      // gRPC's own UNAVAILABLE messages ("io exception") do not say which broker could not be reached.
      return fail(e.code() == Status.Code.UNAVAILABLE ? server.address + ": " + e.getMessage() : e.getMessage());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return fail("interrupted");
    }
  }

  /** Checks arguments and reads input before any connection is made; an unreadable input is an I/O failure. */
  void prepare() {}

  /** Does the work; returns the exit status. */
  abstract int run(FutureQClient client) throws InterruptedException;

  PrintWriter out() {
    return spec.commandLine().getOut();
  }

  int fail(String what) {
    out().flush();
    PrintWriter err = spec.commandLine().getErr();
    err.println("futureq: " + what);
    err.flush();
    return FAILED;
  }
}
