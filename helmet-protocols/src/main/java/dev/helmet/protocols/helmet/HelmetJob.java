package dev.helmet.protocols.helmet;

import dev.helmet.core.data.Dataset;
import dev.helmet.core.learn.LearnerConfig;
import dev.helmet.core.partition.PartitionStrategy;
import dev.helmet.core.preprocess.Preprocessing;
import dev.helmet.core.util.Checks;
import dev.helmet.secagg.summation.SecureSummation;

/**
 * Everything one simulated blind-averaging run needs.
 *
 * @param train the data the parties hold (split by {@code partition})
 * @param test held-out data for evaluation (never seen in training)
 * @param partition how to split {@code train} among parties
 * @param preprocessing the public input transformation
 * @param learner the local learner's hyperparameters
 * @param privacy the privacy target
 * @param summation the summation protocol
 * @param noise the noise each party adds
 * @param ringBits summation ring size (0 = choose)
 * @param seed seeds the partition and the local shuffles (not the noise, which is always fresh)
 * @param threads worker threads for local training
 * @param reference also train the non-private centralized reference on the pooled data
 */
public record HelmetJob(
    Dataset train,
    Dataset test,
    PartitionStrategy partition,
    Preprocessing preprocessing,
    LearnerConfig learner,
    HelmetPrivacy privacy,
    SecureSummation summation,
    NoiseKind noise,
    int ringBits,
    long seed,
    int threads,
    boolean reference) {
  public HelmetJob {
    Checks.notNull("training data", train);
    Checks.notNull("test data", test);
    Checks.notNull("partition", partition);
    Checks.notNull("preprocessing", preprocessing);
    Checks.notNull("learner", learner);
    Checks.notNull("privacy", privacy);
    Checks.notNull("summation", summation);
    Checks.notNull("noise", noise);
    Checks.positive("threads", threads);
    if (train.dimension() != test.dimension()) {
      throw new IllegalArgumentException("training data has " + train.dimension() + " features but test data has "
          + test.dimension());
    }
    if (!train.labelSet().equals(test.labelSet())) {
      throw new IllegalArgumentException("training and test data have different label sets: "
          + train.labelSet() + " vs " + test.labelSet());
    }
  }
}
