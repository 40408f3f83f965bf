package dev.helmet.protocols.helmet;

import dev.helmet.protocols.privacy.Protection;
import dev.helmet.core.learn.Learner;
import dev.helmet.core.util.Checks;
import dev.helmet.privacy.accounting.Calibration;
import dev.helmet.privacy.accounting.GaussianAccountant;
import dev.helmet.privacy.event.DpEvent;
import dev.helmet.privacy.event.GaussianDpEvent;
import dev.helmet.privacy.event.SelfComposedDpEvent;

/**
 * The privacy arithmetic of blind averaging (SPEC 1.3, 1.4).
 *
 * <p>Party i trains {@code f_i} on n_i points, adds {@code N(0, (sigma S / (n_i sqrt(h)))^2 I)}
 * and inputs {@code (n_i / w) f_priv} to the summation. S is the <em>scaled sensitivity</em>, the
 * largest {@code n_i} times party i's per-release sensitivity. For record protection {@code n_i
 * s_i = 2G/Lambda} (G the loss's gradient bound, or the papers' L with {@code --sensitivity paper}) whenever the batch size divides n_i (Helmet: scaling by n_i makes every
 * contribution's sensitivity independent of n_i), slightly more otherwise ({@link
 * Learner#sensitivity}); for groups of Upsilon records of one party it is {@code n_i min(Upsilon
 * s_i, 2R)} and for a party's whole data {@code 2R n_i} (Cor. 5.4, 5.5: any output of norm <= R
 * moves by at most 2R). As in the papers, the local sizes n_i are public: the scaling and the
 * sensitivities use them, and neighbouring data sets keep them.
 *
 * <p>Every scaled input then carries noise of std {@code tau = sigma S / (w sqrt(h))} per
 * coordinate, where {@code h = m - c} is the number of contributors whose noise the adversary
 * cannot know when at least m parties contribute ({@link #noiseHonest}). The coalition c is
 * {@code max(floor((1 - t) w), 1)}: at most {@code floor((1 - t) w)} parties are dishonest (m = w
 * and c = that floor: h = ceil(t w), SPEC 1.3), and even when none is (t = 1), every participant
 * holds the released model and knows its own noise share, so it can subtract it (privacy review
 * turn 3, finding 4: SMM at eps 3 with 10 parties gave 3.77 against such a participant when h was
 * m). A participant alone is a coalition of one; a coalition of dishonest parties already counts
 * it. With a single party there is nobody else to observe: c = 0. The noise the adversary cannot
 * remove has std at least {@code sigma S / w} and one record moves the sum by at most {@code S /
 * w}: the Gaussian mechanism with multiplier sigma, once per release ({@link Learner#releases()}:
 * K for one-vs-rest, 1 for softmax). The coalition's noise is post-processing.
 */
public final class HelmetAccounting {
  private HelmetAccounting() {}

  /** The scaled sensitivity S: the largest {@code n_i} times party i's per-release sensitivity. */
  public static double scaledSensitivity(Learner learner, Protection protection, int[] localSizes) {
    double radius = learner.config().radius();
    double s = 0;
    for (int n : localSizes) {
      double record = learner.sensitivity(n);
      double perParty = switch (protection.unit()) {
        case RECORD -> record;
        case GROUP -> Math.min(protection.groupSize() * record, 2 * radius);
        case USER -> 2 * radius;
      };
      s = Math.max(s, n * perParty);
    }
    return s;
  }

  /** The neighbour relation the guarantee is stated for. */
  public static String neighbours(Protection protection) {
    return switch (protection.unit()) {
      case RECORD -> "replace one record";
      case GROUP -> "replace up to " + protection.groupSize() + " records of one party";
      case USER -> "replace one party's whole data set";
    };
  }

  /** The event of one release with noise multiplier sigma: {@code releases} Gaussians. */
  public static DpEvent event(double sigma, int releases) {
    DpEvent one = new GaussianDpEvent(sigma);
    return releases == 1 ? one : new SelfComposedDpEvent(one, releases);
  }

  /** The smallest sigma (rounded up) that gives (eps, delta) for {@code releases} Gaussians. */
  public static double noiseMultiplier(double epsilon, double delta, int releases) {
    return Calibration.noiseMultiplier(s -> event(s, releases), GaussianAccountant::new, epsilon, delta);
  }

  /** The eps at delta of {@code releases} Gaussians with multiplier sigma. */
  public static double epsilon(double sigma, int releases, double delta) {
    return new GaussianAccountant().compose(event(sigma, releases)).epsilon(delta);
  }

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

  /**
   * The noise multiplier actually achieved when the noise was calibrated for {@code planned}
   * honest contributors and {@code actual} are guaranteed: {@code sigma sqrt(actual / planned)}
   * (each honest contributor adds the same variance); 0 when no honest contributor is guaranteed
   * (then there is no guarantee).
   */
  public static double achievedNoiseMultiplier(double sigma, double plannedHonest, double actualHonest) {
    Checks.positive("planned honest contributors", plannedHonest);
    if (actualHonest <= 0) {
      return 0;
    }
    return sigma * Math.sqrt(actualHonest / plannedHonest);
  }
}
