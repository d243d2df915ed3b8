package io.futureq.security;

/**
 * One permission on the topics of a pattern ({@link Permission#CLUSTER}: on no topic, the pattern is *). A consume
 * grant also names the groups it may join ({@code *}: any); the other permissions do not involve groups.
 */
record Grant(Permission permission, TopicPattern topics, TopicPattern groups) {
  static final TopicPattern ANY_GROUP = TopicPattern.of("*");

  Grant(Permission permission, TopicPattern topics) {
    this(permission, topics, ANY_GROUP);
  }

  boolean allows(Permission wanted, String topic) {
    return permission == wanted && (wanted == Permission.CLUSTER || topics.covers(topic));
  }

  /**
   * Consume on {@code topic} as {@code group}. A universal subscriber (empty group) needs a grant of any group: it
   * gets a copy of every message, and on a topic without groups its ack removes the message.
   */
  boolean allowsConsume(String topic, String group) {
    return allows(Permission.CONSUME, topic) && (group.isEmpty() ? groups.text().equals("*") : groups.matches(group));
  }
}
