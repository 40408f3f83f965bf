package dev.helmet.protocols.dpsgd;

import dev.helmet.core.learn.LearnerKind;
import dev.helmet.core.learn.LinearModel;
import dev.helmet.core.learn.Model;
import dev.helmet.core.nn.Adam;
import dev.helmet.core.nn.Examples;
import dev.helmet.core.nn.Mlp;
import dev.helmet.core.nn.MlpModel;
import dev.helmet.core.nn.Optimiser;
import dev.helmet.core.preprocess.DesignMatrix;
import dev.helmet.core.util.Checks;
import dev.helmet.privacy.noise.RandomBits;
import dev.helmet.protocols.algorithm.Local;
import java.util.Arrays;

/**
 * What the DP-SGD algorithms (dp-fl, cross-silo) train and how the server updates it: the softmax single-layer perceptron (the Helmet
 * papers' baseline, starting at zero) or a multi-layer perceptron ({@link Mlp}: ReLU hidden layers,
 * softmax cross-entropy output, starting from {@link Mlp#initialise(long)} of a public seed), moved
 * by SGD or by Adam (Kingma and Ba, ICLR 2015) along the round's noisy mean clipped gradient.
 *
 * <p>The privacy analysis is the same for both models: each sampled record contributes its own
 * gradient clipped to L2 norm at most C (for the MLP with the conservative margin of {@link
 * Mlp#CLIP_SLACK}; a record whose gradient is not finite contributes nothing), so adding or removing
 * one record changes a round's sum by at most C in L2 whatever the model and its parameters. The
 * initial model depends on no data, and the optimiser only post-processes the released noisy sums
 * (its state is a function of them), so neither costs privacy.
 */
public final class DpSgdModel {
  /** The server's update rule. */
  public enum Optimizer {
    /** {@code theta -= lr * sum / B}: today's rule, stateless. */
    SGD("sgd"),
    /** Adam with the paper's defaults (beta1 0.9, beta2 0.999, eps 1e-8) on {@code sum / B}. */
    ADAM("adam");

    private final String id;

    Optimizer(String id) {
      this.id = id;
    }

    public String id() {
      return id;
    }

    public static Optimizer parse(String s) {
      for (Optimizer o : values()) {
        if (o.id.equalsIgnoreCase(s.trim())) {
          return o;
        }
      }
      throw new IllegalArgumentException("must be sgd or adam. Provided value: " + s);
    }
  }

  /** Sampled records per forward pass of the MLP, to bound its scratch memory. */
  private static final int MLP_CHUNK = 256;

  private final Mlp net;
  private final int classes;
  private final int cols;
  private final Optimizer optimizer;
  private final long startSeed;

  private DpSgdModel(Mlp net, int classes, int cols, Optimizer optimizer, long startSeed) {
    this.net = net;
    this.classes = classes;
    this.cols = cols;
    this.optimizer = Checks.notNull("optimizer", optimizer);
    this.startSeed = startSeed;
  }

  /**
   * The softmax model of {@code classes x cols} weights (cols: the features plus the intercept),
   * starting at zero.
   */
  public static DpSgdModel softmax(int classes, int cols, Optimizer optimizer) {
    Checks.require(classes >= 2, "classes must be >= 2. Provided value: " + classes);
    Checks.positive("cols", cols);
    Checks.require((long) classes * cols < Integer.MAX_VALUE - 8, "a softmax model of " + classes + " x " + cols
        + " weights is larger than one array holds");
    return new DpSgdModel(null, classes, cols, optimizer, 0);
  }

  /** The MLP {@code net} (its inputs: the features, without the intercept), starting from {@code startSeed}. */
  public static DpSgdModel mlp(Mlp net, Optimizer optimizer, long startSeed) {
    Checks.notNull("net", net);
    return new DpSgdModel(net, net.classes(), net.inputs() + 1, optimizer, startSeed);
  }

