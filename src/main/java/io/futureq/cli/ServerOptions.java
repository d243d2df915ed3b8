package io.futureq.cli;

import io.futureq.client.FutureQClient;
import io.futureq.client.FutureQException;
import io.futureq.client.HostPort;
import io.grpc.Status;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import picocli.CommandLine.ITypeConverter;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.TypeConversionException;

/** The broker address, token, TLS options and request timeout shared by every subcommand that talks to a broker. */
final class ServerOptions {
  /** The broker a command talks to when neither {@code --server} nor {@value #SERVER_VARIABLE} names one. */
  static final String DEFAULT_SERVER = "127.0.0.1:8443";
  static final String SERVER_VARIABLE = "FUTUREQ_SERVER";

  @Option(names = "--server", paramLabel = "HOST:PORT", converter = Address.class,
      defaultValue = "${env:" + SERVER_VARIABLE + ":-" + DEFAULT_SERVER + "}",
      description = "The broker's gRPC address (default: $" + SERVER_VARIABLE + ", else " + DEFAULT_SERVER + ").")
  String address;

  @Option(names = "--timeout", hidden = true, defaultValue = "10s", converter = DurationConverter.class,
      description = "How long to wait for each broker answer (default: ${DEFAULT-VALUE}).")
  Duration timeout;

  @Mixin
  TokenOption token;

  @Mixin
  TlsOptions tls;

  FutureQClient connect() {
    return tls.build(token.apply(FutureQClient.builder().target(address).requestTimeout(timeout)));
  }

  /** Waits for {@code answer} up to the timeout; every failure comes out as a {@link FutureQException}. */
  <T> T await(CompletableFuture<T> answer) throws InterruptedException {
    return await(answer, timeout);
  }

  /** As above, up to {@code within} (a membership change may move replicas for minutes). */
  <T> T await(CompletableFuture<T> answer, Duration within) throws InterruptedException {
    try {
      return answer.get(within.toMillis(), TimeUnit.MILLISECONDS);
    } catch (TimeoutException e) {
      throw FutureQException.of(Status.Code.DEADLINE_EXCEEDED, "no answer from " + address + " within "
          + DurationConverter.format(within));
    } catch (ExecutionException e) {
      if (e.getCause() instanceof FutureQException f) {
        throw f;
      }
      throw FutureQException.of(Status.Code.UNKNOWN, String.valueOf(e.getCause()));
    }
  }

  /** Accepts {@code HOST:PORT} with a port from 1 to 65535. */
  static final class Address implements ITypeConverter<String> {
    @Override
    public String convert(String value) {
      if (value.contains("://") || value.contains("/")) {
        throw new TypeConversionException("'" + value + "' is not HOST:PORT: give the address without a scheme or "
            + "path (" + value.replaceFirst("^[a-zA-Z]+://", "").replaceFirst("/.*$", "") + "); --tls chooses TLS");
      }
      try {
        HostPort.parse(value);
      } catch (HostPort.InvalidException e) {
        throw new TypeConversionException(e.getMessage());
      }
      return value;
    }
  }
}
