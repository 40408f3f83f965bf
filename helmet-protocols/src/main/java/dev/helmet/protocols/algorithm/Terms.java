package dev.helmet.protocols.algorithm;

/**
 * What a participant's policy checks of an algorithm's settings, besides the common privacy
 * target: the model it trains, whether its noise is exact, and how the noise is split.
 *
 * @param learner the model kind (softmax, svm, logreg)
 * @param exactNoise whether every party's noise is an exact integer sample (no floating point)
 * @param noiseSplit how the noise is split across parties: {@code honest} when the honest fraction
 *     of the parties alone adds the full noise; anything else assumes more honest parties
 */
public record Terms(String learner, boolean exactNoise, String noiseSplit) {}
