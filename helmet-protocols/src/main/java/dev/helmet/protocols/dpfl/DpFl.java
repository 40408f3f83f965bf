package dev.helmet.protocols.dpfl;

import dev.helmet.protocols.dpsgd.DpSgdModel;
import dev.helmet.core.util.Checks;
import dev.helmet.core.util.Memo;
import dev.helmet.privacy.accounting.Accountants;
import dev.helmet.privacy.accounting.Calibration;
import dev.helmet.privacy.accounting.PrivacyAccountant;
import dev.helmet.privacy.event.DpEvent;
import dev.helmet.privacy.event.GaussianDpEvent;
import dev.helmet.privacy.event.NeighbourRelation;
import dev.helmet.privacy.event.PoissonSampledDpEvent;
import dev.helmet.privacy.event.SelfComposedDpEvent;
import java.util.function.Supplier;

/**
 * Differentially private federated learning (federated DP-SGD, SPEC 4) of the softmax single-layer
 * perceptron, the baseline both Helmet papers compare against, or of a multi-layer perceptron
 * ({@link DpSgdModel}). Each round every party Poisson-samples its own records with probability q,
 * sums their gradients clipped to L2 norm C, adds its share of the Gaussian noise, and one secure
 * summation adds the parties' vectors; the server divides by the expected batch size (q times the
 * total number of records, public) and takes an SGD (or Adam) step.
 *
 * <p>Privacy: adding or removing one record changes the summed clipped gradient by at most C in
 * L2, so each round is the Poisson-subsampled Gaussian with noise multiplier sigma (noise std sigma C
 * on the sum), composed over the rounds and accounted by RDP or PLD. The noise is split across
 * parties: {@link NoiseSplit#HONEST} (default) so that the honest parties' noise alone has std
 * sigma C (each party adds variance (sigma C)^2 / h, h the guaranteed honest contributors, as in
 * Helmet and the cross-silo paper); {@link NoiseSplit#ALL_TRUSTED}, variance (sigma C)^2 / W per
 * party, which holds only if every party adds its noise; {@link NoiseSplit#SQRT_W_PENALTY}, the
 * Helmet papers' baseline, the full (sigma C)^2 per party.
 */
public final class DpFl {
  private DpFl() {}

  /** How the noise is split across parties. */
  public enum NoiseSplit {
    /** Honest parties alone provide the full noise: variance (sigma C)^2 / h each. */
    HONEST("honest"),
    /** Every party is trusted: variance (sigma C)^2 / W each (as central DP-SGD; no penalty). */
    ALL_TRUSTED("all-trusted"),
    /**
     * The Helmet papers' baseline: every party adds the full (sigma C)^2, so the sum carries sqrt(W)
     * times the central noise (the papers credit DP-FL with "only a sqrt(W) noise penalty").
     */
    SQRT_W_PENALTY("sqrt-w-penalty");

    private final String id;

    NoiseSplit(String id) {
      this.id = id;
    }

    public String id() {
      return id;
    }

    public static NoiseSplit parse(String s) {
      for (NoiseSplit n : values()) {
        if (n.id.equalsIgnoreCase(s)) {
          return n;
        }
      }
      throw new IllegalArgumentException("noise split must be honest, all-trusted or sqrt-w-penalty. Provided value: "
          + s);
    }
  }

