package dev.helmet.protocols.simulation;

import dev.helmet.protocols.algorithm.AlgorithmSpec;
import dev.helmet.protocols.algorithm.Parameter;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/** What a run through a secure summation will cost, said before it starts (in process or networked). */
public final class RunCost {
  private RunCost() {}

  /**
   * Runs of at least this many party-rounds (rounds x parties: each party computes an input and
   * takes part in a summation every round) are announced before they start, with how to shorten
   * them. Measured here through SecAgg+ on MNIST (2 shared cores, other work running) a party-round
   * costs 10-60 ms: smm's 1,000 rounds x 10 parties 252 s (docs/smm.md: 204-598 s), cross-silo's
   * 1,250 x 10 94 s, dp-fl's 50 x 100 85-181 s and 50 x 1,000 about 12-25 min. From 3,000 on (half
   * a minute at the least), so each of those defaults says up front what it costs.
   */
  public static final long LONG_RUN_PARTY_ROUNDS = 3_000;

  /**
   * Before a run of at least {@link #LONG_RUN_PARTY_ROUNDS} party-rounds through a secure
   * summation, what it will cost and how to make it quicker: fewer rounds through the algorithm's
   * own round settings (its parameters {@code <section>.rounds} and {@code <section>.epochs}), or
   * fewer parties; null for a shorter run.
   */
  public static String note(AlgorithmSpec a, int parties) {
    long work = (long) a.rounds() * parties;
    if (work < LONG_RUN_PARTY_ROUNDS) {
      return null;
    }
    List<String> shorten = new ArrayList<>();
    for (Parameter p : a.algorithm().parameters()) {
      if (!p.path().startsWith("learner.") && (p.path().endsWith(".rounds") || p.path().endsWith(".epochs"))) {
        shorten.add(p.flag());
      }
    }
    shorten.add("--parties");
    return String.format(Locale.ROOT, "helmet: note: %s runs %,d round(s) x %,d parties = %,d "
        + "party-rounds, at some 10-60 ms each on 2 cores about %s to %s; the progress line gives an ETA. Fewer "
        + "with %s", a.algorithm().id(), a.rounds(), parties, work, minutes(work * 0.010), minutes(work * 0.060),
        String.join(" or ", shorten));
  }

  /** Seconds as a rounded duration in words: "3 min", "2.5 h". */
  private static String minutes(double seconds) {
    if (seconds < 90) {
      return Math.round(seconds) + " s";
    }
    if (seconds < 5400) {
      return Math.round(seconds / 60) + " min";
    }
    return dev.helmet.core.util.Numbers.fmt(Math.round(seconds / 360) / 10.0) + " h";
  }
}
