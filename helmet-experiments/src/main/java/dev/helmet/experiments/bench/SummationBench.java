package dev.helmet.experiments.bench;

import dev.helmet.secagg.crypto.CryptoProfile;
import dev.helmet.secagg.crypto.MaskPrg;
import dev.helmet.secagg.crypto.Secrets;
import dev.helmet.secagg.protocol.InProcessSecAgg;
import dev.helmet.secagg.ring.FixedPointEncoding;
import dev.helmet.secagg.servers.ComputeServerSummation;
import dev.helmet.secagg.summation.DropoutPlan;
import dev.helmet.secagg.summation.PlainSummation;
import dev.helmet.secagg.summation.SecureSummation;
import dev.helmet.secagg.summation.SummationOutcome;
import dev.helmet.secagg.summation.SummationSpec;
import java.util.Arrays;
import java.util.Locale;
import java.util.SplittableRandom;
import java.util.function.IntFunction;

/**
 * Full secure-summation runs with every party in this process, each checked against the exact sum
 * of the contributors' inputs and timed against the same sum in the clear; plus the mask
 * generator's rate measured in the same run.
 */
public final class SummationBench {
  private SummationBench() {}

  /**
   * What to run.
   *
   * @param dropoutRound masked-input (right after sharing keys, the server's most expensive case)
   *     or random (any round)
   * @param protocol secagg+, secagg, dca (or compute-servers), groups, harary or plain
   * @param minContributors the fewest contributors the summation accepts; 0: P - floor(F P)
   * @param maxDropout the dropout rate secure aggregation is sized for; null: what the threshold tolerates
   * @param rounds full runs back to back, each with fresh keys and masks
   */
  public record Settings(int parties, int params, double dropout, String dropoutRound, String protocol,
      int computeNodes, int maskGroup, int minContributors, Double maxDropout, double colluding, int ringBits,
      int rounds, int threads) {
    /** Checks the sizes and names. */
    public Settings {
      if (parties < 2 || params < 1) {
        throw new IllegalArgumentException("parties must be >= 2 and params >= 1. Provided values: " + parties + ", "
            + params);
      }
      if (rounds < 1 || rounds > 1000) {
        throw new IllegalArgumentException("--rounds must be in [1, 1000]. Provided value: " + rounds);
      }
      if (!(dropout >= 0 && dropout < 0.5)) {
        throw new IllegalArgumentException("dropout must be in [0, 0.5). Provided value: " + dropout);
      }
    }
  }

  /** Receives each round as it ends, and the summation's name before the first. */
  public interface Listener {
    /** Before the first round. */
    void starting(String summation);

    /** After round {@code round} (0-based), whether its sum was exact. */
    void round(int round, SummationOutcome outcome, boolean exact);
  }

  /**
   * The runs' results; the summary figures are the last round's.
   *
   * @param summation the summation's name
   * @param minContributors the fewest contributors it accepted
   * @param last the last round's outcome
   * @param plainSeconds the last round's sum of the same vectors in the clear
   * @param exact whether every round's sum was exact
   * @param prgMbPerSecond the mask generator's rate (AES-CTR, MB/s)
   */
  public record Outcome(String summation, int minContributors, SummationOutcome last, double plainSeconds,
      boolean exact, double[] partySecondsByRound, double[] serverSecondsByRound, String[] statusByRound,
      boolean[] exactByRound, double prgMbPerSecond) {}

  /** Runs the rounds. */
  public static Outcome run(Settings c, Listener listener) {
    int parties = c.parties();
    int params = c.params();
    int t = c.threads();
    int fixedStep = switch (c.dropoutRound().toLowerCase(Locale.ROOT)) {
      case "masked-input" -> ComputeServerSummation.named(c.protocol()) ? 1 : 2;
      case "random" -> -1;
      default -> throw new IllegalArgumentException("dropout round must be masked-input or random. Provided value: "
          + c.dropoutRound());
    };
    DropoutPlan plan = c.dropout() == 0 ? DropoutPlan.NONE : DropoutPlan.random(c.dropout(), fixedStep,
        Secrets.random().nextLong());
    int m = c.minContributors() != 0 ? c.minContributors() : parties - (int) Math.floor(c.dropout() * parties);
    if (m < 1 || m > parties) {
      throw new IllegalArgumentException("min contributors must be in [1, " + parties + "]. Provided value: " + m);
    }
    double sizing = c.maxDropout() != null ? c.maxDropout() : InProcessSecAgg.DROPOUTS_FROM_THRESHOLD;
    if (dev.helmet.secagg.Summations.find(c.protocol()) == null) {
      throw new IllegalArgumentException("protocol must be one of " + dev.helmet.secagg.Summations.names()
          + ". Provided value: " + c.protocol());
    }
    SecureSummation s = dev.helmet.secagg.Summations.make(c.protocol(), new dev.helmet.secagg.Summations.Settings(
        c.colluding(), sizing, plan, t, c.computeNodes(), c.maskGroup()));
    FixedPointEncoding enc = new FixedPointEncoding(c.ringBits(), 0);
    long mask = enc.mask();
    long seed = Secrets.random().nextLong();
    IntFunction<long[]> inputs = i -> {
      SplittableRandom r = new SplittableRandom(seed + i);
      long[] x = new long[params];
      for (int j = 0; j < params; j++) {
        x[j] = r.nextLong() & mask;
      }
      return x;
    };
    listener.starting(s.name());
    int rounds = c.rounds();
    SummationOutcome o = null;
    double plainSeconds = 0;
    boolean exact = true;
    double[] partyByRound = new double[rounds];
    double[] serverByRound = new double[rounds];
    String[] statusByRound = new String[rounds];
    boolean[] exactByRound = new boolean[rounds];
    for (int r = 0; r < rounds; r++) {
      o = s.run(new SummationSpec(parties, params, enc, m), inputs);
      // Check against the exact sum of the contributors' inputs, and time the same sum in the clear.
      SummationOutcome done = o;
      long p0 = System.nanoTime();
      SummationOutcome plain = new PlainSummation().run(new SummationSpec(done.contributors().size() == 0 ? 1
          : done.contributors().size(), params, enc, 1), k -> inputs.apply(done.contributors().get(k)));
      plainSeconds = (System.nanoTime() - p0) / 1e9;
      exactByRound[r] = o.sum() != null && Arrays.equals(plain.sum(), o.sum());
      exact &= exactByRound[r];
      partyByRound[r] = o.partySeconds();
      serverByRound[r] = o.serverSeconds();
      statusByRound[r] = o.status().name();
      listener.round(r, o, exactByRound[r]);
    }
    return new Outcome(s.name(), m, o, plainSeconds, exact, partyByRound, serverByRound, statusByRound,
        exactByRound, prgRate());
  }

  /**
   * The mask generator's rate on this machine, now, in the 32-bit ring (as the runs above): 16
   * expansions of 4 MB after 16 for the JIT to warm up.
   */
  private static double prgRate() {
    long[] acc = new long[1 << 20];
    byte[] seed = Secrets.bytes(32);
    for (int i = 0; i < 16; i++) {
      MaskPrg.apply(seed, false, acc, 32, CryptoProfile.NONE);
    }
    long t0 = System.nanoTime();
    for (int i = 0; i < 16; i++) {
      MaskPrg.apply(seed, false, acc, 32, CryptoProfile.NONE);
    }
    return 16.0 * 4 * acc.length / ((System.nanoTime() - t0) / 1e9) / 1e6;
  }
}