  /**
   * A DP-FL run.
   *
   * @param samplingRate q: each record joins a round's batch with this probability
   * @param clip C: per-example gradient L2 bound
   * @param rounds T: SGD steps (one secure summation each)
   * @param learningRate the server's step size
   * @param epsilon target eps over all rounds
   * @param delta target delta
   * @param honestFraction t: the fraction of parties trusted to add their noise
   * @param split how the noise is split
   * @param accountant "rdp" or "pld"
   * @param ringBits summation ring (0: choose)
   * @param neighbours the neighbouring relation the guarantee is stated for: replace-one (as
   *     Helmet's, so the two compare; needs the PLD accountant) or add-or-remove (needs a public
   *     {@code expectedBatch})
   * @param expectedBatch the step's normaliser, a public number: the sum of the round's clipped
   *     gradients is divided by it. NaN under replace-one: q times the contributors' records, which
   *     are public there (neighbours keep every party's size). Under add-or-remove the number of
   *     records is itself private, so a normaliser computed from it would leak; it must be given.
   */
  public record Config(
      double samplingRate,
      double clip,
      int rounds,
      double learningRate,
      double epsilon,
      double delta,
      double honestFraction,
      NoiseSplit split,
      String accountant,
      int ringBits,
      NeighbourRelation neighbours,
      double expectedBatch) {
    public Config {
      Checks.require(samplingRate > 0 && samplingRate <= 1, "sampling rate must be in (0, 1]. Provided value: "
          + samplingRate);
      Checks.positive("clip", clip);
      Checks.positive("rounds", rounds);
      Checks.positive("learning rate", learningRate);
      Checks.positive("epsilon", epsilon);
      Checks.openUnit("delta", delta);
      Checks.halfOpenUnit("honest fraction", honestFraction);
      Checks.notNull("noise split", split);
      Checks.require(accountant.equals("rdp") || accountant.equals("pld"),
          "accountant must be rdp or pld. Provided value: " + accountant);
      Checks.notNull("neighbours", neighbours);
      Checks.require(neighbours == NeighbourRelation.ADD_OR_REMOVE_ONE || accountant.equals("pld"),
          "replace-one neighbours need the pld accountant (the RDP of the Poisson-subsampled Gaussian is known for "
              + "add-or-remove neighbours only)");
      if (neighbours == NeighbourRelation.ADD_OR_REMOVE_ONE) {
        Checks.require(expectedBatch > 0 && Double.isFinite(expectedBatch), "under add-or-remove neighbours the "
            + "number of records is private, so the step's normaliser must be a public expected batch size > 0. "
            + "Provided value: " + expectedBatch);
      } else {
        Checks.require(Double.isNaN(expectedBatch) || expectedBatch > 0 && Double.isFinite(expectedBatch),
            "expected batch size must be positive. Provided value: " + expectedBatch);
      }
    }

    /** Replace-one neighbours (Helmet's relation), the PLD accountant, q times the records as normaliser. */
    public static Config replaceOne(double samplingRate, double clip, int rounds, double learningRate, double epsilon,
        double delta, double honestFraction, NoiseSplit split, int ringBits) {
      return new Config(samplingRate, clip, rounds, learningRate, epsilon, delta, honestFraction, split, "pld",
          ringBits, NeighbourRelation.REPLACE_ONE, Double.NaN);
    }

    /** The accounted event of one round with noise multiplier sigma. */
    public DpEvent roundEvent(double sigma) {
      return new PoissonSampledDpEvent(samplingRate, new GaussianDpEvent(sigma), neighbours);
    }

    /** The accounted event for noise multiplier sigma over all rounds. */
    public DpEvent event(double sigma) {
      return new SelfComposedDpEvent(roundEvent(sigma), rounds);
    }

    Supplier<PrivacyAccountant> accountants() {
      return Accountants.named(accountant);
    }

    /**
     * The smallest noise multiplier meeting (epsilon, mechanismDelta) over all rounds (never
     * overshooting). Memoised: every simulated party and the coordinator derive the same plan.
     */
    public double noiseMultiplier(double mechanismDelta) {
      return CALIBRATIONS.get(new Calibrated(this, mechanismDelta));
    }
  }

  private record Calibrated(Config config, double mechanismDelta) {}

  private static final Memo<Calibrated, Double> CALIBRATIONS = new Memo<>(64,
      k -> Calibration.noiseMultiplier(k.config()::event, k.config().accountants(), k.config().epsilon(),
          k.mechanismDelta(), k.config().accountant().equals("pld") ? 1e-4 : 1e-8));
}
