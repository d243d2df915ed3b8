package io.futureq.security;

/** The caller is authenticated but lacks a permission; answered PERMISSION_DENIED. */
public final class PermissionDenied extends RuntimeException {
  PermissionDenied(String principal, Permission permission, String topic) {
    super(permission == Permission.CLUSTER
        ? "principal '" + principal + "' lacks permission 'cluster'"
        : "principal '" + principal + "' lacks permission '" + permission.configName() + "' on topic '" + topic
            + "'", null, false, false);
  }

  /** Consume on the topic is granted, but not as this group. */
  PermissionDenied(String principal, String topic, String group) {
    super("principal '" + principal + "' lacks permission 'consume' on topic '" + topic + "' "
        + (group.isEmpty() ? "as a universal subscriber (no group)" : "as group '" + group + "'"), null, false, false);
  }
}
