package io.futureq.cli;

import io.futureq.client.FutureQClient;
import picocli.CommandLine.Option;

/** The bearer token of every command that connects to a broker: {@code --token}, else {@value #VARIABLE}. */
final class TokenOption {
  static final String VARIABLE = "FUTUREQ_TOKEN";

  // No ${DEFAULT-VALUE} in the description: --help must not print the token.
  @Option(names = "--token", paramLabel = "TOKEN", defaultValue = "${env:" + VARIABLE + "}",
      description = "Bearer token for a broker with authentication on (default: $" + VARIABLE + "; prefer the "
          + "variable, a flag shows in the process list).")
  String token;

  FutureQClient.Builder apply(FutureQClient.Builder builder) {
    return token == null || token.isBlank() ? builder : builder.token(token);
  }
}
