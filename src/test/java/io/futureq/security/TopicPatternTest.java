package io.futureq.security;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

class TopicPatternTest {
  @Test
  void aStarStandsForAnyCharactersAndEverythingElseIsLiteral() {
    assertTrue(TopicPattern.of("*").covers("anything.at-all"));
    assertTrue(TopicPattern.of("orders.*").covers("orders.eu"));
    assertTrue(TopicPattern.of("orders.*").covers("orders."));
    assertFalse(TopicPattern.of("orders.*").covers("orders"), "the dot is part of the pattern");
    assertFalse(TopicPattern.of("orders.*").covers("ordersXeu"), "a dot is a dot, not any character");
    assertTrue(TopicPattern.of("*.audit").covers("eu.audit"));
    assertTrue(TopicPattern.of("billing").covers("billing"));
    assertFalse(TopicPattern.of("billing").covers("billing2"));
  }

  @Test
  void aDeadLetterTopicIsCoveredWhereItsTopicIs() {
    assertTrue(TopicPattern.of("billing").covers("billing.dead-letter"));
    assertTrue(TopicPattern.of("orders.*").covers("orders.eu.dead-letter"));
    assertFalse(TopicPattern.of("orders.*").covers("billing.dead-letter"));
    assertFalse(TopicPattern.of("billing").covers(".dead-letter"));
  }

  @Test
  void aPatternWithCharactersNoTopicHasIsRefused() {
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> TopicPattern.of("orders/(.*)"));
    assertTrue(e.getMessage().contains("orders/(.*)"), e.getMessage());
  }
}
