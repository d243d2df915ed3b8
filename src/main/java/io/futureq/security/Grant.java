package io.futureq.security;

/** One permission on the topics of a pattern ({@link Permission#CLUSTER}: on no topic, the pattern is *). */
record Grant(Permission permission, TopicPattern topics) {
  boolean allows(Permission wanted, String topic) {
    return permission == wanted && (wanted == Permission.CLUSTER || topics.covers(topic));
  }
}
