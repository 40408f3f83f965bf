package dev.helmet.protocols.smm;

import dev.helmet.privacy.event.DpEvent;
import dev.helmet.privacy.mechanism.RandomizedHadamard;
import dev.helmet.privacy.noise.DiscreteNoise;
import dev.helmet.privacy.noise.RandomBits;
import java.util.Map;

/**
 * How a round turns each sampled record's clipped gradient into ring elements and what noise each
 * party adds: the Skellam mixture mechanism ({@link MixtureRounds}) or one of the baselines the
 * paper compares it with, the distributed discrete Gaussian, distributed Skellam and cpSGD's
 * binomial mechanisms ({@link ConditionalRounds}). Calibrated from public parameters when built.
 */
interface RoundMechanism {
  /** smm, ddg, skellam or cpsgd. */
  String id();

  /** What it is, in words: "the Skellam mixture mechanism". */
  String title();

  /** How its noise is drawn, in words (for the ledger). */
  String noiseSampler();

  /** The accountant that composes its rounds ({@link dev.helmet.privacy.accounting.Accountants#named}). */
  String accountant();

  /** How its Poisson-subsampled rounds are bounded, in words (for the ledger). */
  String subsamplingBound();

  /** An encoder of records for one thread and one batch (it may keep buffers between records). */
  RecordEncoder encoder();

  /** Encodes records; not thread-safe. */
  interface RecordEncoder {
    /** Adds one record's rounded vector (length D) into {@code acc}, from the party's secret bits. */
    void addRecord(double[] gradient, RandomizedHadamard rotation, RandomBits bits, long[] acc);
  }

  /**
   * Writes one party's noise share into {@code out} (length D), overwriting it: drawn first, before
   * the party's data is touched, so its sampling time does not depend on the data.
   */
  void drawPartyNoise(long[] out, DiscreteNoise noise);

  /** Adds {@code parties} parties' noise shares at once (the aggregate simulation). */
  void addPartiesNoise(long[] out, DiscreteNoise noise, int parties);

  /** One unsampled round's release, for the accountant. */
  DpEvent roundEvent();

  /** The total variance of the honest parties' noise in one round's sum, in ring units. */
  double noiseVariance();

  /** The calibrated parameters for the ledger and reports. */
  Map<String, Object> details();
}
