package dev.helmet.protocols.wddp;

import dev.helmet.core.learn.LearnerKind;

/**
 * WD-DP's settings.
 *
 * @param kind logreg (2 classes), softmax, or linreg (regression)
 * @param loss for linreg: squared or pl (Polyak-Lojasiewicz); null for the classifiers
 * @param radius R, the ball linreg's model is projected onto (its Lipschitz bound rests on it)
 * @param steps T, full-batch steps per party
 * @param stepSize eta, 0 for 1/beta
 * @param uniform weights 1/m (Jayaraman et al.) instead of n_j/n
 * @param weightNoiseFraction f: eps2 = f eps and delta2 = f delta go to the paper's weight noise
 * @param startSeed public seed of the shared start
 * @param accountant gaussian, pld or rdp
 */
record WdDpConfig(LearnerKind kind, String loss, double radius, int steps, double stepSize, boolean uniform, double weightNoiseFraction,
    int startSeed, String accountant) {
  /**
   * T when not given (the paper does not state its T). On validation holdouts of breast-cancer,
   * pima and spam (4 parties, eps 1, 5 noise draws; raw features, before per-feature scaling
   * exists) T = 50 was best or near best for two of the three among 5, 10, 20, 50, 100: more steps
   * make progress but each costs noise (sigma grows as sqrt(T)). To be retuned with feature scaling.
   */
  static final int DEFAULT_STEPS = 50;

  /** c, the row norm: 1, as the paper normalises (Helmet's learners default to 10). */
  static final double DEFAULT_CLIP = 1;

  /** R for linear regression when not given (see docs/wd-dp.md for how it was chosen). */
  static final double DEFAULT_RADIUS = 1;
}
