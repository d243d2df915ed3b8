package io.futureq.config;

import java.util.List;

/** One or more settings are invalid; the message lists each key and why, on one line when there is one. */
public final class SettingsException extends RuntimeException {
  private final List<String> problems;

  public SettingsException(List<String> problems) {
    super("invalid configuration:" + (problems.size() == 1 ? " " : "\n  ") + String.join("\n  ", problems));
    this.problems = List.copyOf(problems);
  }

  public List<String> problems() {
    return problems;
  }
}
