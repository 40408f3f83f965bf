package dev.helmet.privacy.event;

import dev.helmet.core.util.Checks;

/**
 * {@code event} run on a uniformly random subset of exactly {@code sampleSize} of the {@code
 * populationSize} records (sampling without replacement, a fixed-size batch), with neighbours that
 * <em>replace</em> one record (the population's size is fixed, so add-or-remove does not apply).
 * The dp_accounting library names the same event {@code SampledWithoutReplacementDpEvent(
 * source_dataset_size, sample_size, event)}.
 *
 * <p>{@code event} is the mechanism run on the subset, also under replace-one: its noise
 * multiplier is relative to its replace-one sensitivity. For a sum of gradients clipped to C with
 * noise of standard deviation sigma C, two records' clipped gradients differ by up to 2C, so the
 * event is {@code GaussianDpEvent(sigma / 2)}.
 *
 * @param populationSize n, the records sampled from, >= 1
 * @param sampleSize m, the records drawn, in [1, n]
 * @param event the mechanism run on the sample (replace-one)
 */
public record SampledWithoutReplacementDpEvent(int populationSize, int sampleSize, DpEvent event) implements DpEvent {
  public SampledWithoutReplacementDpEvent {
    Checks.positive("population size", populationSize);
    Checks.require(sampleSize >= 1 && sampleSize <= populationSize,
        "sample size must be in [1, population size " + populationSize + "]. Provided value: " + sampleSize);
    Checks.notNull("event", event);
  }

  /**
   * m/n rounded up to the next double (1 when m = n): the rate an accountant analyses, never below
   * the true one (every accounting of subsampling is non-decreasing in the rate).
   */
  public double samplingFraction() {
    return sampleSize == populationSize ? 1 : Math.min(1, Math.nextUp((double) sampleSize / populationSize));
  }

  @Override
  public String describe() {
    return "SampledWithoutReplacement(" + sampleSize + " of " + populationSize + ", " + event.describe()
        + ", replace-one)";
  }
}
