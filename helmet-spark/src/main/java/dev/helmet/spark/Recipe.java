package dev.helmet.spark;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.helmet.protocols.algorithm.AlgorithmSpec;
import dev.helmet.protocols.algorithm.Algorithms;
import dev.helmet.protocols.algorithm.Common;
import dev.helmet.protocols.config.StrictNode;
import dev.helmet.protocols.privacy.Protection;
import java.io.Serializable;

/**
 * What a worker needs to rebuild the run's public settings by itself: the algorithm's name and its
 * settings in canonical form (what a coordinator publishes), the common settings, the contributor
 * floor, and the test noise seed (null: every party's noise from SecureRandom). Nothing in it
 * comes from the data.
 */
record Recipe(String job, String algorithm, String config, double epsilon, double delta, double honestFraction,
    String protectionUnit, int groupSize, int ringBits, int features, int classes, int minContributors,
    Long testNoiseSeed) implements Serializable {

  static Recipe of(String job, AlgorithmSpec spec, int minContributors, Long testNoiseSeed) {
    Common c = spec.common();
    return new Recipe(job, spec.algorithm().id(), spec.toConfig().toString(), c.epsilon(), c.delta(),
        c.honestFraction(), c.protection().unit().name(), c.protection().groupSize(), c.ringBits(), c.features(),
        c.classes(), minContributors, testNoiseSeed);
  }

  /** The spec again, read by the algorithm's own strict reader. */
  AlgorithmSpec spec() {
    Common common = new Common(epsilon, delta, honestFraction, new Protection(Protection.Unit.valueOf(protectionUnit),
        groupSize), ringBits, features, classes);
    try {
      return Algorithms.named(algorithm).configure(new StrictNode("engine", new ObjectMapper().readTree(config),
          IllegalArgumentException::new), common);
    } catch (com.fasterxml.jackson.core.JsonProcessingException e) {
      throw new IllegalStateException("the run's settings did not survive the trip to a worker", e);
    }
  }
}
