package dev.helmet.privacy.event;

/**
 * A description of what ran on the private data, independent of how it is accounted (the
 * {@code dp_accounting} design): first describe the mechanism, then hand the description to a
 * {@link dev.helmet.privacy.accounting.PrivacyAccountant} that {@code supports} it. Noise
 * multipliers are always relative to the L2 sensitivity of the released quantity.
 */
public sealed interface DpEvent
    permits GaussianDpEvent, DistributedDiscreteGaussianDpEvent, SelfComposedDpEvent, ComposedDpEvent,
        NoOpDpEvent, PoissonSampledDpEvent, SkellamMixtureDpEvent, SkellamDpEvent, SlackDpEvent, MixtureDpEvent,
        BinomialDpEvent, SampledWithoutReplacementDpEvent {

  /** A short human-readable form, e.g. {@code "10 x Gaussian(sigma=3.73)"}. */
  String describe();
}
