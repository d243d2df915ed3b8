package io.futureq.security;

import io.futureq.log.BrokerStateMachine;
import java.util.regex.Pattern;

/**
 * Topic names a grant covers: a name, or a pattern where {@code *} stands for any characters ({@code orders.*},
 * {@code *}). A dead-letter topic ({@code T.dead-letter}) is covered wherever {@code T} is, so it follows its
 * topic's permissions.
 */
record TopicPattern(String text, Pattern regex) {
  private static final Pattern ALLOWED = Pattern.compile("[A-Za-z0-9._*-]+");

  /** @throws IllegalArgumentException if {@code text} has characters a topic name cannot have (other than *) */
  static TopicPattern of(String text) {
    if (!ALLOWED.matcher(text).matches()) {
      throw new IllegalArgumentException("topic pattern '" + text + "' may hold only A-Z a-z 0-9 . _ - and *");
    }
    return new TopicPattern(text, Pattern.compile(regex(text)));
  }

  private static String regex(String text) {
    StringBuilder regex = new StringBuilder();
    String[] parts = text.split("\\*", -1);
    for (int i = 0; i < parts.length; i++) {
      if (i > 0) {
        regex.append(".*");
      }
      if (!parts[i].isEmpty()) {
        regex.append(Pattern.quote(parts[i]));
      }
    }
    return regex.toString();
  }

  /** Whether {@code name} (a group's) matches the pattern itself, with no dead-letter rule. */
  boolean matches(String name) {
    return regex.matcher(name).matches();
  }

  boolean covers(String topic) {
    if (regex.matcher(topic).matches()) {
      return true;
    }
    String suffix = BrokerStateMachine.DEAD_LETTER_SUFFIX;
    return topic.endsWith(suffix) && topic.length() > suffix.length()
        && regex.matcher(topic.substring(0, topic.length() - suffix.length())).matches();
  }
}
