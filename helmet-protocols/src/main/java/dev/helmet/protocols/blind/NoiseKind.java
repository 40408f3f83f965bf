package dev.helmet.protocols.blind;

import java.util.Locale;

/** Which noise each party adds. */
public enum NoiseKind {
  /**
   * Continuous Gaussian in floating point, rounded onto the fixed-point grid afterwards; accounted
   * with the exact Gaussian curve, assuming ideal real-valued noise (as the papers do).
   */
  GAUSSIAN("gaussian"),
  /**
   * The exact discrete Gaussian on the fixed-point grid (Canonne, Kamath, Steinke 2020); the sum of
   * the honest parties' noise is accounted with the distributed discrete Gaussian bound (Kairouz,
   * Liu, Steinke 2021). No floating point touches the noise. The default with secure aggregation.
   */
  DISCRETE_GAUSSIAN("discrete-gaussian");

  private final String id;

  NoiseKind(String id) {
    this.id = id;
  }

  public String id() {
    return id;
  }

  public static NoiseKind parse(String s) {
    for (NoiseKind k : values()) {
      if (k.id.equals(s.toLowerCase(Locale.ROOT))) {
        return k;
      }
    }
    throw new IllegalArgumentException("noise must be gaussian or discrete-gaussian. Provided value: " + s);
  }
}
