package dev.helmet.protocols.algorithm;

import dev.helmet.core.util.Checks;

/**
 * One parameter of an algorithm.
 *
 * @param path where it sits in a configuration mapping: {@code learner.lambda}, {@code dpfl.rounds}
 * @param flag its command-line option, {@code --lambda}; several algorithms may share a flag when
 *     its type agrees (the selected algorithm's path takes the value: {@code --sampling-rate} is
 *     {@code dpfl.sampling_rate} for dp-fl and {@code smm.sampling_rate} for smm)
 * @param type how its value is written
 * @param defaultValue its default in words ({@code "0.5"}, {@code "per learner"})
 * @param description what it does
 * @param column the column of an experiment's results.csv that reports it (lambda, radius, epochs,
 *     learning_rate, clip, sampling_rate), or null
 */
public record Parameter(String path, String flag, Type type, String defaultValue, String description, String column) {
  /** How a value is written. */
  public enum Type { NUMBER, INTEGER, TEXT, BOOLEAN }

  public Parameter {
    Checks.require(path != null && !path.isEmpty(), "a parameter needs a path");
    Checks.require(flag != null && flag.startsWith("--"), "a parameter's flag starts with --: " + flag);
    Checks.notNull("type", type);
    Checks.notNull("default", defaultValue);
    Checks.notNull("description", description);
  }

  /** A parameter that no results column reports. */
  public Parameter(String path, String flag, Type type, String defaultValue, String description) {
    this(path, flag, type, defaultValue, description, null);
  }
}
