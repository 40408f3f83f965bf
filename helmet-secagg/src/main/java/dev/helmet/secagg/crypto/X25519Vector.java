package dev.helmet.secagg.crypto;

import java.util.Arrays;

/**
 * Batched X25519 (RFC 7748) on the JDK Vector API: {@link #LANES} independent scalar
 * multiplications, one per lane of a 256-bit vector. A fixed 255-step Montgomery ladder with
 * mask-based conditional swaps and a fixed Fermat inversion chain: the sequence of operations and
 * memory accesses does not depend on the scalars or the points. Outputs equal BouncyCastle's
 * {@code X25519.scalarMult} bit for bit (non-canonical u >= p and the top bit of u are accepted and
 * handled as RFC 7748 says).
 *
 * <p>Use only through {@link X25519Dispatch}, which loads this class only when jdk.incubator.vector
 * is present. Every scratch array that held secret-dependent values is zeroed before returning.
 */
final class X25519Vector {
  /** Lanes per call: 4 (256-bit vectors of longs). */
  static final int LANES = Fe25519Vector.L;

  private static final int L = Fe25519Vector.L;
  private static final int N = Fe25519Vector.N;
  private static final int[] OFF = {0, 26, 51, 77, 102, 128, 153, 179, 204, 230};
  private static final int[] WID = {26, 25, 26, 25, 26, 25, 26, 25, 26, 25};

  private X25519Vector() {}

  /** The bit size of the preferred vector species on this machine. */
  static int preferredBits() {
    return jdk.incubator.vector.LongVector.SPECIES_PREFERRED.vectorBitSize();
  }

  private static long le64(byte[] s, int o) {
    long r = 0;
    for (int i = 7; i >= 0; i--) {
      r = (r << 8) | (s[o + i] & 0xFF);
    }
    return r;
  }

  /**
   * {@code r[32l..32l+32) = X25519(k[32l..], u[32l..])} for each lane l; k, u and r each hold
   * {@link #LANES} consecutive 32-byte strings. Scalars are clamped here (RFC 7748).
   */
  static void scalarMult(byte[] k, byte[] u, byte[] r) {
    long[] x1 = new long[N];
    long[] x2 = new long[N];
    long[] z2 = new long[N];
    long[] x3 = new long[N];
    long[] z3 = new long[N];
    long[] a = new long[N];
    long[] b = new long[N];
    long[] c = new long[N];
    long[] d = new long[N];
    long[] aa = new long[N];
    long[] bb = new long[N];
    long[] e = new long[N];
    long[] t = new long[N];
    long[] masks = new long[256 * L];
    long[] w = new long[4];
    try {
      for (int l = 0; l < L; l++) {
        // decode u, masking bit 255; values >= p are kept as they are (the arithmetic reduces them)
        int o = 32 * l;
        w[0] = le64(u, o);
        w[1] = le64(u, o + 8);
        w[2] = le64(u, o + 16);
        w[3] = le64(u, o + 24) & 0x7FFFFFFFFFFFFFFFL;
        for (int i = 0; i < 10; i++) {
          int bit = OFF[i];
          int wi = bit >>> 6;
          int sh = bit & 63;
          long v = w[wi] >>> sh;
          if (sh + WID[i] > 64) { // depends on the limb layout only
            v |= w[wi + 1] << (64 - sh);
          }
          x1[i * L + l] = v & ((1L << WID[i]) - 1);
        }
        x2[l] = 1;
        z3[l] = 1;
        // clamped scalar bits -> per-step swap masks (0 or -1), no branches on secret bits
        int prev = 0;
        for (int s = 254; s >= 0; s--) {
          int byt = k[o + (s >>> 3)] & 0xFF;
          if ((s >>> 3) == 0) {
            byt &= 248;
          }
          if ((s >>> 3) == 31) {
            byt = (byt & 127) | 64;
          }
          int bit = (byt >>> (s & 7)) & 1;
          masks[(254 - s) * L + l] = -(long) (bit ^ prev);
          prev = bit;
        }
        masks[255 * L + l] = -(long) prev;
      }
      System.arraycopy(x1, 0, x3, 0, N);

      for (int s = 0; s < 255; s++) {
        Fe25519Vector.cswap2(masks, s * L, x2, x3, z2, z3);
        Fe25519Vector.add(a, x2, z2);
        Fe25519Vector.sub(b, x2, z2);
        Fe25519Vector.add(c, x3, z3);
        Fe25519Vector.sub(d, x3, z3);
        Fe25519Vector.mul(d, d, a); // DA
        Fe25519Vector.mul(c, c, b); // CB
        Fe25519Vector.sq(aa, a);
        Fe25519Vector.sq(bb, b);
        Fe25519Vector.add(t, d, c);
        Fe25519Vector.sq(x3, t); // x3 = (DA+CB)^2
        Fe25519Vector.sub(t, d, c);
        Fe25519Vector.sq(t, t);
        Fe25519Vector.mul(z3, t, x1); // z3 = x1*(DA-CB)^2
        Fe25519Vector.mul(x2, aa, bb); // x2 = AA*BB
        Fe25519Vector.sub(e, aa, bb); // E
        Fe25519Vector.mul121666Add(t, e, bb); // BB + 121666*E == AA + 121665*E
        Fe25519Vector.mul(z2, e, t); // z2 = E*(AA + a24*E)
      }
      Fe25519Vector.cswap2(masks, 255 * L, x2, x3, z2, z3);

      invert(z2, z2, a, b, c, d);
      Fe25519Vector.mul(x2, x2, z2);
      long[] lane = aa; // reused as scratch (zeroed below)
      long[] g = bb;
      for (int l = 0; l < L; l++) {
        for (int i = 0; i < 10; i++) {
          lane[i] = x2[i * L + l];
        }
        encode(lane, g, w, r, 32 * l);
      }
    } finally {
      for (long[] s : new long[][] {x1, x2, z2, x3, z3, a, b, c, d, aa, bb, e, t, masks, w}) {
        Arrays.fill(s, 0L);
      }
    }
  }

