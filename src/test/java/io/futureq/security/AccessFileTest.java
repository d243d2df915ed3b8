package io.futureq.security;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class AccessFileTest {
  @TempDir
  Path dir;

  @Test
  void readsTokensGrantsAndLimitsIgnoringCommentsAndBlankLines() throws Exception {
    String hash = TokenHash.of("secret");
    AccessFile file = AccessFile.read(Files.writeString(dir.resolve("a"), String.join("\n",
        "# operators", "", "token ops " + hash + "  # rotated 2026-11", "grant ops admin *", "grant ops cluster",
        "limit ops 100 1048576")));
    assertEquals("ops", file.principalByTokenHash().get(hash));
    assertEquals(2, file.grantsOf("ops").size());
    assertEquals(new AccessFile.RateLimit(100, 1048576), file.limits().get("ops"));
    assertEquals(0, file.grantsOf("nobody").size());
  }

  @Test
  void aConsumeGrantMayNameItsGroups() throws Exception {
    AccessFile file = AccessFile.read(Files.writeString(dir.resolve("g"), String.join("\n",
        "grant billing consume orders.* group billing-*", "grant any consume orders.*")));
    Grant billing = file.grantsOf("billing").get(0);
    assertTrue(billing.allowsConsume("orders.eu", "billing-eu"));
    assertFalse(billing.allowsConsume("orders.eu", "shipping"));
    assertFalse(billing.allowsConsume("orders.eu", ""), "a universal subscriber needs a grant of any group");
    assertTrue(file.grantsOf("any").get(0).allowsConsume("orders.eu", ""));
    assertTrue(file.grantsOf("any").get(0).allowsConsume("orders.eu", "shipping"), "no group pattern: any group");
    assertRefused("grant ops consume orders.* team x", "line 1: 'consume' needs one topic pattern (e.g. orders.* or "
        + "*), then optionally 'group PATTERN'");
    assertRefused("grant ops produce orders.* group x", "line 1: 'produce' needs one topic pattern");
    assertRefused("grant ops consume orders.* group a/b", "line 1: group pattern 'a/b' may hold only");
  }

  @Test
  void aBadLineIsNamedByFileAndLineNumber() throws Exception {
    assertRefused("token ops 5e88489", "line 1: expected 'token PRINCIPAL sha256:<64 lowercase hex digits>'");
    assertRefused("\ngrant ops read *", "line 2: expected 'grant PRINCIPAL produce|consume|admin PATTERN'");
    assertRefused("grant ops produce", "line 1: 'produce' needs one topic pattern");
    assertRefused("grant ops cluster *", "line 1: 'cluster' takes no topic pattern");
    assertRefused("grant ops produce a/b", "line 1: topic pattern 'a/b' may hold only");
    assertRefused("limit ops -1 0", "line 1: '-1' is not a whole number >= 0");
    assertRefused("user ops", "line 1: unknown entry 'user'");
    String hash = TokenHash.of("same");
    assertRefused("token a " + hash + "\ntoken b " + hash, "line 2: this token hash is already given to principal 'a'");
  }

  @Test
  void aTokenIsStoredAsItsSha256InHex() {
    // echo -n secret | sha256sum
    assertEquals("sha256:2bb80d537b1da3e38bd30361aa855686bde0eacd7162fef6a25fe97bf527a25b", TokenHash.of("secret"));
    assertEquals(43, TokenHash.newToken().length());
  }

  private void assertRefused(String content, String expected) throws Exception {
    Path file = Files.writeString(dir.resolve("bad"), content);
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> AccessFile.read(file));
    assertTrue(e.getMessage().startsWith(file + " " + expected.substring(0, expected.indexOf(':')))
        && e.getMessage().contains(expected.substring(expected.indexOf(':') + 2)), e.getMessage());
  }
}
