package dev.helmet.protocols.config;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.function.Function;

/**
 * A mapping of a configuration file (YAML or JSON, read with Jackson) in which every key is
 * checked: an unknown key, a missing required key, a wrong type or an out-of-range value is an
 * error that names the file and the full key ({@code session.yaml: privacy.epsilon must be in
 * [1.0E-6, 1000000.0]. Provided value: -1.0}). The coordinator's session files and the experiment
 * files both read through it; each supplies its own exception type.
 */
public final class StrictNode {
  private final String source;
  private final String prefix;
  private final JsonNode json;
  private final Function<String, RuntimeException> errors;

  /**
   * @param source names the file in errors
   * @param json the mapping
   * @param errors makes the exception thrown for a message
   */
  public StrictNode(String source, JsonNode json, Function<String, RuntimeException> errors) {
    this(source, "", json, errors);
  }

  private StrictNode(String source, String prefix, JsonNode json, Function<String, RuntimeException> errors) {
    this.source = source;
    this.prefix = prefix;
    this.json = json;
    this.errors = errors;
  }

  /** The file's name, for messages. */
  public String source() {
    return source;
  }

  /** The error for {@code key}: "SOURCE: PREFIX.KEY MESSAGE". */
  public RuntimeException error(String key, String message) {
    return errors.apply(source + ": " + prefix + key + " " + message);
  }

  public boolean has(String key) {
    return json.has(key) && !json.get(key).isNull();
  }

  /** Refuses any key not listed, naming it and the keys allowed here. */
  public void allow(String... keys) {
    Set<String> known = Set.of(keys);
    for (Iterator<String> it = json.fieldNames(); it.hasNext(); ) {
      String k = it.next();
      if (!known.contains(k)) {
        throw errors.apply(source + ": unknown key " + prefix + k + " (known keys here: "
            + String.join(", ", new TreeSet<>(known)) + ")");
      }
    }
  }

  /** The mapping under {@code key} (empty when absent). */
  public StrictNode child(String key) {
    if (!has(key)) {
      return new StrictNode(source, prefix + key + ".", new ObjectMapper().createObjectNode(), errors);
    }
    JsonNode c = json.get(key);
    if (!c.isObject()) {
      throw error(key, "must be a mapping of keys to values");
    }
    return new StrictNode(source, prefix + key + ".", c, errors);
  }

  /** A required, non-empty list of mappings under {@code key}, each read as {@code key[i].}. */
  public List<StrictNode> children(String key) {
    List<StrictNode> out = new ArrayList<>();
    int i = 0;
    for (JsonNode e : list(key)) {
      if (!e.isObject()) {
        throw error(key, "must list mappings of keys to values (entry " + i + " is not one)");
      }
      out.add(new StrictNode(source, prefix + key + "[" + i + "].", e, errors));
      i++;
    }
    return List.copyOf(out);
  }

  /** The mapping itself (read-only use: callers that hand a section on to another reader). */
  public JsonNode json() {
    return json.deepCopy();
  }

  /** A non-empty text; {@code fallback} when absent (null: required). */
  public String string(String key, String fallback) {
    if (!has(key)) {
      if (fallback == null) {
        throw error(key, "is required");
      }
      return fallback;
    }
    JsonNode v = json.get(key);
    if (!v.isValueNode() || v.asText().isEmpty()) {
      throw error(key, "must be a non-empty text");
    }
    return v.asText();
  }

  /** A text that may be empty (user names, passwords); "" when absent. */
  public String text(String key) {
    if (!has(key)) {
      return "";
    }
    JsonNode v = json.get(key);
    if (!v.isValueNode()) {
      throw error(key, "must be a text");
    }
    return v.asText();
  }

  /** A number in [lo, hi]; {@code fallback} when absent (null: required). */
  public double number(String key, Double fallback, double lo, double hi) {
    if (!has(key)) {
      if (fallback == null) {
        throw error(key, "is required");
      }
      return fallback;
    }
    return number(key, json.get(key), lo, hi);
  }

  /** A whole number in [lo, hi]; {@code fallback} when absent (null: required). */
  public int integer(String key, Integer fallback, int lo, int hi) {
    if (!has(key)) {
      if (fallback == null) {
        throw error(key, "is required");
      }
      return fallback;
    }
    return integer(key, json.get(key), lo, hi);
  }

  public boolean bool(String key, boolean fallback) {
    if (!has(key)) {
      return fallback;
    }
    JsonNode v = json.get(key);
    if (!v.isBoolean()) {
      throw error(key, "must be true or false. Provided value: " + v.asText());
    }
    return v.asBoolean();
  }

  /** A required list of plain values (one value counts as a list of one). */
  public List<String> strings(String key) {
    List<String> out = new ArrayList<>();
    for (JsonNode e : list(key)) {
      if (!e.isValueNode() || e.asText().isEmpty()) {
        throw error(key, "must list plain values");
      }
      out.add(e.asText());
    }
    return List.copyOf(out);
  }

  /** A required list of numbers in [lo, hi]. */
  public List<Double> numbers(String key, double lo, double hi) {
    List<Double> out = new ArrayList<>();
    for (JsonNode e : list(key)) {
      out.add(number(key, e, lo, hi));
    }
    return List.copyOf(out);
  }

  /** A required list of whole numbers in [lo, hi]. */
  public List<Integer> integers(String key, int lo, int hi) {
    List<Integer> out = new ArrayList<>();
    for (JsonNode e : list(key)) {
      out.add(integer(key, e, lo, hi));
    }
    return List.copyOf(out);
  }

  private List<JsonNode> list(String key) {
    if (!has(key)) {
      throw error(key, "is required");
    }
    JsonNode v = json.get(key);
    List<JsonNode> out = new ArrayList<>();
    if (v.isArray()) {
      v.forEach(out::add);
    } else {
      out.add(v);
    }
    if (out.isEmpty()) {
      throw error(key, "must list at least one value");
    }
    return out;
  }

  private double number(String key, JsonNode v, double lo, double hi) {
    if (!v.isNumber()) {
      throw error(key, "must be a number. Provided value: " + v.asText());
    }
    double d = v.asDouble();
    if (!(d >= lo && d <= hi)) {
      throw error(key, "must be in [" + lo + ", " + hi + "]. Provided value: " + d);
    }
    return d;
  }

  private int integer(String key, JsonNode v, int lo, int hi) {
    if (!v.isIntegralNumber()) {
      throw error(key, "must be a whole number. Provided value: " + v.asText());
    }
    long l = v.asLong();
    if (l < lo || l > hi) {
      throw error(key, "must be in [" + lo + ", " + hi + "]. Provided value: " + l);
    }
    return (int) l;
  }
}
