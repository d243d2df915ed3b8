package io.futureq.log;

import io.futureq.log.proto.Header;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.BiConsumer;
import java.util.function.Consumer;

/**
 * A message's headers between the API, whose messages carry them as a map, and the log, which keeps them as a list of
 * {@link Header}s (log.proto says why). The list's order is the map's, and its keys are unique.
 */
public final class Headers {
  private Headers() {}

  /** Adds each of {@code map}'s headers, in its order, to a list through {@code add}. */
  public static void addAll(Map<String, String> map, Consumer<Header> add) {
    map.forEach((k, v) -> add.accept(Header.newBuilder().setKey(k).setValue(v).build()));
  }

  /** Passes each header to {@code put}, in the list's order: for filling an API message's map. */
  public static void putAll(List<Header> headers, BiConsumer<String, String> put) {
    for (Header h : headers) {
      put.accept(h.getKey(), h.getValue());
    }
  }

  /** The headers as a map in their order, for those who read them by name. */
  public static Map<String, String> asMap(List<Header> headers) {
    Map<String, String> out = new LinkedHashMap<>(headers.size() * 2);
    putAll(headers, out::put);
    return out;
  }
}
