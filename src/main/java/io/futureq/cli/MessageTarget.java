package io.futureq.cli;

import picocli.CommandLine.Option;

/** Which pending message a command names: exactly one of a key or an id. */
final class MessageTarget {
  @Option(names = "--key", paramLabel = "KEY", description = "The idempotency key it was published with.")
  String key;

  @Option(names = "--id", paramLabel = "ID", description = "Its message id (as publish or peek printed it).")
  String id;
}
