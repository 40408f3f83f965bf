package dev.helmet.protocols.blind;

import dev.helmet.core.data.Dataset;
import dev.helmet.core.learn.Learner;
import dev.helmet.core.learn.LearnerConfig;
import dev.helmet.core.learn.LinearModel;
import dev.helmet.core.partition.Partition;
import dev.helmet.core.preprocess.Preprocessing;
import dev.helmet.core.util.Checks;
import dev.helmet.core.util.Parallel;
import dev.helmet.core.util.Progress;
import dev.helmet.privacy.accounting.Calibration;
import dev.helmet.privacy.accounting.GaussianAccountant;
import dev.helmet.privacy.accounting.PrivacyAccountant;
import dev.helmet.privacy.accounting.RdpAccountant;
import dev.helmet.privacy.event.DistributedDiscreteGaussianDpEvent;
import dev.helmet.privacy.event.DpEvent;
import dev.helmet.privacy.ledger.Guarantee;
import dev.helmet.privacy.ledger.PrivacyCharge;
import dev.helmet.privacy.ledger.PrivacyLedger;
import dev.helmet.privacy.noise.DiscreteNoise;
import dev.helmet.privacy.noise.GaussianNoise;
import dev.helmet.privacy.noise.NoiseFactory;
import dev.helmet.protocols.privacy.Audience;
import dev.helmet.secagg.ring.FixedPointEncoding;
import dev.helmet.secagg.summation.SecureSummation;
import dev.helmet.secagg.summation.SummationOutcome;
import dev.helmet.secagg.summation.SummationSpec;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;

/**
 * Exact discrete Gaussian noise on the fixed-point grid. Party i rounds (n_i / w) f_i onto the
 * grid 2^-f and adds N_Z(0, sigma^2) per coordinate, sigma^2 an integer. The grid is chosen so
 * that rounding adds at most 1 % to the L2 sensitivity: the rounded contributions of neighbouring
 * data sets differ by at most {@code Delta 2^f + sqrt(d)} (each coordinate's rounding moves by at
 * most one unit), with {@code Delta 2^f >= 100 sqrt(d)}. The honest parties' noise sums to the
 * distributed discrete Gaussian of Kairouz, Liu and Steinke (2021), accounted in Renyi DP with its
 * (vanishing) correction term. Noised values are clamped at 12 sigma (more at very large epsilon) beyond the largest signal;
 * the discrete Gaussian is sub-Gaussian (Canonne, Kamath, Steinke 2020), so a clamp fires with
 * probability at most 2 exp(-72) per value, charged to delta.
 */
final class DiscreteGaussianPlan implements NoisePlan {
  private static final double TAIL_STDS_DISCRETE = 12;

  private final int[] sizes;
  private final boolean secureNoise;
  private final int dimension;
  private final double l2;
  private final double l1;
  private final long sigma2;
  private final int honest;
  private final long bound;
  private final double deltaTail;
  private final double gridScale;
  private final FixedPointEncoding encoding;

  DiscreteGaussianPlan(Learner learner, int[] sizes, BlindAveragingPrivacy privacy, double scaled, double plannedHonest,
      boolean secureNoise, int ringBits) {
    this.sizes = sizes;
    this.secureNoise = secureNoise;
    int w = sizes.length;
    this.dimension = learner.outputRows() * learner.inputDimension();
    // One party's scaled contribution moves by at most sqrt(releases) S / w in L2 (all K rows of a
    // one-vs-rest model may change, each by the per-release scaled sensitivity).
    double delta = Math.sqrt(learner.releases()) * scaled / w;
    int f = Math.max(0, (int) Math.ceil(Math.log(100 * Math.sqrt(dimension) / delta) / Math.log(2)));
    this.gridScale = Math.scalb(1.0, f);
    this.l2 = delta * gridScale + Math.sqrt(dimension);
    this.l1 = Math.sqrt(dimension) * l2;
    this.honest = (int) Math.floor(plannedHonest);
    if (honest < 1) {
      throw new IllegalArgumentException("no honest contributor is guaranteed");
    }
    ClampTail tail = ClampTail.of(privacy, (double) w * dimension, TAIL_STDS_DISCRETE, true);
    this.deltaTail = tail.delta();
    BlindAveragingPlan.requireTailFits(deltaTail, privacy.delta(), w);
    // The KLS bound holds for sigma >= 1/2; below that the search sees sigma = 1/2 (constant, so the
    // search stays monotone), and the integer sigma^2 >= 1 used below is never smaller.
    double sigma = Calibration.noiseMultiplier(s -> new DistributedDiscreteGaussianDpEvent(Math.max(s, 0.5),
        honest, l2, l1, dimension), RdpAccountant::new, privacy.epsilon(), privacy.delta() - deltaTail);
    // Integer sigma^2, rounded up: a little more noise, never less.
    this.sigma2 = Math.max(1, (long) Math.ceil(sigma * sigma));
    double signal = Math.ceil((double) BlindAveragingPlan.maxOf(sizes) / w * learner.config().radius() * gridScale) + 1;
    double b = Math.ceil(signal + tail.stds() * Math.sqrt((double) sigma2));
    if (b >= 0x1.0p53) {
      throw new dev.helmet.secagg.ring.RingOverflowException("the noised values would exceed 2^53 grid units ("
          + b + "); lower the precision or the noise");
    }
    this.bound = (long) b;
    this.encoding = discreteEncoding(ringBits, f, bound, w);
  }

