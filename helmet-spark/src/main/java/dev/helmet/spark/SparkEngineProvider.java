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
    return "Apache Spark: parties as partitions, rounds as stages, the sum a tree aggregation (options: master, tasks)";
  }

  @Override
  public Engine create(Map<String, String> options) {
    for (String k : options.keySet()) {
      if (!Set.of("master", "tasks").contains(k)) {
        throw new IllegalArgumentException("the Spark engine has options master and tasks. Provided: " + k);
      }
    }
    int tasks;
    try {
      tasks = Integer.parseInt(options.getOrDefault("tasks", "0"));
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException("the Spark engine's tasks must be a number. Provided value: "
          + options.get("tasks"), e);
    }
    return new SparkEngine(options.get("master"), tasks);
  }
}