  /** {@link LearnerKind#SOFTMAX} or {@link LearnerKind#MLP}. */
  public LearnerKind kind() {
    return net == null ? LearnerKind.SOFTMAX : LearnerKind.MLP;
  }

  /** The MLP, or null for the softmax model. */
  public Mlp net() {
    return net;
  }

  public Optimizer optimizer() {
    return optimizer;
  }

  /** The public seed of the MLP's initial parameters (unused by the softmax model, which starts at zero). */
  public long startSeed() {
    return startSeed;
  }

  /** The number of classes. */
  public int classes() {
    return classes;
  }

  /** The design matrix's columns it reads (the features plus the intercept). */
  public int cols() {
    return cols;
  }

  /** The length of the parameter vector, the length of every round's input. */
  public int length() {
    return net == null ? classes * cols : net.parameterCount();
  }

  /** The public initial parameters: zero for the softmax model, the MLP's seeded initialisation. */
  public double[] start() {
    return net == null ? new double[length()] : net.initialise(startSeed);
  }

  /** The model with parameters {@code params} (copied). */
  public Model model(double[] params) {
    Checks.require(params.length == length(), "a model of " + params.length + " values; this one has " + length());
    return net == null ? new LinearModel(classes, cols, params.clone()) : new MlpModel(net, params.clone());
  }

  /** A fresh state of the server's update rule with step size {@code learningRate}, for Adam; null for SGD. */
  public Optimiser.State adam(double learningRate) {
    return optimizer == Optimizer.ADAM ? new Adam(learningRate).start(length()) : null;
  }

  /** The model in a few words: {@code softmax} or {@code MLP 64-80-10 (5210 parameters)}. */
  public String describe() {
    return net == null ? "softmax" : "MLP " + net + " (" + net.parameterCount() + " parameters)";
  }

  /**
   * A party's preprocessed rows as the model reads them: the design matrix, and for the MLP the
   * same rows without the intercept ({@link Examples#of}, built once, not per round).
   */
  public record Records(DesignMatrix design, Examples examples) implements Local {
    @Override
    public int size() {
      return design.rows();
    }
  }

  /** A party's rows for this model. */
  public Records records(DesignMatrix design) {
    Checks.require(design.cols() == cols, "rows of " + design.cols() + " columns; the model reads " + cols);
    return new Records(design, net == null ? null : Examples.of(design));
  }

  /**
   * Adds to {@code g} the sum over a Poisson sample (rate q, drawn from {@code rng}) of the party's
   * records of their loss gradients at {@code params}, each clipped to L2 norm at most {@code clip}.
   */
  public void addClippedGradients(Records local, double[] params, double clip, double q, RandomBits rng, double[] g) {
    addClippedGradients(local, params, clip, poissonSample(local.size(), q, rng), g);
  }

  /**
   * Adds to {@code g} the sum over the records {@code sample} (indices into the party's rows) of
   * their loss gradients at {@code params}, each clipped to L2 norm at most {@code clip}.
   */
  public void addClippedGradients(Records local, double[] params, double clip, int[] sample, double[] g) {
    if (net == null) {
      ClippedGradients.add(local.design(), params, classes, clip, sample, g);
      return;
    }
    for (int from = 0; from < sample.length; from += MLP_CHUNK) {
      int[] chunk = Arrays.copyOfRange(sample, from, Math.min(sample.length, from + MLP_CHUNK));
      net.clippedGradientSum(params, local.examples(), chunk, clip, g);
    }
  }

  /**
   * Hands each record of {@code sample}'s loss gradient at {@code params}, clipped to L2 norm at
   * most {@code clip} (the same factors and margin as {@link #addClippedGradients}), to {@code
   * sink}, one at a time in sample order (the buffer is reused: copy what you keep). For mechanisms
   * that transform each record's gradient before summing, as cross-silo's projection does.
   */
  public void clippedGradients(Records local, double[] params, double clip, int[] sample, Mlp.GradientSink sink) {
    if (net != null) {
      net.clippedGradients(params, local.examples(), sample, clip, sink);
      return;
    }
    double[] g = new double[length()];
    int[] one = new int[1];
    for (int j = 0; j < sample.length; j++) {
      Arrays.fill(g, 0);
      one[0] = sample[j];
      ClippedGradients.add(local.design(), params, classes, clip, one, g);
      sink.accept(j, g);
    }
  }

