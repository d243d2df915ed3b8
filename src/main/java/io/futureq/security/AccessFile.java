package io.futureq.security;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;

/**
 * The access file: one entry a line, fields separated by spaces, {@code #} starts a comment.
 * <pre>
 * token PRINCIPAL sha256:HEX                  a static token (TokenHash); several per principal allowed
 * grant PRINCIPAL PERMISSION PATTERN          produce, consume or admin on topics matching PATTERN
 * grant PRINCIPAL consume PATTERN group GROUPS consume only as a group matching GROUPS (a pattern as well)
 * grant PRINCIPAL cluster                     add and remove Raft peers
 * limit PRINCIPAL MESSAGES/S BYTES/S          this principal's publish rate (0: unlimited)
 * </pre>
 * Grants and limits apply to a principal however it authenticated, static token or JWT {@code sub}.
 */
record AccessFile(Map<String, String> principalByTokenHash, Map<String, List<Grant>> grants,
    Map<String, RateLimit> limits) {
  static final AccessFile EMPTY = new AccessFile(Map.of(), Map.of(), Map.of());
  private static final Pattern NAME = Pattern.compile("[A-Za-z0-9._@:-]{1,256}");
  private static final Pattern HASH = Pattern.compile("sha256:[0-9a-f]{64}");

  /** A principal's publish limits; 0 is unlimited. */
  record RateLimit(long messagesPerSecond, long bytesPerSecond) {}

  List<Grant> grantsOf(String principal) {
    return grants.getOrDefault(principal, List.of());
  }

  /** @throws IllegalArgumentException naming the file and line of the first bad entry */
  static AccessFile read(Path file) throws IOException {
    Map<String, String> tokens = new HashMap<>();
    Map<String, List<Grant>> grants = new HashMap<>();
    Map<String, RateLimit> limits = new HashMap<>();
    List<String> lines = Files.readAllLines(file, StandardCharsets.UTF_8);
    for (int i = 0; i < lines.size(); i++) {
      String line = lines.get(i);
      int hash = line.indexOf('#');
      String[] f = (hash >= 0 ? line.substring(0, hash) : line).trim().split("\\s+");
      if (f.length == 1 && f[0].isEmpty()) {
        continue;
      }
      String where = file + " line " + (i + 1) + ": ";
      if (f.length < 2 || !NAME.matcher(f[1]).matches()) {
        throw new IllegalArgumentException(where + "expected 'token|grant|limit PRINCIPAL ...' (a principal is "
            + "1-256 of A-Z a-z 0-9 . _ @ : -)");
      }
      switch (f[0]) {
        case "token" -> {
          if (f.length != 3 || !HASH.matcher(f[2]).matches()) {
            throw new IllegalArgumentException(where + "expected 'token PRINCIPAL sha256:<64 lowercase hex digits>' "
                + "(bin/futureq token new prints one)");
          }
          if (tokens.putIfAbsent(f[2], f[1]) != null) {
            throw new IllegalArgumentException(where + "this token hash is already given to principal '"
                + tokens.get(f[2]) + "'");
          }
        }
        case "grant" -> grants.computeIfAbsent(f[1], p -> new ArrayList<>()).add(grant(where, f));
        case "limit" -> {
          if (f.length != 4) {
            throw new IllegalArgumentException(where
                + "expected 'limit PRINCIPAL MESSAGES_PER_SECOND BYTES_PER_SECOND'");
          }
          limits.put(f[1], new RateLimit(count(where, f[2]), count(where, f[3])));
        }
        default -> throw new IllegalArgumentException(where + "unknown entry '" + f[0] + "': expected token, "
            + "grant or limit");
      }
    }
    grants.replaceAll((p, g) -> List.copyOf(g));
    return new AccessFile(Map.copyOf(tokens), Map.copyOf(grants), Map.copyOf(limits));
  }

  private static Grant grant(String where, String[] f) {
    Permission permission = f.length >= 3 ? Permission.named(f[2]) : null;
    if (permission == null) {
      throw new IllegalArgumentException(where + "expected 'grant PRINCIPAL produce|consume|admin PATTERN' or "
          + "'grant PRINCIPAL cluster'");
    }
    if (permission == Permission.CLUSTER) {
      if (f.length != 3) {
        throw new IllegalArgumentException(where + "'cluster' takes no topic pattern");
      }
      return new Grant(permission, TopicPattern.of("*"));
    }
    boolean groups = permission == Permission.CONSUME && f.length == 6 && f[4].equals("group");
    if (f.length != 4 && !groups) {
      throw new IllegalArgumentException(where + "'" + f[2] + "' needs one topic pattern (e.g. orders.* or *)"
          + (permission == Permission.CONSUME ? ", then optionally 'group PATTERN'" : ""));
    }
    try {
      return new Grant(permission, TopicPattern.of(f[3]), groups ? groupPattern(f[5]) : Grant.ANY_GROUP);
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException(where + e.getMessage());
    }
  }

  /** A group pattern: the topic pattern's rules, named as a group's in its error. */
  static TopicPattern groupPattern(String text) {
    try {
      return TopicPattern.of(text);
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException("group pattern '" + text + "' may hold only A-Z a-z 0-9 . _ - and *");
    }
  }

  private static long count(String where, String text) {
    try {
      long value = Long.parseLong(text);
      if (value >= 0) {
        return value;
      }
    } catch (NumberFormatException e) {
      // reported below
    }
    throw new IllegalArgumentException(where + "'" + text + "' is not a whole number >= 0");
  }
}
