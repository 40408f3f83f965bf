package dev.helmet.cli;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.node.ObjectNode;

/** JSON output of the CLI: one object per command on stdout. */
final class Json {
  static final ObjectMapper MAPPER = new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT);

  private Json() {}

  static ObjectNode object() {
    return MAPPER.createObjectNode();
  }

  static String print(ObjectNode node) {
    try {
      return MAPPER.writeValueAsString(node);
    } catch (JsonProcessingException e) {
      throw new IllegalStateException(e);
    }
  }

  /** Puts a double, writing non-finite values as strings ("Infinity") since JSON has no such numbers. */
  static void put(ObjectNode n, String key, double v) {
    if (Double.isFinite(v)) {
      n.put(key, v);
    } else {
      n.put(key, Double.isNaN(v) ? "NaN" : v > 0 ? "Infinity" : "-Infinity");
    }
  }
}