  /**
   * A Poisson sample of {@code rows} records at rate q from {@code rng} (the party's secret bits):
   * the indices, ascending.
   */
  public static int[] poissonSample(int rows, double q, RandomBits rng) {
    return ClippedGradients.sample(rows, q, rng);
  }

  /**
   * The server's update on a round's summed clipped gradients {@code sum} and public normaliser B:
   * {@code theta -= (lr / B) sum} without a stateful rule, or {@code optimiser} (Adam) on {@code
   * sum / B}.
   */
  public static void descend(Optimiser.State optimiser, double[] theta, double[] sum, double normaliser,
      double learningRate) {
    Checks.require(sum.length == theta.length, "sum of length " + sum.length + ", model of " + theta.length);
    if (optimiser == null) {
      double scale = learningRate / normaliser;
      for (int j = 0; j < theta.length; j++) {
        theta[j] -= scale * sum[j];
      }
      return;
    }
    double[] g = new double[sum.length];
    for (int j = 0; j < g.length; j++) {
      g[j] = sum[j] / normaliser;
    }
    optimiser.update(theta, g);
  }

  /**
   * The non-private counterpart of a DP-SGD run on the pooled rows: the same start and update rule
   * for {@code rounds} steps of q N records drawn with replacement, each record's gradient clipped
   * to {@code clip} as in the run (the learning rate was chosen for clipped gradients) but no noise.
   */
  public dev.helmet.protocols.algorithm.AlgorithmSpec.Reference noiselessReference(DesignMatrix pooled, double clip,
      double q, int rounds, double learningRate, java.util.SplittableRandom rng) {
    return noiselessReference(pooled, clip, q, Double.NaN, rounds, learningRate, rng);
  }

  /**
   * As above with batches of the public {@code expectedBatch} records when it is a number (add-or-remove
   * neighbours, where the number of records is private and the description must not carry q N).
   */
  public dev.helmet.protocols.algorithm.AlgorithmSpec.Reference noiselessReference(DesignMatrix pooled, double clip,
      double q, double expectedBatch, int rounds, double learningRate, java.util.SplittableRandom rng) {
    Records x = records(pooled);
    double[] params = start();
    Optimiser.State adam = adam(learningRate);
    int batch = (int) Math.max(1, Math.min(Integer.MAX_VALUE,
        Math.round(Double.isNaN(expectedBatch) ? q * x.size() : expectedBatch)));
    double[] g = new double[params.length];
    int[] idx = new int[batch];
    for (int t = 0; t < rounds; t++) {
      for (int j = 0; j < batch; j++) {
        idx[j] = rng.nextInt(x.size());
      }
      Arrays.fill(g, 0);
      if (net != null) {
        net.clippedGradientSum(params, x.examples(), idx, clip, g);
      } else {
        ClippedGradients.add(x.design(), params, classes, clip, idx, g);
      }
      double scale = (adam == null ? learningRate : 1.0) / batch;
      for (int j = 0; j < g.length; j++) {
        g[j] *= scale;
      }
      if (adam == null) {
        for (int j = 0; j < g.length; j++) {
          params[j] -= g[j];
        }
      } else {
        adam.update(params, g);
      }
    }
    return new dev.helmet.protocols.algorithm.AlgorithmSpec.Reference(model(params), "non-private centralized (the "
        + "same " + describe() + ", " + optimizer.id() + ", " + rounds + " steps of " + batch + " records, gradients "
        + "clipped to " + java.math.BigDecimal.valueOf(clip).stripTrailingZeros().toPlainString() + ", no noise) on the "
        + "pooled data", 0);
  }
}
