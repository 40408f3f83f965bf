package dev.helmet.protocols.audit;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.helmet.core.data.Dataset;
import dev.helmet.core.partition.Partition;
import dev.helmet.core.partition.PartitionStrategy;
import dev.helmet.protocols.algorithm.AlgorithmSpec;
import dev.helmet.protocols.algorithm.Algorithms;
import dev.helmet.protocols.algorithm.Common;
import dev.helmet.protocols.config.StrictNode;
import dev.helmet.protocols.privacy.Protection;
import java.util.SplittableRandom;

/**
 * The small configurations the audit tests run: iris in 3 parties of 50, a few rounds, so that one
 * release takes well under a millisecond. Honest fraction 1: the audit sees every party's noise, so
 * it audits the guarantee that counts all of it. The sampling rate is 1 (every record every round)
 * but in {@link #dpFlSampled}: {@link ReleaseAudit} draws every trial's party seeds afresh, so
 * dp-fl's and smm's Poisson batches are redrawn per trial as the amplified eps assumes.
 */
final class AuditSpecs {
  static final double DELTA = 1e-5;

  private AuditSpecs() {}

  static AlgorithmSpec configure(String algorithm, String json, double eps, Protection protection, Dataset data)
      throws Exception {
    return Algorithms.named(algorithm).configure(new StrictNode("test", new ObjectMapper().readTree(json),
        IllegalArgumentException::new), new Common(eps, DELTA, 1.0, protection, 0, data.dimension(),
            data.numClasses()));
  }

  /** Federated DP-SGD of the softmax model: 5 full-batch rounds, clip 1, replace-one (PLD). */
  static AlgorithmSpec dpFl(double eps, Dataset data) throws Exception {
    return configure("dp-fl", "{\"dpfl\": {\"sampling_rate\": 1, \"rounds\": 5, \"grad_clip\": 1, "
        + "\"learning_rate\": 1}}", eps, Protection.record(), data);
  }

  /** As {@link #dpFl}, under add-or-remove neighbours (RDP), normalised by the public 150. */
  static AlgorithmSpec dpFlAddRemove(double eps, Dataset data) throws Exception {
    return configure("dp-fl", "{\"dpfl\": {\"sampling_rate\": 1, \"rounds\": 5, \"grad_clip\": 1, "
        + "\"learning_rate\": 1, \"neighbours\": \"add-remove\", \"expected_batch\": 150}}", eps,
        Protection.record(), data);
  }

  /**
   * As {@link #dpFlAddRemove} with Poisson sampling at rate 0.2 (an expected batch of 30 of the 150
   * records): the printed eps is amplified by the secret batches, which every trial redraws.
   */
  static AlgorithmSpec dpFlSampled(double eps, Dataset data) throws Exception {
    return configure("dp-fl", "{\"dpfl\": {\"sampling_rate\": 0.2, \"rounds\": 5, \"grad_clip\": 1, "
        + "\"learning_rate\": 1, \"neighbours\": \"add-remove\", \"expected_batch\": 30}}", eps,
        Protection.record(), data);
  }

  /** wd-dp's softmax model: 5 full-batch noisy steps per party, rows of norm 1. */
  static AlgorithmSpec wdDp(double eps, Dataset data) throws Exception {
    return configure("wd-dp", "{\"wddp\": {\"steps\": 5}}", eps, Protection.record(), data);
  }

  /**
   * smm's MLP (one hidden layer of 8): 5 full-batch SGD rounds, normalised by the public 150, on a
   * 32-bit ring at gamma 2^12 (room for a party's 50 records of scale gamma C without a wrap).
   */
  static AlgorithmSpec smm(double eps, Dataset data) throws Exception {
    return configure("smm", "{\"learner\": {\"hidden\": [8]}, \"smm\": {\"sampling_rate\": 1, \"rounds\": 5, "
        + "\"bits\": 32, \"gamma\": 4096, \"expected_batch\": 150, \"optimizer\": \"sgd\", \"learning_rate\": 1}}", eps,
        Protection.record(), data);
  }

  /** helmet's one-shot release as in {@link ReleaseAuditTest}, protecting {@code protection}. */
  static AlgorithmSpec helmet(double eps, Protection protection, Dataset data) throws Exception {
    return configure("helmet", "{\"learner\": {\"kind\": \"svm\", \"normalise\": true, \"clip_bound\": 3, "
        + "\"lambda\": 20, \"radius\": 0.16}}", eps, protection, data);
  }

  /**
   * Runs {@code canary}'s audit of {@code spec} on iris in 3 parties (pilot 4, 95 %, 2 threads) and
   * prints its figures: eps_lb, the printed eps, their ratio, the separation, the trials and the
   * wall time, with the wall time of one release (2 threads, 2 (trials + pilot) releases).
   */
  static ReleaseAudit.Outcome audit(String what, AlgorithmSpec spec, String canary, Dataset data, int trials,
      long seed) {
    ReleaseAudit.Outcome o = ReleaseAudit.run(spec, Canaries.named(canary, spec), data, threeParties(data), trials,
        4, 0.95, seed, 2, dev.helmet.core.util.Progress.NONE);
    System.out.printf(java.util.Locale.ROOT, "%s, canary %s: eps_lb %.3f, printed eps %.3f (ratio %.3f), separation "
        + "%.3f, %d trials a side, %.1f s (%.2f ms a release)%n", what, canary, o.bound().epsilon(), o.printedEpsilon(),
        o.ratio(), o.separation(), o.trials(), o.seconds(), 1000 * o.seconds() / (2.0 * (trials + o.pilot())));
    return o;
  }

  /** Iris in 3 parties of 50 (iid, seed 1). */
  static Partition threeParties(Dataset data) {
    return new PartitionStrategy.Iid(3, 0).split(data, new SplittableRandom(1));
  }
}
