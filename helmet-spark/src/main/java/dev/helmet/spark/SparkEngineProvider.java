package dev.helmet.spark;

import dev.helmet.protocols.simulation.Engine;
import java.util.Map;
import java.util.Set;

/** {@code --engine spark}: options {@code master} and {@code tasks}. */
public final class SparkEngineProvider implements Engine.Provider {
  @Override
  public String id() {
    return "spark";
  }

  @Override
  public String describe() {
    return "Apache Spark: parties as partitions, rounds as stages, the sum a tree aggregation (options: master, "
        + "tasks, conf.spark.*)";
  }

  @Override
  public Engine create(Map<String, String> options) {
    SparkSettings settings = SparkSettings.of(options, Set.of("tasks"), "the Spark engine");
    int tasks;
    try {
      tasks = Integer.parseInt(options.getOrDefault("tasks", "0"));
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException("the Spark engine's tasks must be a number. Provided value: "
          + options.get("tasks"), e);
    }
    return new SparkEngine(tasks, settings);
  }
}
