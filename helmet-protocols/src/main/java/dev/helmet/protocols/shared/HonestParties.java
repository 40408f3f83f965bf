package dev.helmet.protocols.shared;

import dev.helmet.core.util.Checks;

/**
 * Honest-party arithmetic every distributed-noise algorithm shares: how many contributors a
 * round's guarantee may count on, given the honest fraction t the user states (at most floor((1 -
 * t) w) dishonest parties) and the participant that always knows its own noise share. Moved here
 * from helmet's accounting so that no algorithm imports another's package.
 */
public final class HonestParties {
  private HonestParties() {}

  /**
   * Why {@code minContributors} of {@code parties} contributors guarantee no honest one under
   * {@code honestFraction} (whose noise the guarantee rests on), with the two fixes in the units a
   * user sets; null when at least one is guaranteed. Sizes do not matter, so a coordinator says it
   * at start and {@code train} before it trains.
   */
  public static String honestProblem(int minContributors, int parties, double honestFraction) {
    int honest = noiseHonest(minContributors, parties, honestFraction);
    if (honest > 0) {
      return null;
    }
    int dishonest = minContributors - honest;
    if (dishonest > minContributors - honestContributors(minContributors, parties, honestFraction)) {
      // The coalition is the observing participant alone (no party may be dishonest): only more
      // contributors help.
      return String.format(java.util.Locale.ROOT, "with %d contributor(s) a round may have (min_contributors, "
          + "--min-contributors) of %d parties, a participant that subtracts its own noise share leaves no other "
          + "party's noise to protect the other records; raise min_contributors to at least 2 (at most the %d "
          + "parties)", minContributors, parties, parties);
    }
    java.math.BigDecimal needed = java.math.BigDecimal.ONE.subtract(java.math.BigDecimal.valueOf(minContributors - 1)
        .divide(java.math.BigDecimal.valueOf(parties), 6, java.math.RoundingMode.CEILING));
    String fraction = needed.compareTo(java.math.BigDecimal.ONE) >= 0 ? "1"
        : needed.setScale(6, java.math.RoundingMode.CEILING).stripTrailingZeros().toPlainString();
    return String.format(java.util.Locale.ROOT, "with honest fraction %s up to %d of the %d parties may be dishonest, so "
        + "the %d contributors a round may have (min_contributors, --min-contributors) guarantee no honest party's "
        + "noise; raise min_contributors to at least %d (at most the %d parties), or honest_fraction "
        + "(--honest-fraction) to at least %s", java.math.BigDecimal.valueOf(honestFraction).toPlainString(), dishonest,
        parties, minContributors, dishonest + 1, parties, fraction);
  }

  /**
   * The parties the honest fraction counts colluders of, for a roster of {@code roster}: the
   * published number when there is one (never fewer than the roster), else the roster (0
   * published: in process, where the roster is every party). Colluders are counted against the
   * published parties, not the roster the coordinator enrolled (security review turn 3, T3-3).
   */
  public static int colluderBase(int roster, int publishedParties) {
    return Math.max(roster, publishedParties);
  }

  /**
   * The contributors whose noise shares the adversary cannot know: {@code contributors - c} with
   * the coalition {@code c = max(floor((1 - t) parties), 1)} (0 for a single party). Every
   * participant holds the released model and its own noise share, so even at honest fraction 1 the
   * noise must survive one participant removing its share (see the class note). Noise is sized for
   * this number; the summation's collusion tolerance stays {@link #honestContributors}'s
   * {@code floor((1 - t) parties)}, since a lone participant sees only what the server releases.
   */
  public static int noiseHonest(int contributors, int parties, double honestFraction) {
    int dishonest = contributors - honestContributors(contributors, parties, honestFraction);
    int observer = parties > 1 ? 1 : 0;
    return contributors - Math.max(dishonest, observer);
  }

  /**
   * Honest contributors guaranteed when {@code contributors} of {@code parties} take part and at
   * most {@code (1 - t) parties} are dishonest. The number of dishonest parties is an integer, so
   * at most {@code floor((1 - t) parties)} of them exist and at least {@code contributors - floor((1
   * - t) parties)} contributors are honest (may be 0 or negative: none is guaranteed).
   *
   * <p>t is the decimal the user wrote (0.9, not the binary double nearest to it, which is a hair
   * above): {@code (1 - t) parties} is computed exactly in decimal from the shortest decimal form of
   * t, so (1 - 0.9) 10 is exactly 1 and floating-point error can never hide a dishonest party.
   */
  public static int honestContributors(int contributors, int parties, double honestFraction) {
    Checks.halfOpenUnit("honest fraction", honestFraction);
    java.math.BigDecimal dishonest = java.math.BigDecimal.ONE.subtract(java.math.BigDecimal.valueOf(honestFraction))
        .multiply(java.math.BigDecimal.valueOf(parties));
    int maxDishonest = dishonest.setScale(0, java.math.RoundingMode.FLOOR).intValueExact();
    return contributors - maxDishonest;
  }
}
