package io.futureq.security;

/** The caller is authenticated but lacks a permission; answered PERMISSION_DENIED. */
public final class PermissionDenied extends RuntimeException {
  PermissionDenied(String principal, Permission permission, String topic) {
    super(permission == Permission.CLUSTER
        ? "principal '" + principal + "' lacks permission 'cluster'"
        : "principal '" + principal + "' lacks permission '" + permission.configName() + "' on topic '" + topic
            + "'", null, false, false);
  }
}
