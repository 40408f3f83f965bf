package dev.helmet.protocols.algorithm;

import dev.helmet.privacy.ledger.PrivacyCharge;
import dev.helmet.privacy.ledger.PrivacyLedger;
import dev.helmet.privacy.noise.NoiseFactory;
import dev.helmet.secagg.ring.FixedPointEncoding;
import java.util.List;
import java.util.Map;

/**
 * Everything about a run that follows from its public settings and the roster (every party's
 * size and the fewest contributors a round may sum): noise calibration, rounds, clip norms, the
 * ring. The coordinator and every party derive it with this same code from the same public inputs,
 * so no party takes anyone's word for its noise or its privacy charge.
 */
public interface PublicPlan {
  /** The summations (rounds) the run takes. */
  int rounds();

  /** The length of every input vector. */
  int length();

  /** The ring encoding of the inputs. */
  FixedPointEncoding encoding();

  /** The fewest contributors a round's sum may be released with. */
  int minContributors();

  /** The noise multiplier (noise std on a round's sum over its sensitivity). */
  double noiseMultiplier();

  /** The most parties that may collude with the server and leave the guarantee intact. */
  int colluders();

  /**
   * What one released round costs every party's data, from this plan alone: k released rounds cost
   * {@code charge().epsilon(k)}. A party charges its own ledger with it, never with a number it is sent.
   */
  PrivacyCharge charge();

  /**
   * The ledger of the released model.
   *
   * @param contributors the fewest parties any released round summed
   * @param summation the summation's name
   * @param revealsInputs whether the summation showed the server every input (in the clear)
   */
  PrivacyLedger ledger(int contributors, String summation, boolean revealsInputs);

  /** The algorithm's own public figures for reports (JSON keys and values). */
  Map<String, Object> summary();

  /**
   * Party {@code party}'s side of the run.
   *
   * @param noise its noise (secure outside tests)
   * @param seed seeds what the party may seed (its local shuffles; its secret sampling only when
   *     {@code noise} is the insecure test factory)
   */
  Contributor contributor(int party, Local local, NoiseFactory noise, long seed);

  /**
   * The exchange the parties run before round 0 over a networked runner's board, or null when the
   * plan needs none (the default). In process a plan may run its setup itself.
   *
   * @param sessionId 16 bytes every party derives alike and fresh for each session
   */
  default Setup setup(byte[] sessionId) {
    return null;
  }

  /**
   * Party {@code party}'s side of the run after the {@link #setup} it took part in ({@code setup}
   * is its side after the last step). By default the setup is not needed.
   */
  default Contributor contributor(int party, Local local, NoiseFactory noise, long seed, SetupParty setup) {
    return contributor(party, local, noise, seed);
  }

  /**
   * Refuses a summation that shows the server sums of fewer parties than this plan's noise was sized
   * for. By default the noise is sized for the total only, so a summation that reveals partial sums
   * (pairwise masks in disjoint groups) is refused; one that reveals every input (plain) is allowed,
   * its ledger saying so.
   *
   * @throws IllegalArgumentException naming the summation and what it reveals
   */
  default void admit(dev.helmet.secagg.summation.SecureSummation summation, int parties) {
    int g = summation.smallestRevealedSum(parties);
    if (!summation.revealsInputs() && g < parties) {
      throw new IllegalArgumentException(summation.name() + " shows the server the sums of groups of " + g + " of the "
          + parties + " parties; this algorithm sizes its noise for the sum of all parties only (choose another "
          + "summation)");
    }
  }

  /** The server's side of the run. */
  ServerRole server();

  /**
   * An aggregate simulation of the parties' inputs for experiments, or null if the algorithm has
   * none (the simulator then sums per party).
   */
  default Aggregate aggregate(List<? extends Local> locals, long[] seeds, NoiseFactory noise) {
    return null;
  }

  /**
   * Whether the plan holds state of the one run it serves (cross-silo's SWOR batch sampler, set up
   * for that run's parties), so that every run needs a plan of its own; by default a plan is public
   * facts only and serves any number of runs (an audit's trials share one).
   */
  default boolean servesOneRun() {
    return false;
  }
}