  /** out = z^(p-2), a fixed chain of 254 squarings and 11 multiplications. */
  private static void invert(long[] out, long[] z, long[] i0, long[] i1, long[] i2, long[] i3) {
    Fe25519Vector.sq(i0, z); // 2
    Fe25519Vector.sqn(i1, i0, 2); // 8
    Fe25519Vector.mul(i1, z, i1); // 9
    Fe25519Vector.mul(i0, i0, i1); // 11
    Fe25519Vector.sq(i2, i0); // 22
    Fe25519Vector.mul(i1, i1, i2); // 2^5-1
    Fe25519Vector.sqn(i2, i1, 5);
    Fe25519Vector.mul(i1, i2, i1); // 2^10-1
    Fe25519Vector.sqn(i2, i1, 10);
    Fe25519Vector.mul(i2, i2, i1); // 2^20-1
    Fe25519Vector.sqn(i3, i2, 20);
    Fe25519Vector.mul(i2, i3, i2); // 2^40-1
    Fe25519Vector.sqn(i2, i2, 10);
    Fe25519Vector.mul(i1, i2, i1); // 2^50-1
    Fe25519Vector.sqn(i2, i1, 50);
    Fe25519Vector.mul(i2, i2, i1); // 2^100-1
    Fe25519Vector.sqn(i3, i2, 100);
    Fe25519Vector.mul(i2, i3, i2); // 2^200-1
    Fe25519Vector.sqn(i2, i2, 50);
    Fe25519Vector.mul(i1, i2, i1); // 2^250-1
    Fe25519Vector.sqn(i1, i1, 5);
    Fe25519Vector.mul(out, i1, i0); // 2^255-21 = p-2
  }

  /**
   * The canonical little-endian encoding of one field element f (10 limbs, overwritten) into
   * r[off..off+32), branch-free; g (10+) and w (4) are scratch.
   */
  private static void encode(long[] f, long[] g, long[] w, byte[] r, int off) {
    for (int pass = 0; pass < 3; pass++) {
      for (int i = 0; i < 10; i++) {
        long cy = f[i] >> WID[i];
        f[i] &= (1L << WID[i]) - 1;
        if (i < 9) {
          f[i + 1] += cy;
        } else {
          f[0] += 19 * cy;
        }
      }
    }
    // now 0 <= f < 2^255 with canonical limbs; g = f + 19 carries out of bit 255 iff f >= p
    long cy = 19;
    for (int i = 0; i < 10; i++) {
      long v = f[i] + cy;
      cy = v >> WID[i];
      g[i] = v & ((1L << WID[i]) - 1);
    }
    long m = -cy;
    for (int i = 0; i < 10; i++) {
      f[i] = (g[i] & m) | (f[i] & ~m);
    }
    Arrays.fill(w, 0L);
    for (int i = 0; i < 10; i++) {
      int bit = OFF[i];
      int wi = bit >>> 6;
      int sh = bit & 63;
      w[wi] |= f[i] << sh;
      if (sh + WID[i] > 64) {
        w[wi + 1] |= f[i] >>> (64 - sh);
      }
    }
    for (int i = 0; i < 32; i++) {
      r[off + i] = (byte) (w[i >>> 3] >>> (8 * (i & 7)));
    }
  }
}
