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

/** How one noise kind turns the local models into encoded, noised inputs, and how it is accounted. */
interface NoisePlan {
  FixedPointEncoding encoding();

  /** Party i's noised, scaled, clamped and encoded model. */
  long[] input(int party, double[] weights, NoiseFactory noise);

  /** Noise standard deviation on the released sum divided by its L2 sensitivity. */
  double noiseMultiplier();

  /** The part of delta spent on the clamp tail. */
  double deltaTail();

  /** The event with {@code honest} honest contributors, or null if none is guaranteed. */
  DpEvent achievedEvent(double honest);

  PrivacyAccountant accountant();

  /** The accountant's short name ({@link dev.helmet.privacy.accounting.Accountants#named}). */
  String accountantId();

  String accountantName();

  void describe(Map<String, Object> details);
}
