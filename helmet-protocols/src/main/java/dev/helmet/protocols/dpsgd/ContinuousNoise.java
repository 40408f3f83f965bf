package dev.helmet.protocols.dpsgd;

/** The continuous Gaussian noise the DP-SGD algorithms add, as ledgers and reports name it. */
public final class ContinuousNoise {
  private ContinuousNoise() {}

  /** What the noise is: continuous Gaussian noise in floating point. */
  public static final String SAMPLER = "continuous Gaussian in floating point (Box-Muller on AES-256-CTR "
      + "DRBG bits keyed from SecureRandom), clamped and rounded onto the ring's fixed-point grid; the guarantee "
      + "assumes ideal real-valued noise (Mironov 2012 shows floating-point noise can leak low-order bits)";
}
