package dev.helmet.protocols.algorithm;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;

/**
 * A round's public state for the algorithms that send the current model every round (dp-fl, smm):
 * version 1, then the model's parameters as little-endian doubles in the model's own layout.
 */
public final class ModelState {
  /** The first byte: the encoding's version. */
  public static final byte V1 = 1;

  private ModelState() {}

  /** The state for {@code params}. */
  public static byte[] pack(double[] params) {
    ByteBuffer b = ByteBuffer.allocate(1 + 8 * params.length).order(ByteOrder.LITTLE_ENDIAN);
    b.put(V1);
    for (double v : params) {
      b.putDouble(v);
    }
    return b.array();
  }

  /**
   * Reads a state of {@code length} parameters, refusing another version, a wrong length or a
   * non-finite value (which would void the clipping), naming {@code algorithm} in the error.
   */
  public static double[] unpack(byte[] state, int length, String algorithm) {
    if (state.length != 1 + 8L * length || state[0] != V1) { // messages built only on failure: read every round
      throw new IllegalArgumentException("a " + algorithm + " round state must be version " + V1 + " with " + length
          + " doubles (" + (1 + 8L * length) + " bytes); " + state.length + " bytes came"
          + (state.length > 0 ? " of version " + state[0] : ""));
    }
    ByteBuffer b = ByteBuffer.wrap(state, 1, state.length - 1).order(ByteOrder.LITTLE_ENDIAN);
    double[] params = new double[length];
    for (int j = 0; j < length; j++) {
      params[j] = b.getDouble();
      if (!Double.isFinite(params[j])) {
        throw new IllegalArgumentException("model value " + j + " of the round state is not finite");
      }
    }
    return params;
  }
}
