package dev.helmet.core.data;

import java.nio.FloatBuffer;

/**
 * Where a data set's feature values live, row-major: heap floats; unsigned bytes read as
 * {@code (b & 0xff) / divisor} (pixels: a quarter of the memory of floats, and the same float
 * values as converting them up front); or a read-only memory-mapped file of little-endian floats
 * (an uncompressed {@code .npy} of dtype {@code <f4}: the operating system pages it in and out, and
 * the Java heap holds none of it). Immutable.
 */
abstract class FeatureStore {
  /** Number of values. */
  abstract long length();

  /** Value {@code i}. */
  abstract float get(int i);

  /** Values {@code [from, from + n)} into {@code dest[off ..)}, as doubles. */
  abstract void copy(int from, int n, double[] dest, int off);

  /** The values at rows {@code indices} (each {@code dim} long), in the same kind of store where that is cheap. */
  abstract FeatureStore rows(int[] indices, int dim);

  /** Bytes of Java heap this store holds. */
  abstract long heapBytes();

  /** The stored bytes when this store keeps unsigned bytes, else null (with {@link #divisor}). */
  byte[] storedBytes() {
    return null;
  }

  /** The divisor of {@link #storedBytes}. */
  float divisor() {
    return 1f;
  }

  static FeatureStore of(float[] values) {
    return new Floats(values);
  }

  static FeatureStore bytes(byte[] values, float divisor) {
    return new Bytes(values, divisor);
  }

  static FeatureStore mapped(FloatBuffer values) {
    return new Mapped(values);
  }

  /** The index of the first value that is NaN or infinite, or -1. */
  int firstNonFinite() {
    long n = length();
    for (int i = 0; i < n; i++) {
      if (!Float.isFinite(get(i))) {
        return i;
      }
    }
    return -1;
  }

  /** Joins stores: bytes if all are bytes with one divisor, heap floats otherwise. */
  static FeatureStore concat(java.util.List<FeatureStore> parts) {
    long n = parts.stream().mapToLong(FeatureStore::length).sum();
    if (n > Integer.MAX_VALUE - 8) {
      throw new DataFormatException("more than 2^31 feature values do not fit one data set");
    }
    if (parts.stream().allMatch(p -> p instanceof Bytes b && b.divisor == ((Bytes) parts.get(0)).divisor)) {
      byte[] all = new byte[(int) n];
      int at = 0;
      for (FeatureStore p : parts) {
        byte[] v = ((Bytes) p).values;
        System.arraycopy(v, 0, all, at, v.length);
        at += v.length;
      }
      return new Bytes(all, ((Bytes) parts.get(0)).divisor);
    }
    float[] all = new float[(int) n];
    int at = 0;
    for (FeatureStore p : parts) {
      for (int i = 0; i < p.length(); i++) {
        all[at++] = p.get(i);
      }
    }
    return new Floats(all);
  }

  private static final class Floats extends FeatureStore {
    private final float[] values;

    Floats(float[] values) {
      this.values = values;
    }

    @Override
    long length() {
      return values.length;
    }

    @Override
    float get(int i) {
      return values[i];
    }

    @Override
    void copy(int from, int n, double[] dest, int off) {
      for (int j = 0; j < n; j++) {
        dest[off + j] = values[from + j];
      }
    }

    @Override
    FeatureStore rows(int[] indices, int dim) {
      float[] f = new float[indices.length * dim];
      for (int k = 0; k < indices.length; k++) {
        System.arraycopy(values, indices[k] * dim, f, k * dim, dim);
      }
      return new Floats(f);
    }

    @Override
    long heapBytes() {
      return 4L * values.length;
    }
  }

  private static final class Bytes extends FeatureStore {
    private final byte[] values;
    private final float divisor;

    Bytes(byte[] values, float divisor) {
      if (!(divisor > 0) || !Float.isFinite(divisor)) {
        throw new IllegalArgumentException("byte divisor must be positive and finite: " + divisor);
      }
      this.values = values;
      this.divisor = divisor;
    }

    @Override
    long length() {
      return values.length;
    }

    @Override
    float get(int i) {
      return (values[i] & 0xff) / divisor;
    }

    @Override
    void copy(int from, int n, double[] dest, int off) {
      for (int j = 0; j < n; j++) {
        dest[off + j] = (values[from + j] & 0xff) / divisor;
      }
    }

    @Override
    FeatureStore rows(int[] indices, int dim) {
      byte[] b = new byte[indices.length * dim];
      for (int k = 0; k < indices.length; k++) {
        System.arraycopy(values, indices[k] * dim, b, k * dim, dim);
      }
      return new Bytes(b, divisor);
    }

    @Override
    int firstNonFinite() {
      return -1;
    }

    @Override
    long heapBytes() {
      return values.length;
    }

    @Override
    byte[] storedBytes() {
      return values;
    }

    @Override
    float divisor() {
      return divisor;
    }
  }

  private static final class Mapped extends FeatureStore {
    private final FloatBuffer values;

    Mapped(FloatBuffer values) {
      this.values = values.asReadOnlyBuffer();
    }

    @Override
    long length() {
      return values.capacity();
    }

    @Override
    float get(int i) {
      return values.get(i);
    }

    @Override
    void copy(int from, int n, double[] dest, int off) {
      for (int j = 0; j < n; j++) {
        dest[off + j] = values.get(from + j);
      }
    }

    @Override
    FeatureStore rows(int[] indices, int dim) {
      float[] f = new float[indices.length * dim];
      for (int k = 0; k < indices.length; k++) {
        values.get(indices[k] * dim, f, k * dim, dim);
      }
      return new Floats(f);
    }

    @Override
    long heapBytes() {
      return 0;
    }
  }
}
