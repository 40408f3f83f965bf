package dev.helmet.protocols.blind;

import dev.helmet.privacy.accounting.GaussianReleases;
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
 * Continuous Gaussian noise (Helmet Alg. 3 line by line): f_priv = f + N(0, (sigma S / (n_i
 * sqrt(h)))^2 I), input (n_i / w) f_priv, clamped and rounded onto the grid.
 */
final class GaussianPlan implements NoisePlan {
  private final int[] sizes;
  private final boolean secureNoise;
  private final double sigma;
  private final double scaled;
  private final double plannedHonest;
  private final double tau;
  private final double bound;
  private final double deltaTail;
  private final int releases;
  private final FixedPointEncoding encoding;

  GaussianPlan(Learner learner, int[] sizes, BlindAveragingPrivacy privacy, double scaled, double plannedHonest,
      boolean secureNoise, int ringBits) {
    this.sizes = sizes;
    this.secureNoise = secureNoise;
    this.scaled = scaled;
    this.plannedHonest = plannedHonest;
    int w = sizes.length;
    this.releases = learner.releases();
    // delta is split: the clamp below may fire on some of the w * d noised values with total
    // probability at most deltaTail; the Gaussian mechanism gets the rest.
    ClampTail tail = ClampTail.of(privacy, (double) w * learner.outputRows() * learner.inputDimension(),
        BlindAveragingPlan.TAIL_STDS, false);
    this.deltaTail = tail.delta();
    BlindAveragingPlan.requireTailFits(deltaTail, privacy.delta(), w);
    this.sigma = GaussianReleases.noiseMultiplier(privacy.epsilon(), privacy.delta() - deltaTail, releases);
    // Per-coordinate std of the noise on each scaled contribution (n_i / w) f_priv.
    this.tau = sigma * scaled / (w * Math.sqrt(plannedHonest));
    this.bound = (double) BlindAveragingPlan.maxOf(sizes) / w * learner.config().radius() + tail.stds() * tau;
    // Round to a grid at least 2^10 times coarser than the floating-point resolution of the
    // values (ulp(bound) = 2^(exponent - 52)), so the low-order bits of the floating-point noise,
    // which can leak the unnoised value (Mironov 2012), do not survive encoding.
    int maxFractionalBits = 42 - Math.getExponent(bound);
    this.encoding = BlindAveragingPlan.chooseEncoding(ringBits, bound, w, maxFractionalBits);
  }

  @Override
  public FixedPointEncoding encoding() {
    return encoding;
  }

  @Override
  public long[] input(int i, double[] weights, NoiseFactory noise) {
    int n = sizes[i];
    int w = sizes.length;
    double[] f = weights.clone();
    GaussianNoise sampler = noise.gaussian(i);
    sampler.addTo(f, sigma * scaled / (n * Math.sqrt(plannedHonest)));
    double scale = (double) n / w;
    long[] enc = new long[f.length];
    for (int j = 0; j < f.length; j++) {
      enc[j] = encoding.encode(Math.max(-bound, Math.min(bound, scale * f[j])));
    }
    return enc;
  }

  @Override
  public double noiseMultiplier() {
    return sigma;
  }

  @Override
  public double deltaTail() {
    return deltaTail;
  }

  @Override
  public DpEvent achievedEvent(double honest) {
    double s = BlindAveragingAccounting.achievedNoiseMultiplier(sigma, plannedHonest, honest);
    return s == 0 ? null : GaussianReleases.event(s, releases);
  }

  @Override
  public PrivacyAccountant accountant() {
    return new GaussianAccountant();
  }

  @Override
  public String accountantId() {
    return "gaussian";
  }

  @Override
  public String accountantName() {
    return "gaussian-exact (Sommer et al. 2019 Thm 5 / analytic Gaussian)";
  }

  @Override
  public void describe(Map<String, Object> d) {
    d.put("noise", NoiseKind.GAUSSIAN.id());
    d.put("noise_std_per_coordinate", tau);
    d.put("clamp_bound", bound);
    d.put("noise_sampler", secureNoise
        ? "continuous Gaussian in floating point (Box-Muller on AES-256-CTR DRBG bits keyed from SecureRandom), rounded to a grid "
            + "2^10 times coarser than its float resolution; the guarantee assumes ideal real-valued noise"
        : "continuous Gaussian (SEEDED, NOT SECURE: test only)");
  }
}
