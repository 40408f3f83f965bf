package dev.helmet.secagg.protocol;

/** Checks on vectors of ring elements. */
final class Ring {
  private Ring() {}

  /**
   * The index of the first element with bits outside {@code mask}, or -1. The common case (every
   * element inside) is one OR-reduction over the vector, which the JIT vectorises; only a vector
   * that fails is searched element by element.
   */
  static int firstOutside(long[] v, long mask) {
    long any = 0;
    for (long e : v) {
      any |= e;
    }
    if ((any & ~mask) == 0) {
      return -1;
    }
    for (int i = 0; i < v.length; i++) {
      if ((v[i] & ~mask) != 0) {
        return i;
      }
    }
    return -1;
  }
}
