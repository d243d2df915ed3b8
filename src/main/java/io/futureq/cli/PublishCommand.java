package io.futureq.cli;

import io.futureq.client.FutureQClient;
import io.futureq.client.FutureQException;
import io.futureq.client.FutureQProducer;
import io.futureq.client.OutgoingMessage;
import io.futureq.client.ProducerOptions;
import io.futureq.client.SendResult;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.PrintWriter;
import java.io.UncheckedIOException;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import picocli.CommandLine.ArgGroup;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Parameters;

/** {@code futureq publish}: publishes TEXT, or each line of standard input, and prints the message ids. */
@Command(name = "publish", mixinStandardHelpOptions = true,
    description = {"Publish messages and print one message id per line.",
        "Without TEXT, publishes one message per line of standard input (UTF-8)."})
final class PublishCommand extends BrokerCommand {
  @Option(names = "--topic", required = true, paramLabel = "TOPIC", description = "Topic to publish to.")
  String topic;

  @ArgGroup(exclusive = true)
  Due due;

  @Option(names = "--ttl", paramLabel = "DURATION", converter = DurationConverter.class,
      description = "Drop the message if not delivered this long after its due time.")
  Duration ttl;

  @Option(names = "--key", paramLabel = "KEY",
      description = "Idempotency key; with standard input, allowed only when it has one line.")
  String key;

  @Option(names = "--header", paramLabel = "NAME=VALUE", description = "A header; repeat for more.")
  Map<String, String> headers = new LinkedHashMap<>();

  @Parameters(arity = "0..1", paramLabel = "TEXT", description = "The payload (UTF-8).")
  String text;

  /** Where lines come from without TEXT; tests replace it. */
  InputStream in = System.in;

  private List<String> payloads;

  /** When the message becomes due: now unless one of these is given. */
  static final class Due {
    @Option(names = "--delay", paramLabel = "DURATION", converter = DurationConverter.class,
        description = "Due this long from now, e.g. " + DurationConverter.EXAMPLES
            + " (the configuration's duration grammar).")
    Duration delay;

    @Option(names = "--at", paramLabel = "INSTANT", converter = InstantConverter.class,
        description = {"Due at this ISO-8601 instant,", "e.g. 2026-12-01T10:00:00Z or 2026-12-01T11:00:00+01:00."})
    Instant at;
  }

  @Override
  void prepare() {
    payloads = text != null ? List.of(text) : readLines();
    if (payloads.isEmpty()) {
      throw new ParameterException(spec.commandLine(), "nothing to publish: give TEXT or lines on standard input");
    }
    if (key != null && payloads.size() > 1) {
      throw new ParameterException(spec.commandLine(), "--key names one message, but standard input has "
          + payloads.size() + " lines");
    }
  }

  @Override
  int run(FutureQClient client) throws InterruptedException {
    // A producer resends to an unreachable broker until it is closed; one admin call fails fast instead.
    server.await(client.clusterInfo());
    FutureQProducer producer = client.producer(ProducerOptions.defaults());
    List<CompletableFuture<SendResult>> ids = new ArrayList<>();
    for (String payload : payloads) {
      ids.add(producer.send(message(payload)));
    }
    producer.flush();
    for (int i = 0; i < ids.size(); i++) {
      try {
        SendResult sent = server.await(ids.get(i));
        out().println(sent.messageId());
        if (sent.duplicate()) {
          // stdout stays one id per message; the note says nothing new was stored
          PrintWriter err = spec.commandLine().getErr();
          err.println("futureq: key " + key + " is already pending on topic " + topic
              + ": that message was kept, nothing new stored");
          err.flush();
        }
      } catch (FutureQException e) {
        if (ids.size() == 1) {
          throw e;
        }
        return fail("line " + (i + 1) + ": " + e.getMessage());
      }
    }
    return 0;
  }

  private OutgoingMessage message(String payload) {
    OutgoingMessage.Builder m = OutgoingMessage.to(topic).payload(payload);
    if (due != null && due.delay != null) {
      m.delay(due.delay);
    } else if (due != null && due.at != null) {
      m.at(due.at);
    }
    if (ttl != null) {
      m.ttl(ttl);
    }
    if (key != null) {
      m.key(key);
    }
    headers.forEach(m::header);
    return m.build();
  }

  private List<String> readLines() {
    List<String> lines = new ArrayList<>();
    try {
      // A fresh decoder reports malformed input, where a charset would quietly put U+FFFD in the payload.
      BufferedReader reader = new BufferedReader(new InputStreamReader(in, StandardCharsets.UTF_8.newDecoder()));
      for (String line = reader.readLine(); line != null; line = reader.readLine()) {
        lines.add(line);
      }
    } catch (CharacterCodingException e) {
      throw new UncheckedIOException("standard input is not UTF-8 text", e);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read standard input: " + e.getMessage(), e);
    }
    return lines;
  }
}
