package io.futureq.e2e;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.List;

/**
 * The console open in a real browser, whichever drives it ({@link ConsoleBrowser}: Chromium through chromedriver,
 * {@link ConsoleFirefox}: Firefox through Marionette), and what the browser tests read from its pages: the same
 * checks in each browser.
 */
interface ConsolePage {
  /** Opens the console in a fresh tab state and signs in with {@code token} (null: none). */
  void signIn(String token);

  /** Goes to the console's page at {@code hash} (e.g. {@code #/timeline}). */
  void go(String hash);

  /** Returns once the first element {@code css} selects is shown; fails after a generous bound. */
  void awaitShown(String what, String css);

  /** What {@code script} (a function body) returns, a number. */
  long number(String script);

  /** Writes what the browser shows to {@code target/console-screenshots/NAME.png}. */
  void screenshot(String name);

  /** Every error the pages logged since the last call (console errors, uncaught exceptions, refused loads). */
  List<String> errors();

  default void assertNoErrors() {
    assertEquals(List.of(), errors(), "errors in the browser's console");
  }

  // The timeline's table is drawn anew every second: its numbers are read in one script, not row by row.

  /** The timeline table's count at the bar starting {@code ms}. */
  default long countAt(long ms) {
    return number("return [...document.querySelectorAll('#timeline-table tr[data-ms=\"" + ms + "\"]')]"
        + ".reduce((sum, r) => sum + Number(r.dataset.count), 0);");
  }

  /** The timeline's overdue count, or -1 before it shows. */
  default long overdue() {
    return number("const r = document.getElementById('timeline-overdue');"
        + "return r ? Number(r.dataset.count) : -1;");
  }

  /** The sum of the timeline table's bars. */
  default long tableTotal() {
    return number("return [...document.querySelectorAll('#timeline-table tr[data-ms]')]"
        + ".reduce((sum, r) => sum + Number(r.dataset.count), 0);");
  }

  /** The timeline's step, or -1 before it shows. */
  default long stepMs() {
    return number("const t = document.getElementById('timeline-table');"
        + "return t && t.dataset.stepMs ? Number(t.dataset.stepMs) : -1;");
  }
}
