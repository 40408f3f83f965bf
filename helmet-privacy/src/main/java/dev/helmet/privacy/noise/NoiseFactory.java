package dev.helmet.privacy.noise;

/**
 * Gives each party its own noise sampler. {@link #secure()} is the only factory for real use;
 * {@link #seededForTesting} makes runs repeatable in tests and says so in every ledger.
 */
public interface NoiseFactory {

  /** The continuous Gaussian sampler of party {@code party}. */
  GaussianNoise gaussian(int party);

  /** The exact integer sampler (discrete Gaussian, Skellam) of party {@code party}. */
  DiscreteNoise discrete(int party);

  /** Whether the samplers draw from a cryptographically secure source. */
  boolean isSecure();

  /**
   * Random bits a party must keep secret beside its noise (which records it samples, how it rounds):
   * from its own SecureRandom when the noise is secure, seeded from {@code seed} only alongside the
   * insecure test noise, so a test run repeats and a real one never does.
   */
  default RandomBits secretBits(long seed) {
    return isSecure() ? RandomBits.secure() : RandomBits.insecureForTesting(seed);
  }

  /** A fresh SecureRandom DRBG per party. */
  static NoiseFactory secure() {
    return new NoiseFactory() {
      @Override
      public GaussianNoise gaussian(int party) {
        return GaussianNoise.secure();
      }

      @Override
      public DiscreteNoise discrete(int party) {
        return DiscreteNoise.secure();
      }

      @Override
      public boolean isSecure() {
        return true;
      }
    };
  }

  /** Predictable samplers derived from {@code seed}: NOT private, for tests only. */
  static NoiseFactory seededForTesting(long seed) {
    return new NoiseFactory() {
      @Override
      public GaussianNoise gaussian(int party) {
        return new GaussianNoise(RandomBits.insecureForTesting(seed * 1_000_003L + party));
      }

      @Override
      public DiscreteNoise discrete(int party) {
        return new DiscreteNoise(RandomBits.insecureForTesting(seed * 1_000_033L + party));
      }

      @Override
      public boolean isSecure() {
        return false;
      }
    };
  }
}
