package dev.helmet.protocols.algorithm;

/**
 * What a participant's policy checks of an algorithm's settings, besides the common privacy
 * target: the model it trains, whether its noise is exact, and how the noise is split.
 *
 * @param learner the model kind (softmax, svm, logreg)
 * @param exactNoise whether every party's noise is an exact integer sample (no floating point)
 * @param noiseSplit how the noise is split across parties: {@code honest} when the honest fraction
 *     of the parties alone adds the full noise; anything else assumes more honest parties
 * @param colluders for an {@code honest} split sized for a stated number of colluding parties
 *     rather than for the honest fraction (cross-silo's T + 1): that number; -1 when the honest
 *     fraction states it
 */
public record Terms(String learner, boolean exactNoise, String noiseSplit, int colluders) {
  /** Terms whose noise is sized by the honest fraction. */
  public Terms(String learner, boolean exactNoise, String noiseSplit) {
    this(learner, exactNoise, noiseSplit, -1);
  }
}
