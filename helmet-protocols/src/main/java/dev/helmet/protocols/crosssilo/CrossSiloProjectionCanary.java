package dev.helmet.protocols.crosssilo;

import dev.helmet.core.data.Dataset;
import dev.helmet.core.learn.LearnerKind;
import dev.helmet.core.partition.Partition;
import dev.helmet.core.preprocess.DesignMatrix;
import dev.helmet.core.util.Checks;
import dev.helmet.privacy.mechanism.GaussianProjection;
import dev.helmet.protocols.algorithm.AlgorithmSpec;
import dev.helmet.protocols.audit.Canary;
import dev.helmet.protocols.audit.NeighbourPair;
import dev.helmet.protocols.dpsgd.DpSgdModel;

/**
 * The public-projection canary for cross-silo's {@code projection_dim k} (privacy review turn 3,
 * finding 2): a record crafted against round 0's projection P_0, whose seed is public and fixed
 * before the data, as is the softmax model's start (zero).
 *
 * <p>At theta = 0 every class has probability 1/K, so the gradient of a record (x, y) is
 * (1/K - e_y) (x) [1, x]: linear in the learner input. Its part in x is v (x) x with v = 1/K - e_y,
 * and P_0^T maps it to A x, A the k x p matrix with columns P_0^T (v (x) e_j). The crafted x is
 * c u, u A's top right-singular vector (c the preprocessing's clip bound, so the input is at the
 * bound): ||A u|| / ||v|| is about 1 + sqrt(p / k), where a record drawn independently of P_0
 * stays near 1 and below r(k, delta') but with probability delta'. D holds it with label 0, D'
 * holds its mirror -c u with the same label (replace-one, party 0's first row): their gradients
 * differ by v (x) [0, 2 c u], all of it along P_0's top direction. A release that projects the
 * sum of clipped gradients moves by ||P_0^T (g - g')|| = 2 c ||A u||, beyond the 2 C~ its noise is
 * sized for whenever the ratio beats r; one that clips each record's projection to C~ moves by at
 * most 2 C~. Only round 0 is crafted: later rounds have other P_t and other models.
 */
public final class CrossSiloProjectionCanary implements Canary {
  /** Its id. */
  public static final String ID = "crosssilo-public-projection";
  /** Power iterations on A A^T (k x k): many more than the gap needs for the k of a test. */
  private static final int ITERATIONS = 2000;

  /**
   * The crafted record.
   *
   * @param features its features, c u (the mirror record is -c u)
   * @param label its label (and the mirror's)
   * @param projectedRatio ||P_0^T g|| / ||g|| for its gradient g at the start, computed through the
   *     model's own gradient and the run's own P_0
   * @param clipRatio r(k, delta') = C~ / C, the ratio the noise is sized for
   * @param projectedClip C~
   * @param gradientNorm ||g|| before clipping to C
   */
  public record Crafted(float[] features, int label, double projectedRatio, double clipRatio, double projectedClip,
      double gradientNorm) {}

  @Override
  public String id() {
    return ID;
  }

  @Override
  public String description() {
    return "party 0's first record replaced by a record crafted along the public round-0 projection's top "
        + "direction, against its mirror image with the same label (replace-one; softmax model at its public start)";
  }

  @Override
  public String notApplicable(AlgorithmSpec spec) {
    if (!(spec instanceof CrossSiloSpec s)) {
      return spec.algorithm().id().equals(CrossSiloAlgorithm.ID)
          ? "it reads cross-silo's own settings; this spec wraps them (" + spec.getClass().getName() + ")"
          : "it crafts a record against cross-silo's public projection; the algorithm is " + spec.algorithm().id();
    }
    if (s.config().projection() == 0) {
      return "it needs a projection (crosssilo.projection, --projection-dim k > 0); the run sends whole gradients";
    }
    if (s.model().kind() != LearnerKind.SOFTMAX) {
      return "it crafts the record from the softmax model's gradient at its start (linear in the input); the "
          + "learner is " + s.model().kind().id();
    }
    if (spec.preprocessing().scaling() != null) {
      return "it crafts the record in the learner's input space; per-feature bounds (learner.feature_bounds) would "
          + "move it";
    }
    return null;
  }

  @Override
  public NeighbourPair pair(AlgorithmSpec spec, Dataset data, Partition partition) {
    Crafted c = craft(spec, partition);
    int row = partition.indices(0)[0];
    float[] mirror = new float[c.features().length];
    for (int j = 0; j < mirror.length; j++) {
      mirror[j] = -c.features()[j];
    }
    Dataset d = NeighbourPair.replaceOne(data, partition, row, c.features(), c.label()).neighbour();
    Dataset n = NeighbourPair.replaceOne(d, partition, row, mirror, c.label()).neighbour();
    return new NeighbourPair(d, n, partition, "row " + row + " (party 0) crafted along P_0's top direction "
        + "(projected ratio " + String.format(java.util.Locale.ROOT, "%.3f", c.projectedRatio()) + " against r "
        + String.format(java.util.Locale.ROOT, "%.3f", c.clipRatio()) + "), against its mirror image, label "
        + c.label());
  }