  private static FixedPointEncoding discreteEncoding(int ringBits, int f, long bound, int parties) {
    double real = Math.scalb((double) bound, -f);
    for (int b : ringBits == 0 ? new int[] {32, 64} : new int[] {ringBits}) {
      if (f <= b - 2) {
        FixedPointEncoding e = new FixedPointEncoding(b, f);
        if (e.holds(real, parties)) {
          return e;
        }
      }
    }
    throw new dev.helmet.secagg.ring.RingOverflowException(String.format(
        "a %s-bit ring cannot hold the sum of %d discrete-Gaussian-noised inputs bounded by %d grid units",
        ringBits == 0 ? "64" : String.valueOf(ringBits), parties, bound));
  }

  @Override
  public FixedPointEncoding encoding() {
    return encoding;
  }

  @Override
  public long[] input(int i, double[] weights, NoiseFactory noise) {
    int n = sizes[i];
    double scale = (double) n / sizes.length * gridScale;
    double[] f = weights;
    DiscreteNoise sampler = noise.discrete(i);
    long mask = encoding.mask();
    long[] enc = new long[f.length];
    for (int j = 0; j < f.length; j++) {
      long v = Math.round(scale * f[j]) + sampler.discreteGaussian(sigma2);
      enc[j] = Math.max(-bound, Math.min(bound, v)) & mask;
    }
    return enc;
  }

  @Override
  public double noiseMultiplier() {
    // The honest noise on the sum has std sqrt(h) sigma (grid units); its sensitivity is l2.
    return Math.sqrt((double) sigma2 * honest) / l2;
  }

  @Override
  public double deltaTail() {
    return deltaTail;
  }

  @Override
  public DpEvent achievedEvent(double honest) {
    int h = (int) Math.floor(honest);
    return h < 1 ? null : new DistributedDiscreteGaussianDpEvent(Math.sqrt((double) sigma2), h, l2, l1, dimension);
  }

  @Override
  public PrivacyAccountant accountant() {
    return new RdpAccountant();
  }

  @Override
  public String accountantId() {
    return "rdp";
  }

  @Override
  public String accountantName() {
    return "rdp (distributed discrete Gaussian, Kairouz-Liu-Steinke 2021 Prop. 14; improved conversion)";
  }

  @Override
  public void describe(Map<String, Object> d) {
    d.put("noise", NoiseKind.DISCRETE_GAUSSIAN.id());
    d.put("discrete_sigma_squared", sigma2);
    d.put("noise_std_per_coordinate", Math.sqrt((double) sigma2) / gridScale);
    d.put("grid_l2_sensitivity", l2);
    d.put("grid_l1_sensitivity", l1);
    d.put("dimension", dimension);
    d.put("clamp_bound_grid_units", bound);
    d.put("noise_sampler", secureNoise
        ? "exact discrete Gaussian (Canonne-Kamath-Steinke) on AES-256-CTR DRBG bits keyed from SecureRandom"
        : "exact discrete Gaussian (SEEDED, NOT SECURE: test only)");
  }
}
