package dev.helmet.protocols.algorithm;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.helmet.core.learn.LearnerConfig;
import dev.helmet.core.learn.LearnerKind;
import dev.helmet.core.preprocess.DesignMatrix;
import dev.helmet.core.preprocess.Preprocessing;

/** An algorithm with its settings read and checked: everything public before the roster. */
public interface AlgorithmSpec {
  Algorithm algorithm();

  /** The common settings it was configured with. */
  Common common();

  /**
   * Its settings in canonical form: a configuration mapping that {@link Algorithm#configure} reads
   * back to an equal spec (every default filled in). This is what a coordinator publishes.
   */
  ObjectNode toConfig();

  /** The public preprocessing every party applies to its rows. */
  Preprocessing preprocessing();

  /**
   * The kind of model the run releases (softmax, SVM, logistic or linear regression, MLP): what
   * prediction and the model file need to know about it. The algorithm's own settings are {@link
   * #toConfig}, which the model file records beside it.
   */
  LearnerKind modelKind();

  /** The summations the run takes (public before the roster: a party bounds its rounds by it). */
  int rounds();

  /** The length of every input vector (public before the roster: it bounds message sizes). */
  int length();

  /**
   * The number of parameters of the model the run releases (public before the roster: a
   * participant bounds and checks the released model it is sent by it). By default the inputs are
   * the model's parameters; an algorithm whose inputs are padded or projected overrides this.
   */
  default int modelParameters() {
    return length();
  }

  /** Its settings in one line for people ("softmax, Lambda 0.5, R 2, 50 epochs, ..."). */
  String describe();

  /** What a participant's policy checks. */
  Terms terms();

  /**
   * The neighbouring relation of the guarantee these settings give. Under replace-one neighbours
   * every party's size is public (neighbours keep it), so a plan may use the sizes; under
   * add-or-remove the sizes are private: nothing released may carry or depend on a count of the
   * records, a participant claims the session's public bound instead of its size, and every
   * normaliser must be public configuration (docs/privacy.md). Replace-one by default.
   */
  default dev.helmet.privacy.event.NeighbourRelation neighbours() {
    return dev.helmet.privacy.event.NeighbourRelation.REPLACE_ONE;
  }

  /**
   * Whether the plan's public parameters (e.g. the summation's fixed-point encoding, sized for the
   * largest party's clipped sum) are computed from the parties' sizes. Where the sizes are private
   * ({@link #sizesPrivate}), those sizes must then be fixed by public configuration (over the
   * network: the public max_points every party claims; in process: --per-party), or the plan would
   * be a function of a private count (privacy review turn 3, finding 3).
   */
  default boolean planDependsOnSizes() {
    return false;
  }

  /** Whether the record counts are private under these settings' guarantee (add-or-remove neighbours). */
  default boolean sizesPrivate() {
    return neighbours() == dev.helmet.privacy.event.NeighbourRelation.ADD_OR_REMOVE_ONE;
  }

  /**
   * Why these settings cannot run over the network (a step that exists only in process), or null
   * when they can. A coordinator refuses such a session at start and a participant at joining,
   * rather than after enrolment.
   */
  default String notNetworked() {
    return null;
  }

  /**
   * Why these settings cannot run on a distributed simulation engine, whose workers each rebuild the
   * public plan from the settings and the roster (a plan drawn from fresh randomness, such as an
   * in-process setup, would differ between workers), or null when they can.
   */
  default String notDistributed() {
    return null;
  }

  /**
   * Why no roster of {@code parties} parties with {@code minContributors} contributors per round
   * admits a plan, whatever the parties' sizes (no honest contributor is guaranteed, say), with the
   * fix; null if some may. A coordinator refuses such a session at start and {@code train} before it
   * trains, instead of after everyone trained and enrolled.
   */
  default String rosterProblem(int parties, int minContributors) {
    return null;
  }

