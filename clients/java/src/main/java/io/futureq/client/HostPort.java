package io.futureq.client;

import com.google.common.net.HostAndPort;

/**
 * A broker address as {@code HOST:PORT} or {@code [IPv6]:PORT}, with a port from 1 to 65535: what
 * {@link FutureQClient.Builder#target} and the CLI's {@code --server} take. Read by Guava's {@link HostAndPort}.
 */
public record HostPort(String host, int port) {
  /** Why a text is no address, for callers that word the error their own way. */
  public enum Problem { NOT_HOST_PORT, PORT_NOT_A_NUMBER, PORT_OUT_OF_RANGE }

  /** Thrown by {@link #parse}; {@link #problem()} says what is wrong. */
  public static final class InvalidException extends IllegalArgumentException {
    private final Problem problem;

    InvalidException(Problem problem, String text) {
      super("'" + text + switch (problem) {
        case NOT_HOST_PORT -> "' is not HOST:PORT";
        case PORT_NOT_A_NUMBER -> "' is not HOST:PORT (port must be a number)";
        case PORT_OUT_OF_RANGE -> "': port must be 1-65535";
      });
      this.problem = problem;
    }

    public Problem problem() {
      return problem;
    }
  }

  /** @throws InvalidException naming the problem: no host or port, a port not a number, or out of range */
  public static HostPort parse(String text) {
    HostAndPort parsed;
    try {
      parsed = HostAndPort.fromString(text);
    } catch (IllegalArgumentException e) {
      String port = text.substring(text.lastIndexOf(':') + 1);
      throw new InvalidException(port.isEmpty() || port.contains("]") ? Problem.NOT_HOST_PORT
          : port.chars().allMatch(Character::isDigit) ? Problem.PORT_OUT_OF_RANGE : Problem.PORT_NOT_A_NUMBER, text);
    }
    if (!parsed.hasPort() || parsed.getHost().isEmpty()) {
      throw new InvalidException(Problem.NOT_HOST_PORT, text);
    }
    if (parsed.getPort() < 1) {
      throw new InvalidException(Problem.PORT_OUT_OF_RANGE, text);
    }
    return new HostPort(parsed.getHost(), parsed.getPort());
  }
}
