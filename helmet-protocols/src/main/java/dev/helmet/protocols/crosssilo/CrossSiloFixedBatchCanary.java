package dev.helmet.protocols.crosssilo;

import dev.helmet.core.data.Dataset;
import dev.helmet.core.partition.Partition;
import dev.helmet.core.util.Checks;
import dev.helmet.protocols.algorithm.AlgorithmSpec;
import dev.helmet.protocols.audit.Canary;
import dev.helmet.protocols.audit.NeighbourPair;

/**
 * The fixed-size-batch canary for cross-silo's sampling without replacement (Lebeda, Regehr, Kamath
 * and Steinke, "Avoiding pitfalls for privacy accounting of subsampled mechanisms under
 * composition", 2024; privacy review turn 3, finding 1).
 *
 * <p>Every record of both data sets is the same row z; in D every one is labelled 1 (the record
 * x'), and D' relabels one of them 0 (the record x: replace-one). For two classes the loss
 * gradients of (z, 0) and (z, 1) point in exactly opposite directions at every model, softmax or
 * MLP (both are J(z)^T (p - e_y), and p - e_0 = -(p_1 / p_0) (p - e_1)), so where both are clipped
 * g(x) = C u = -g(x'). A batch has a fixed size b: under D each step sums b g(x') whatever the
 * batch, under D' it sums b g(x') + 2 C u when x is drawn (probability b / n) and b g(x')
 * otherwise. Each step is then exactly (1 - q) N(0, s^2) + q N(2C, s^2) against N(0, s^2), the
 * add-or-remove Poisson pair at twice the clip, not the +-C replace-one pair that Poisson sampling
 * attains. The heavier shift sits on D', the side whose rare outputs the audit's bound counts
 * ({@link dev.helmet.privacy.audit.EpsilonLowerBound} bounds P[D' in S] / P[D in S]); the relation
 * is symmetric, so the naming changes nothing about what is audited.
 *
 * <p>Because the pair needs the whole data set to be copies of one row, {@link #pair} does not use
 * the given data's values: it builds two synthetic data sets of its shape (its size, features,
 * classes, and the given partition's rows per party). z has every feature equal, at norm 2 c (c
 * the preprocessing's clip bound), so the learner input has norm c whether the preprocessing
 * normalises or clips, and gradients are large against a small clip; how small the clip must be for
 * both gradients to stay clipped at the models a run reaches depends on the run (the audit's test
 * says what it configured). With more than two classes the two gradients are no longer opposite
 * and the pair is weaker.
 */
public final class CrossSiloFixedBatchCanary implements Canary {
  /** Its id. */
  public static final String ID = "crosssilo-fixed-batch";

  @Override
  public String id() {
    return ID;
  }

  @Override
  public String description() {
    return "synthetic data of the given shape, every record the same row labelled 1; D' relabels one of them 0, "
        + "so each fixed-size batch sums the same gradients except when that record is drawn (replace-one)";
  }

  @Override
  public String notApplicable(AlgorithmSpec spec) {
    if (!(spec instanceof CrossSiloSpec s)) {
      return spec.algorithm().id().equals(CrossSiloAlgorithm.ID)
          ? "it reads cross-silo's own settings; this spec wraps them (" + spec.getClass().getName() + ")"
          : "it audits cross-silo's fixed-size batches; the algorithm is " + spec.algorithm().id();
    }
    if (s.config().swor() == null) {
      return "it needs fixed-size batches (crosssilo.sampling swor); the run samples each record by Poisson, whose "
          + "replace-one pair is the one accounted";
    }
    return null;
  }

  @Override
  public NeighbourPair pair(AlgorithmSpec spec, Dataset data, Partition partition) {
    String why = notApplicable(spec);
    Checks.require(why == null, "canary " + ID + " does not apply: " + why);
    Checks.require(data.numClasses() >= 2, "the canary relabels a record; the data has " + data.numClasses()
        + " class");
    int n = data.size();
    int p = data.dimension();
    float v = (float) (2 * spec.preprocessing().clipBound() / Math.sqrt(p));
    float[] values = new float[n * p];
    java.util.Arrays.fill(values, v);
    int[] labels = new int[n];
    java.util.Arrays.fill(labels, 1);
    Dataset d = new Dataset(data.name() + " shape, all records one row labelled 1", values, labels, p,
        data.labelSet(), null);
    int row = partition.indices(0)[0];
    float[] z = new float[p];
    java.util.Arrays.fill(z, v);
    NeighbourPair relabelled = NeighbourPair.replaceOne(d, partition, row, z, 0);
    return new NeighbourPair(d, relabelled.neighbour(), partition, "synthetic " + n + " x " + p + " data of "
        + data.name() + "'s shape, every record one row labelled 1; row " + row + " (party 0) relabelled 0");
  }
}