  /**
   * Why a networked session of {@code parties} parties, each claiming up to {@code maxPoints}
   * records (the session's public max_points), could need a {@link PublicPlan#setup} that a board
   * cannot carry ({@link Setup#MAX_POST_BYTES}) or that needs more memory per party than the
   * setup's public bound, with the fix; null if no roster the session admits can. A setup whose
   * posts grow with the parties' claims is sized for the worst roster (every party claiming
   * max_points), since one party's claim costs every other party memory and work (security review
   * turn 3, T3-11). Checked when a session is validated, by the coordinator at start and by each
   * participant at joining, before anyone trains.
   */
  default String setupProblem(int parties, long maxPoints) {
    return null;
  }

  /**
   * A party's work before the roster, on its own preprocessed rows (Helmet: its local training).
   * It must not depend on the privacy target (eps, delta, t): a party prepares once, and
   * experiments reuse one preparation across privacy levels.
   *
   * @param seed seeds its local shuffles (not its noise, which is always fresh)
   */
  Local prepare(DesignMatrix data, long seed);

  /**
   * As {@link #prepare(DesignMatrix, long)}, reporting its progress (Helmet: its local training's
   * epochs) where the algorithm can; by default it reports nothing.
   */
  default Local prepare(DesignMatrix data, long seed, dev.helmet.core.util.Progress progress) {
    return prepare(data, seed);
  }

  /**
   * The public plan for a roster, for parties drawing secure noise.
   *
   * @param sizes every party's number of records, in roster order (public)
   * @param minContributors the fewest contributors a round may sum
   * @throws IllegalArgumentException if no plan meets the target with this roster, saying why
   */
  default PublicPlan plan(int[] sizes, int minContributors) {
    return plan(sizes, minContributors, true);
  }

  /**
   * As {@link #plan(int[], int)}; {@code secureNoise} false only in tests that seed the noise (the
   * ledger then says so).
   */
  PublicPlan plan(int[] sizes, int minContributors, boolean secureNoise);

  /**
   * The non-private centralized counterpart of this algorithm on the pooled rows of all parties,
   * for the report's reference line: what the algorithm would fit with no noise and no split
   * ({@link Reference#ofLearner} trains a local learner on the pooled rows until it settles).
   *
   * @param pooled every party's preprocessed rows together
   * @param rng the learner's shuffles
   */
  Reference reference(DesignMatrix pooled, java.util.SplittableRandom rng);

  /**
   * The training objective {@code L_D} whose optimality gap {@code L_D(theta) - L_D(theta*)} the
   * runners report on the pooled data ({@link OptimalityGap}), or null when the algorithm reports
   * none (by default).
   */
  default dev.helmet.core.learn.NoisyDescent objective() {
    return null;
  }

  /** A reference model, what it is in words, and the epochs it took (0 when not epoch-based). */
  record Reference(dev.helmet.core.learn.Model model, String description, int epochs) {
    /** Stop once an epoch changes the model by less than 0.1 % of its norm. */
    public static final double TOLERANCE = 1e-3;

    /** The learner {@code config} on the pooled rows, described as {@code (what, settled after E of M epochs)}. */
    public static Reference ofLearner(LearnerConfig config, Preprocessing pre, DesignMatrix pooled,
        java.util.SplittableRandom rng, String what) {
      dev.helmet.core.learn.Learner learner = new dev.helmet.core.learn.Learner(config, pre.inputNormBound(),
          pooled.cols() - 1, pooled.numClasses());
      dev.helmet.core.learn.Learner.Fit fit = learner.trainUntilSettled(pooled, rng, TOLERANCE);
      return new Reference(fit.model(), "non-private centralized (" + what + ", settled after " + fit.epochs()
          + " of " + config.epochs() + " epochs) on the pooled data", fit.epochs());
    }

    /** {@code v} as people write it: 0.5, 2, 1e-05 as 0.00001. */
    public static String num(double v) {
      return java.math.BigDecimal.valueOf(v).stripTrailingZeros().toPlainString();
    }
  }
}
