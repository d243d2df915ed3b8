package io.futureq.security;

import java.util.List;

/**
 * An authenticated caller and what it may do. Grants only add: there is no deny.
 *
 * @param name the static token's principal, or the JWT's {@code sub}
 */
public record Principal(String name, List<Grant> grants) {
  /** The caller when authentication is off: may do everything. */
  public static final Principal ANONYMOUS = new Principal("anonymous", List.of(
      new Grant(Permission.PRODUCE, TopicPattern.of("*")), new Grant(Permission.CONSUME, TopicPattern.of("*")),
      new Grant(Permission.ADMIN, TopicPattern.of("*")), new Grant(Permission.CLUSTER, TopicPattern.of("*"))));

  public Principal {
    grants = List.copyOf(grants);
  }

  public boolean may(Permission permission, String topic) {
    for (Grant g : grants) {
      if (g.allows(permission, topic)) {
        return true;
      }
    }
    return false;
  }

  /** @throws PermissionDenied naming the permission and the topic */
  public void require(Permission permission, String topic) {
    if (!may(permission, topic)) {
      throw new PermissionDenied(name, permission, topic);
    }
  }

  /**
   * Subscribing to {@code topic} as {@code group}: a consume grant covering the topic whose group pattern matches
   * the group; a universal subscriber (empty group) needs a grant of any group ({@link Grant#allowsConsume}).
   *
   * @throws PermissionDenied naming the topic and the group
   */
  public void requireConsume(String topic, String group) {
    for (Grant g : grants) {
      if (g.allowsConsume(topic, group)) {
        return;
      }
    }
    throw !may(Permission.CONSUME, topic) ? new PermissionDenied(name, Permission.CONSUME, topic)
        : new PermissionDenied(name, topic, group);
  }

  /** Whether this principal holds any permission on {@code topic} (what ListTopics shows it). */
  public boolean seesTopic(String topic) {
    return may(Permission.PRODUCE, topic) || may(Permission.CONSUME, topic) || may(Permission.ADMIN, topic);
  }
}
