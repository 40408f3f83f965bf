package dev.helmet.privacy.calculator;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * A calculator's answer as {@code helmet privacy} prints it: the JSON fields in their order (values
 * Double, Integer, Long or String) and the sentence printed without {@code --json}.
 *
 * @param fields the {@code --json} keys and values, in order
 * @param text one line, without its line break
 */
public record Report(Map<String, Object> fields, String text) {
  public Report {
    fields = Collections.unmodifiableMap(new LinkedHashMap<>(fields));
  }

  /** A value of {@link #fields}. */
  public Object get(String key) {
    return fields.get(key);
  }
}
