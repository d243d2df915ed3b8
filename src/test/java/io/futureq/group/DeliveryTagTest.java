package io.futureq.group;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.junit.jupiter.api.Test;

class DeliveryTagTest {

  @Test
  void textIsTwoHexNumbersJoinedByADash() {
    assertEquals("1f-0", new DeliveryTag(31, 0).toString());
    assertEquals("7fffffffffffffff-ffffffffffffffff", new DeliveryTag(Long.MAX_VALUE, -1L).toString());
  }

  @Test
  void textParsesBackToTheSameTag() {
    for (DeliveryTag tag : List.of(new DeliveryTag(0, 0), new DeliveryTag(31, 1), new DeliveryTag(Long.MAX_VALUE, 7),
        new DeliveryTag(-1L, Long.MIN_VALUE), new DeliveryTag(0x1234abcdL, 0xffffL))) {
      assertEquals(tag, DeliveryTag.parse(tag.toString()));
    }
  }

  @Test
  void upperCaseHexIsAccepted() {
    assertEquals(new DeliveryTag(0xab, 0xcd), DeliveryTag.parse("AB-CD"));
  }

  @Test
  void malformedTagsAreRejectedQuotingTheText() {
    List<String> malformed = List.of("", "-", "1-", "-1", "12", "g-1", "1-g", "1-2-3", "1--2", " 1-2",
        "10000000000000000-1", "1-10000000000000000", "00000000000000000000000000000000001-1");
    for (String text : malformed) {
      IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> DeliveryTag.parse(text), text);
      assertTrue(e.getMessage().contains("'" + text + "'"), e.getMessage());
    }
  }
}
