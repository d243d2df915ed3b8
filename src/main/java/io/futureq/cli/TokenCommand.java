package io.futureq.cli;

import io.futureq.security.TokenHash;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Parameters;

/**
 * {@code futureq token new PRINCIPAL}: a fresh random token and the access-file line that accepts it;
 * {@code futureq token hash PRINCIPAL}: the line for a token read from standard input. The broker stores only
 * the hash, so the token is shown once.
 */
@Command(name = "token", mixinStandardHelpOptions = true,
    description = "Make static bearer tokens for futureq.security.auth.access-file.",
    subcommands = {TokenCommand.New.class, TokenCommand.Hash.class})
final class TokenCommand implements Runnable {
  @CommandLine.Spec
  CommandLine.Model.CommandSpec spec;

  @Override
  public void run() {
    throw new CommandLine.ParameterException(spec.commandLine(), "a subcommand is required (new, hash)");
  }

  @Command(name = "new", mixinStandardHelpOptions = true,
      description = "Print a new random token (first line; give it to the client) and its access-file line.")
  static final class New implements Callable<Integer> {
    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    @Parameters(paramLabel = "PRINCIPAL", description = "Who the token authenticates as.")
    String principal;

    @Override
    public Integer call() {
      String token = TokenHash.newToken();
      spec.commandLine().getOut().println(token);
      spec.commandLine().getOut().println("token " + principal + " " + TokenHash.of(token));
      spec.commandLine().getOut().flush();
      return 0;
    }
  }

  @Command(name = "hash", mixinStandardHelpOptions = true,
      description = "Read a token from standard input and print its access-file line.")
  static final class Hash implements Callable<Integer> {
    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    @Parameters(paramLabel = "PRINCIPAL", description = "Who the token authenticates as.")
    String principal;

    @Override
    public Integer call() throws IOException {
      String token = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8)).readLine();
      if (token == null || token.isBlank()) {
        throw new CommandLine.ParameterException(spec.commandLine(), "no token on standard input");
      }
      spec.commandLine().getOut().println("token " + principal + " " + TokenHash.of(token.trim()));
      spec.commandLine().getOut().flush();
      return 0;
    }
  }
}