  /** The record crafted against {@code spec}'s round-0 projection, for the parties of {@code partition}. */
  public Crafted craft(AlgorithmSpec spec, Partition partition) {
    String why = notApplicable(spec);
    Checks.require(why == null, "canary " + ID + " does not apply: " + why);
    CrossSiloSpec s = (CrossSiloSpec) spec;
    int[] sizes = new int[partition.count()];
    for (int i = 0; i < sizes.length; i++) {
      sizes[i] = partition.size(i);
    }
    // The run's own plan, for its P_0 and C~ (the calibration is memoised: the audit's runs reuse it).
    CrossSiloPlan plan = new CrossSiloPlan(s.config(), s.model(), sizes, sizes.length, spec.common().epsilon(),
        spec.common().delta(), spec.common().ringBits(), spec.common().honestFraction());
    GaussianProjection p0 = plan.projection(0);
    DpSgdModel model = s.model();
    int p = spec.common().features();
    int k = p0.projectedDimension();
    int label = 0;
    double[] theta = model.start();
    // Column j of A: P_0^T of the gradient's change when feature j of the input goes from 0 to 1.
    double[][] cols = new double[k][];
    for (int c = 0; c < k; c++) {
      cols[c] = p0.column(c);
    }
    double[] base = gradient(model, theta, new double[p], label);
    double[][] a = new double[k][p];
    for (int j = 0; j < p; j++) {
      double[] x = new double[p];
      x[j] = 1;
      double[] g = gradient(model, theta, x, label);
      for (int c = 0; c < k; c++) {
        double sum = 0;
        for (int i = 0; i < g.length; i++) {
          sum += cols[c][i] * (g[i] - base[i]);
        }
        a[c][j] = sum;
      }
    }
    double[] u = topRightSingular(a, p);
    double bound = spec.preprocessing().clipBound();
    // Just inside the clip bound, so the preprocessing leaves it as crafted (up to float rounding).
    double scale = bound * (1 - 1e-6);
    float[] features = new float[p];
    double[] x = new double[p];
    for (int j = 0; j < p; j++) {
      features[j] = (float) (scale * u[j]);
      x[j] = features[j];
    }
    double[] g = gradient(model, theta, x, label);
    double norm = norm(g);
    double projected = norm(p0.project(g));
    return new Crafted(features, label, projected / norm, plan.clipRatio(), plan.projectedClip(), norm);
  }

  /** The unclipped loss gradient of the learner input [1, x] with {@code label} at theta. */
  private static double[] gradient(DpSgdModel model, double[] theta, double[] x, int label) {
    double[] row = new double[x.length + 1];
    row[0] = 1;
    System.arraycopy(x, 0, row, 1, x.length);
    DesignMatrix m = DesignMatrix.dense(row, new int[] {label}, 1, row.length, model.classes());
    double[] g = new double[model.length()];
    model.addClippedGradients(model.records(m), theta, Double.MAX_VALUE, new int[] {0}, g);
    return g;
  }

  /**
   * The unit right-singular vector of the top singular value of {@code a} (k x p): A^T w for w the
   * top eigenvector of A A^T, by power iteration from a fixed start (so the canary is the same
   * every time).
   */
  private static double[] topRightSingular(double[][] a, int p) {
    int k = a.length;
    double[][] gram = new double[k][k];
    for (int i = 0; i < k; i++) {
      for (int j = 0; j < k; j++) {
        double s = 0;
        for (int l = 0; l < p; l++) {
          s += a[i][l] * a[j][l];
        }
        gram[i][j] = s;
      }
    }
    double[] w = new double[k];
    java.util.SplittableRandom r = new java.util.SplittableRandom(49);
    for (int i = 0; i < k; i++) {
      w[i] = r.nextGaussian();
    }
    for (int it = 0; it < ITERATIONS; it++) {
      double[] next = new double[k];
      for (int i = 0; i < k; i++) {
        double s = 0;
        for (int j = 0; j < k; j++) {
          s += gram[i][j] * w[j];
        }
        next[i] = s;
      }
      double n = norm(next);
      Checks.require(n > 0, "the projection of the input's gradient vanished");
      for (int i = 0; i < k; i++) {
        w[i] = next[i] / n;
      }
    }
    double[] u = new double[p];
    for (int l = 0; l < p; l++) {
      double s = 0;
      for (int i = 0; i < k; i++) {
        s += a[i][l] * w[i];
      }
      u[l] = s;
    }
    double n = norm(u);
    for (int l = 0; l < p; l++) {
      u[l] /= n;
    }
    return u;
  }

  private static double norm(double[] v) {
    double s = 0;
    for (double x : v) {
      s += x * x;
    }
    return Math.sqrt(s);
  }
}
