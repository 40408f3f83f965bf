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
 * The clamp's width in noise standard deviations and the delta it costs.
 *
 * <p>If a mechanism differs from an (epsilon, delta)-DP one only on an event of probability at
 * most p on every input, it is (epsilon, delta + (1 + e^epsilon) p)-DP: P[M'(D) in S] <= P[M(D) in
 * S] + p <= e^epsilon (P[M'(D') in S] + p) + delta + p. The event is "some clamp fires", so p is
 * the union bound over all {@code count} noised values. The width starts at {@code minStds} and
 * widens only when e^epsilon is so large (epsilon in the tens) that the charge would exceed 1 % of
 * delta; everything is computed in logarithms so that no epsilon overflows.
 *
 * @param discrete true for the discrete Gaussian, whose tail is at most 2 exp(-k^2 / 2) (it is
 *     sigma^2-sub-Gaussian, Canonne, Kamath and Steinke 2020); false for the continuous one, whose
 *     tail is at most 2 phi(k) / k (Mills' ratio)
 */
record ClampTail(double stds, double delta) {
  static ClampTail of(BlindAveragingPrivacy privacy, double count, double minStds, boolean discrete) {
    double eps = privacy.epsilon();
    // log((1 + e^eps) count), stable for any eps >= 0
    double logCharge = Math.log(count) + eps + Math.log1p(Math.exp(-eps));
    double logTarget = Math.log(privacy.delta() / 100);
    double k = minStds;
    if (logCharge + logTail(k, discrete) > logTarget) {
      // 2 exp(-k^2/2) <= target / charge; Mills' bound is smaller still for k >= 1, so this k
      // suffices for both kinds.
      k = Math.max(k, Math.sqrt(2 * (Math.log(2 * (1 + 1e-9)) + logCharge - logTarget)));
    }
    return new ClampTail(k, Math.exp(logCharge + logTail(k, discrete)));
  }

  private static double logTail(double k, boolean discrete) {
    // The (1 + 1e-9) factors cover the floating-point error of these few operations (upward).
    return discrete
        ? Math.log(2 * (1 + 1e-9)) - k * k / 2
        : Math.log(2 * (1 + 1e-9)) - k * k / 2 - Math.log(k) - 0.5 * Math.log(2 * Math.PI);
  }
}
