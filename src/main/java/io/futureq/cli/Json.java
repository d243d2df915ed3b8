package io.futureq.cli;

import java.util.List;
import java.util.Map;

/** Writes one JSON object by hand: strings, numbers, booleans, string maps and arrays, nested objects. */
final class Json {
  private final StringBuilder body = new StringBuilder();

  static Json object() {
    return new Json();
  }

  Json put(String name, String value) {
    return field(name).append(quote(value));
  }

  Json put(String name, long value) {
    return field(name).append(value);
  }

  /** {@code value}, or null where the API's 0 means "none" (no message due, nothing unacked). */
  Json putNoneAsNull(String name, long value) {
    return value == 0 ? field(name).append("null") : put(name, value);
  }

  Json put(String name, boolean value) {
    return field(name).append(value);
  }

  Json put(String name, Json value) {
    return field(name).append(value);
  }

  Json put(String name, Map<String, String> map) {
    Json inner = object();
    map.forEach(inner::put);
    return put(name, inner);
  }

  Json putStrings(String name, List<String> values) {
    return field(name).array(values.stream().map(Json::quote).toList());
  }

  Json putObjects(String name, List<Json> values) {
    return field(name).array(values.stream().map(Json::toString).toList());
  }

  @Override
  public String toString() {
    return "{" + body + "}";
  }

  /** {@code s} as a JSON string literal, quotes included. */
  static String quote(String s) {
    StringBuilder out = new StringBuilder(s.length() + 2).append('"');
    for (int i = 0; i < s.length(); i++) {
      char c = s.charAt(i);
      switch (c) {
        case '"':
          out.append("\\\"");
          break;
        case '\\':
          out.append("\\\\");
          break;
        case '\n':
          out.append("\\n");
          break;
        case '\r':
          out.append("\\r");
          break;
        case '\t':
          out.append("\\t");
          break;
        default:
          if (c < 0x20) {
            out.append(String.format("\\u%04x", (int) c));
          } else {
            out.append(c);
          }
      }
    }
    return out.append('"').toString();
  }

  private Json field(String name) {
    if (body.length() > 0) {
      body.append(',');
    }
    body.append(quote(name)).append(':');
    return this;
  }

  private Json append(Object raw) {
    body.append(raw);
    return this;
  }

  private Json array(List<String> items) {
    return append("[" + String.join(",", items) + "]");
  }
}
