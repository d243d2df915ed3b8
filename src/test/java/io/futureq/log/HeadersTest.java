package io.futureq.log;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.futureq.api.grpc.Delivery;
import io.futureq.log.proto.StoredMessage;
import java.util.LinkedHashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * Stored records and log entries written while their headers were a {@code map<string, string>} read the same as
 * a list of {@code Header}s, and the other way round, so that a broker reads what an older one stored. (The bytes
 * differ in one way only: a map entry writes an empty value, a {@code Header} leaves it out.) {@code Delivery} stands
 * in for the old declaration: its field 4 is still that map.
 */
class HeadersTest {
  private static final Map<String, String> HEADERS = ordered("trace", "abc", "tenant", "ü-7", "empty", "");

  @Test
  void recordsWrittenWithAMapReadAsTheSameHeadersInTheSameOrder() throws Exception {
    byte[] old = Delivery.newBuilder().putAllHeaders(HEADERS).build().toByteArray();

    StoredMessage read = StoredMessage.parseFrom(old);

    assertEquals(HEADERS, Headers.asMap(read.getHeadersList()));
    assertEquals(HEADERS.keySet().stream().toList(), read.getHeadersList().stream().map(h -> h.getKey()).toList());
  }

  @Test
  void recordsWrittenWithAListReadAsTheSameMap() throws Exception {
    StoredMessage.Builder now = StoredMessage.newBuilder();
    Headers.addAll(HEADERS, now::addHeaders);
    byte[] bytes = now.build().toByteArray();

    Delivery asMap = Delivery.parseFrom(bytes);

    assertEquals(HEADERS, asMap.getHeadersMap());
  }

  private static Map<String, String> ordered(String... keysAndValues) {
    Map<String, String> m = new LinkedHashMap<>();
    for (int i = 0; i < keysAndValues.length; i += 2) {
      m.put(keysAndValues[i], keysAndValues[i + 1]);
    }
    return m;
  }
}
