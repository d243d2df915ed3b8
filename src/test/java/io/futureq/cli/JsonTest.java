package io.futureq.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class JsonTest {
  @Test
  void escapesQuotesBackslashesAndControlCharacters() {
    assertEquals("\"a\\\"b\\\\c\\n\\r\\t\\u0001\\u001f é ☃\"", Json.quote("a\"b\\c\n\r\t\u0001\u001f é ☃"));
  }

  @Test
  void writesFieldsInOrderWithNestedValues() {
    Map<String, String> headers = new LinkedHashMap<>();
    headers.put("k", "v");
    headers.put("q\"", "");
    String json = Json.object().put("s", "x").put("n", -3L).put("b", true).put("h", headers)
        .putStrings("l", List.of("a", "b")).putObjects("o", List.of(Json.object(), Json.object().put("i", 1)))
        .toString();
    assertEquals("{\"s\":\"x\",\"n\":-3,\"b\":true,\"h\":{\"k\":\"v\",\"q\\\"\":\"\"},\"l\":[\"a\",\"b\"],"
        + "\"o\":[{},{\"i\":1}]}", json);
  }
}
