package dev.helmet.protocols.algorithm;

import dev.helmet.core.util.Checks;
import dev.helmet.protocols.privacy.Protection;

/**
 * What every algorithm's configuration shares, read by the runners: the privacy target and the
 * shape of the data.
 *
 * @param epsilon the target eps over the whole run
 * @param delta the target delta
 * @param honestFraction t: the fraction of parties trusted to add their noise
 * @param protection the protected unit (record, group of k, user)
 * @param ringBits the summation ring: 32, 64, or 0 to choose
 * @param features features per row, before the intercept
 * @param classes the number of classes; 1 for regression (numeric targets, {@link #regression()})
 * @param publicRecords the number of training records fixed by public configuration before any data
 *     is read (parties x per-party points, or a built-in data set's published training split), or 0
 *     when only the data could tell. Never a count of loaded records: under add-or-remove
 *     neighbours that count is private, and an algorithm may default a normaliser to this one only
 * @param publishedParties the number of parties the session published (a networked session's
 *     {@code parties}), against which the honest fraction counts colluders: floor((1 - t) P) of them,
 *     whatever roster the coordinator enrols, so a roster of the victim and the colluders does not
 *     shrink the noise (security review turn 3, T3-3); 0: the roster's own size (in process, where
 *     the roster is every party)
 */
public record Common(double epsilon, double delta, double honestFraction, Protection protection, int ringBits,
    int features, int classes, long publicRecords, int publishedParties) {
  public Common {
    Checks.positive("epsilon", epsilon);
    Checks.openUnit("delta", delta);
    Checks.halfOpenUnit("honest fraction", honestFraction);
    Checks.notNull("protection", protection);
    Checks.require(ringBits == 0 || ringBits == 32 || ringBits == 64,
        "ring bits must be 0, 32 or 64. Provided value: " + ringBits);
    Checks.positive("features", features);
    Checks.require(classes >= 1, "classes must be at least 1 (1: regression). Provided value: " + classes);
    Checks.require(publicRecords >= 0, "public records must be >= 0. Provided value: " + publicRecords);
    Checks.require(publishedParties >= 0, "published parties must be >= 0. Provided value: " + publishedParties);
  }

  /** The settings with a public record count and the roster's own size as the parties. */
  public Common(double epsilon, double delta, double honestFraction, Protection protection, int ringBits,
      int features, int classes, long publicRecords) {
    this(epsilon, delta, honestFraction, protection, ringBits, features, classes, publicRecords, 0);
  }

  /** The settings without a public record count (a session file, a user's own data). */
  public Common(double epsilon, double delta, double honestFraction, Protection protection, int ringBits,
      int features, int classes) {
    this(epsilon, delta, honestFraction, protection, ringBits, features, classes, 0, 0);
  }

  /** This target with the public record count {@code records} (0: none). */
  public Common withPublicRecords(long records) {
    return new Common(epsilon, delta, honestFraction, protection, ringBits, features, classes, records,
        publishedParties);
  }

  /** This target with the published number of parties {@code parties} (0: the roster's size). */
  public Common withPublishedParties(int parties) {
    return new Common(epsilon, delta, honestFraction, protection, ringBits, features, classes, publicRecords, parties);
  }

  /** Whether the rows have numeric targets rather than classes (one "class"). */
  public boolean regression() {
    return classes == 1;
  }

  /**
   * Refuses regression data for an algorithm that trains classifiers.
   *
   * @throws IllegalArgumentException saying which algorithm can
   */
  public void requireClasses(String algorithm) {
    if (regression()) {
      String fit = Algorithms.all().stream().filter(Algorithm::fitsRegression).map(Algorithm::id)
          .collect(java.util.stream.Collectors.joining(" or "));
      throw new IllegalArgumentException(algorithm + " trains classifiers and this data has numeric targets "
          + "(regression); " + (fit.isEmpty() ? "no registered algorithm fits regression"
              : "use --algorithm " + fit + ", which fits linear regression"));
    }
  }

  /** This target at another eps (experiments sweep eps with everything else fixed). */
  public Common withEpsilon(double eps) {
    return new Common(eps, delta, honestFraction, protection, ringBits, features, classes, publicRecords, publishedParties);
  }
}
