package dev.helmet.protocols.algorithm;

import dev.helmet.core.util.Checks;
import java.util.List;

/**
 * One parameter of an algorithm.
 *
 * <p>One idea has one name: algorithms share a flag for the same setting ({@code --accountant} is
 * the privacy accountant of dp-fl, wd-dp and cross-silo), and a parameter's earlier flags stay
 * accepted as {@link #aliases}. Parameters of different algorithms whose paths end in the same key
 * stand for related settings under different flags where one name would conflate them (helmet's
 * {@code learner.epochs}, {@code --epochs}, are local training epochs that cost no privacy; dp-fl's
 * {@code dpfl.epochs}, {@code --dp-epochs}, set how many noised rounds run): giving one for the
 * other's algorithm is refused naming the flag that applies ({@link #key}).
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
 * @param aliases the flag's earlier names, still accepted for this algorithm ({@code --wd-dp-radius}
 *     for wd-dp's {@code --radius}); none may be another parameter's flag
 */
public record Parameter(String path, String flag, Type type, String defaultValue, String description, String column,
    List<String> aliases) {
  /** How a value is written. */
  public enum Type { NUMBER, INTEGER, TEXT, BOOLEAN }

  public Parameter {
    Checks.require(path != null && !path.isEmpty(), "a parameter needs a path");
    Checks.require(flag != null && flag.startsWith("--"), "a parameter's flag starts with --: " + flag);
    Checks.notNull("type", type);
    Checks.notNull("default", defaultValue);
    Checks.notNull("description", description);
    aliases = List.copyOf(Checks.notNull("aliases", aliases));
    for (String a : aliases) {
      Checks.require(a.startsWith("--") && !a.equals(flag), "an alias is another flag starting with --: " + a);
    }
  }

  /** A parameter without old names. */
  public Parameter(String path, String flag, Type type, String defaultValue, String description, String column) {
    this(path, flag, type, defaultValue, description, column, List.of());
  }

  /** A parameter that no results column reports. */
  public Parameter(String path, String flag, Type type, String defaultValue, String description) {
    this(path, flag, type, defaultValue, description, null);
  }

  /** This parameter with {@code old} flags kept as aliases of its flag. */
  public Parameter withAliases(String... old) {
    return new Parameter(path, flag, type, defaultValue, description, column, List.of(old));
  }

  /** The last key of its path ({@code epochs} for {@code dpfl.epochs}): the setting it stands for. */
  public String key() {
    return path.substring(path.lastIndexOf('.') + 1);
  }
}
