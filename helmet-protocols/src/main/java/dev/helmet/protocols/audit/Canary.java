package dev.helmet.protocols.audit;

import dev.helmet.core.data.Dataset;
import dev.helmet.core.partition.Partition;
import dev.helmet.protocols.algorithm.AlgorithmSpec;

/**
 * A way to build a neighbouring pair designed to be told apart, for the algorithms it applies to.
 *
 * <p>Canaries are registered as services ({@code META-INF/services/dev.helmet.protocols.audit.Canary},
 * one line each; {@link Canaries}): the generic ones apply to every algorithm whose relation they
 * fit, and an algorithm's package registers the ones made against its own release (a fixed-size
 * batch, a public projection), so a new algorithm brings its own canaries or inherits the generic
 * ones without a change to the audit.
 */
public interface Canary {
  /** Its name on the command line and in reports ({@code input-mirror}). */
  String id();

  /** One line: what the pair is and why it is hard. */
  String description();

  /**
   * Why it does not apply to {@code spec} (its relation, its learner, its release), or null when it
   * does.
   */
  String notApplicable(AlgorithmSpec spec);

  /**
   * The pair, from public-shaped data: {@code data} split as {@code partition}, D and D' differing as
   * {@code spec}'s neighbouring relation allows.
   */
  NeighbourPair pair(AlgorithmSpec spec, Dataset data, Partition partition);

  /** The test statistic the audit fixes before its scored trials; by default the projection on the pilot direction. */
  default Statistic statistic() {
    return Statistic.PROJECTION;
  }
}
