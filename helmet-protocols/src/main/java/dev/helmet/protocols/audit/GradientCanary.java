package dev.helmet.protocols.audit;

import dev.helmet.core.data.Dataset;
import dev.helmet.core.partition.Partition;
import dev.helmet.privacy.event.NeighbourRelation;
import dev.helmet.protocols.algorithm.AlgorithmSpec;

/**
 * The gradient canary (replace-one): party 0's first record replaced by a {@link DiracRecord}, a
 * record of one feature at full norm c after the public preprocessing and a label the data makes
 * unlikely, so that its per-example gradient is clipped to full norm C at every model the run
 * visits and, for a linear model, points along nearly one direction: {@code (p - e_y) [1, +-c
 * e_j]^T}, whose input part is fixed and whose class part stays near {@code -e_y} while p_y is small
 * (Nasr et al. 2021, "adversary instantiation", the Dirac canary; Jagielski, Ullman and Oprea 2020,
 * input-space canaries for DP-SGD).
 *
 * <p>Where it is hard:
 * <ul>
 *   <li>DP-SGD with per-example clipping (dp-fl; cross-silo's clipped sums): every round the
 *       record is sampled, D' adds the canary's clipped gradient, of norm C, where D has the
 *       replaced record's, so the sum moves by up to 2C, the replace-one sensitivity, and the final
 *       model moves along about one direction by {@code lr / B} times that per sampled round.
 *       Column j is the one the other records use least, so later steps undo little of it.</li>
 *   <li>Full-batch noisy descent without per-example clipping (wd-dp): the noise is sized for
 *       {@code 2G / n} with {@code G = sqrt(2) c'} (softmax) or {@code c'} (logistic), which a record
 *       attains only where the model is confidently wrong about it; the canary moves each step by
 *       {@code |(p - e_y) - (p_r - e_r)| c' / n}, about {@code 1 / sqrt 2} of the bound near the
 *       start, so the attained shift stays under the accounted one.</li>
 *   <li>An MLP (dp-fl's mlp, smm): the clipped gradient still has norm C, but its direction changes
 *       with the hidden layer, so the shift adds up less than linearly over the rounds.</li>
 *   <li>One-shot local training (helmet): a record of full norm c against the strongly convex local
 *       objective, as the input mirror; no better than it.</li>
 * </ul>
 * Under add-or-remove neighbours the same record is added instead ({@link AddOneCanary}).
 */
public final class GradientCanary implements Canary {
  @Override
  public String id() {
    return "gradient";
  }

  @Override
  public String description() {
    return "party 0's first record replaced by a record of one feature at full norm c and a rare label, whose "
        + "clipped gradient has norm C in about one direction every round (replace-one)";
  }

  @Override
  public String notApplicable(AlgorithmSpec spec) {
    if (spec.neighbours() != NeighbourRelation.REPLACE_ONE) {
      return "its pair replaces a record; the guarantee is under " + spec.neighbours().id() + " neighbours (the "
          + "add-one canary adds the same record)";
    }
    return classification(spec);
  }

  @Override
  public NeighbourPair pair(AlgorithmSpec spec, Dataset data, Partition partition) {
    int row = partition.indices(0)[0];
    DiracRecord canary = DiracRecord.of(spec, data, data.label(row));
    NeighbourPair p = NeighbourPair.replaceOne(data, partition, row, canary.features(), canary.label());
    return new NeighbourPair(p.data(), p.neighbour(), p.partition(), "row " + row + " of party 0 replaced by a "
        + "gradient canary (" + canary.describe() + ")");
  }

  /** Why a canary that sets a class label does not apply to {@code spec}, or null. */
  static String classification(AlgorithmSpec spec) {
    return spec.common().regression() ? "its record's gradient is set by a class label; the data has numeric "
        + "targets (regression)" : null;
  }
}
