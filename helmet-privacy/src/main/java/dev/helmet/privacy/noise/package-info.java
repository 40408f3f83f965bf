/**
 * Noise samplers. Secure by default: {@link dev.helmet.privacy.noise.RandomBits#secure()} draws
 * from a SecureRandom DRBG; a seeded source exists for tests only.
 */
package dev.helmet.privacy.noise;
