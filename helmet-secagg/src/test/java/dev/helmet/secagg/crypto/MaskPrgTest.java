package dev.helmet.secagg.crypto;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;

import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.SplittableRandom;
import javax.crypto.Cipher;
import javax.crypto.spec.IvParameterSpec;
import javax.crypto.spec.SecretKeySpec;
import org.junit.jupiter.api.Test;

class MaskPrgTest {
  private static final CryptoProfile P = CryptoProfile.NONE;

  /** The definition, one element at a time: little-endian ceil(b/8)-byte words of AES-256-CTR(seed, IV 0). */
  private static void reference(byte[] seed, boolean subtract, long[] acc, int bits) throws Exception {
    int width = (bits + 7) / 8;
    long mask = bits == 64 ? -1L : (1L << bits) - 1;
    Cipher c = Cipher.getInstance("AES/CTR/NoPadding");
    c.init(Cipher.ENCRYPT_MODE, new SecretKeySpec(seed, "AES"), new IvParameterSpec(new byte[16]));
    byte[] ks = c.doFinal(new byte[acc.length * width]);
    for (int i = 0; i < acc.length; i++) {
      long v = 0;
      for (int b = width - 1; b >= 0; b--) {
        v = (v << 8) | (ks[i * width + b] & 0xffL);
      }
      v &= mask;
      acc[i] = (subtract ? acc[i] - v : acc[i] + v) & mask;
    }
  }

  @Test
  void manySeedsAtOnceEqualTheDefinitionAppliedOneSeedAtATime() throws Exception {
    SplittableRandom r = new SplittableRandom(3);
    for (int bits : new int[] {2, 6, 8, 10, 12, 16, 20, 24, 31, 32, 40, 48, 56, 63, 64}) {
      for (int length : new int[] {0, 1, 7, 1023, 1024, 1025, 4097, 20_011}) {
        int seeds = 1 + r.nextInt(MaskPrg.GROUP + 10); // sometimes more than one group
        long mask = bits == 64 ? -1L : (1L << bits) - 1;
        long[] start = new long[length];
        for (int i = 0; i < length; i++) {
          start[i] = r.nextLong() & mask;
        }
        long[] expected = start.clone();
        long[] actual = start.clone();
        List<byte[]> keys = new ArrayList<>();
        boolean[] subtract = new boolean[seeds];
        for (int s = 0; s < seeds; s++) {
          keys.add(Secrets.bytes(32));
          subtract[s] = r.nextBoolean();
          reference(keys.get(s), subtract[s], expected, bits);
        }
        MaskPrg.apply(keys, subtract, actual, bits, P);
        assertArrayEquals(expected, actual, bits + " bits, " + length + " elements, " + seeds + " seeds");
      }
    }
  }

  /** Pins the generator's output (values from the per-element implementation it replaced). */
  @Test
  void masksOfAFixedSeedArePinned() {
    byte[] seed = HexFormat.of().parseHex("000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f");
    long[] a = new long[3];
    MaskPrg.apply(seed, false, a, 32, P);
    assertArrayEquals(new long[] {0xb60090f2L, 0xd09f492aL, 0x6a9af3a9L}, a);
    long[] b = new long[2];
    MaskPrg.apply(seed, false, b, 64, P);
    assertArrayEquals(new long[] {0xd09f492ab60090f2L, 0x80772edd6a9af3a9L}, b);
    long[] c = new long[2];
    MaskPrg.apply(seed, false, c, 20, P);
    assertArrayEquals(new long[] {0x90f2L, 0x92ab6L}, c);
  }

  /**
   * Masks in small rings are uniform: each element is the low b bits of a uniform keystream byte
   * (or of ceil(b/8) bytes), and 2^b divides 2^(8 ceil(b/8)). Chi-square over the 2^b values of
   * 2^b x 1000 mask elements at the 1e-7 upper quantile, for b = 2, 6 and 10: a false-failure rate
   * below 3e-7.
   */
  @Test
  void masksInSmallRingsAreUniform() {
    for (int bits : new int[] {2, 6, 10}) {
      int values = 1 << bits;
      long[] mask = new long[values * 1000];
      MaskPrg.apply(Secrets.bytes(32), false, mask, bits, P);
      long[] counts = new long[values];
      for (long v : mask) {
        counts[(int) v]++;
      }
      double expected = mask.length / (double) values;
      double chi2 = 0;
      for (long c : counts) {
        chi2 += (c - expected) * (c - expected) / expected;
      }
      double crit = org.apache.commons.statistics.distribution.ChiSquaredDistribution.of(values - 1)
          .inverseSurvivalProbability(1e-7);
      org.junit.jupiter.api.Assertions.assertTrue(chi2 < crit, bits + " bits: chi2 " + chi2 + " >= " + crit);
    }
  }
}
