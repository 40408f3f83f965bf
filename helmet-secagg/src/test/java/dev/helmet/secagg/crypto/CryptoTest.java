package dev.helmet.secagg.crypto;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.math.BigInteger;
import java.util.HexFormat;
import java.util.SplittableRandom;
import org.apache.commons.statistics.distribution.ChiSquaredDistribution;
import org.junit.jupiter.api.Test;

class CryptoTest {
  private static final HexFormat HEX = HexFormat.of();
  private static final CryptoProfile P = CryptoProfile.NONE;

  /** RFC 5869, Appendix A.1 (Test Case 1: basic test case with SHA-256). */
  @Test
  void hkdfMatchesRfc5869TestCase1() {
    byte[] ikm = HEX.parseHex("0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b");
    byte[] salt = HEX.parseHex("000102030405060708090a0b0c");
    byte[] info = HEX.parseHex("f0f1f2f3f4f5f6f7f8f9");
    byte[] okm = Hkdf.derive(ikm, salt, info, 42, P);
    assertEquals("3cb25f25faacd57a90434f64d0362f2a2d2d0a90cf1a5a4c5db02d56ecc4c5bf34007208d5b887185865",
        HEX.formatHex(okm));
  }

  /** RFC 5869, Appendix A.2 (longer inputs, three output blocks) and A.3 (no salt, no info). */
  @Test
  void hkdfMatchesRfc5869TestCases2And3() {
    byte[] ikm = new byte[80];
    byte[] salt = new byte[80];
    byte[] info = new byte[80];
    for (int i = 0; i < 80; i++) {
      ikm[i] = (byte) i;
      salt[i] = (byte) (0x60 + i);
      info[i] = (byte) (0xb0 + i);
    }
    assertEquals("b11e398dc80327a1c8e7f78c596a49344f012eda2d4efad8a050cc4c19afa97c59045a99cac7827271cb41c65e590e09da"
        + "3275600c2f09b8367793a9aca3db71cc30c58179ec3e87c14c01d5c1f3434f1d87", HEX.formatHex(Hkdf.derive(ikm, salt, info,
        82, P)));
    byte[] ikm3 = HEX.parseHex("0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b");
    assertEquals("8da4e775a563c18f715f802a063c5a31b8a11f5c5ee1879ec3454e5f3c738d2d9d201395faa4b61a96c8",
        HEX.formatHex(Hkdf.derive(ikm3, new byte[0], new byte[0], 42, P)));
  }

  @Test
  void aeadRoundTripsAndRejectsAnyTamperingOrWrongContext() {
    byte[] key = Secrets.bytes(32);
    byte[] aad = "session 1, from 2 to 3".getBytes();
    byte[] pt = "the shares".getBytes();
    byte[] c = Aead.encrypt(key, aad, pt, P);
    assertArrayEquals(pt, Aead.decrypt(key, aad, c, P));
    for (int i = 0; i < c.length; i++) {
      byte[] t = c.clone();
      t[i] ^= 0x40;
      int at = i;
      assertThrows(CryptoException.class, () -> Aead.decrypt(key, aad, t, P), "byte " + at);
    }
    assertThrows(CryptoException.class, () -> Aead.decrypt(key, "session 1, from 2 to 4".getBytes(), c, P));
    assertThrows(CryptoException.class, () -> Aead.decrypt(Secrets.bytes(32), aad, c, P));
    assertNotEquals(HEX.formatHex(c), HEX.formatHex(Aead.encrypt(key, aad, pt, P)), "fresh nonce each time");
  }

  @Test
  void x25519AgreementIsSymmetricAndRejectsSmallOrderKeys() {
    X25519Keys.KeyPair a = X25519Keys.generate();
    X25519Keys.KeyPair b = X25519Keys.generate();
    assertArrayEquals(X25519Keys.agree(a.secret(), b.publicKey(), P), X25519Keys.agree(b.secret(), a.publicKey(), P));
    assertThrows(CryptoException.class, () -> X25519Keys.agree(a.secret(), new byte[32], P)); // the identity point
    assertFalse(a.toString().contains(HEX.formatHex(a.secret())), "toString never shows the secret");
  }

  @Test
  void signaturesVerifyOnlyTheSignedMessageUnderTheSignersKey() {
    Signatures.KeyPair k = Signatures.generate();
    byte[] msg = "U3 = {1, 2, 5}".getBytes();
    byte[] sig = Signatures.sign(k.secret(), msg, P);
    assertTrue(Signatures.verify(k.publicKey(), msg, sig, P));
    assertFalse(Signatures.verify(k.publicKey(), "U3 = {1, 2}".getBytes(), sig, P));
    assertFalse(Signatures.verify(Signatures.generate().publicKey(), msg, sig, P));
    assertFalse(Signatures.verify(k.publicKey(), msg, new byte[10], P));
  }

  @Test
  void maskGeneratorIsDeterministicPerSeedMaskedToTheRingAndCancels() {
    byte[] seed = Secrets.bytes(32);
    for (int bits : new int[] {12, 32, 64}) {
      long[] a = new long[70_001];
      long[] b = new long[70_001];
      MaskPrg.apply(seed, false, a, bits, P);
      MaskPrg.apply(seed, false, b, bits, P);
      assertArrayEquals(a, b);
      long mask = bits == 64 ? -1L : (1L << bits) - 1;
      for (long v : a) {
        assertEquals(0, v & ~mask);
      }
      MaskPrg.apply(seed, true, a, bits, P);
      assertArrayEquals(new long[70_001], a, "adding then subtracting the same mask cancels");
    }
  }

  @Test
  void fieldArithmeticAgreesWithBigIntegers() {
    SplittableRandom r = new SplittableRandom(1);
    BigInteger p = BigInteger.valueOf(Shamir.P);
    assertTrue(p.isProbablePrime(100));
    for (int i = 0; i < 100_000; i++) {
      long a = r.nextLong(Shamir.P);
      long b = i < 10 ? Shamir.P - 1 - i : r.nextLong(Shamir.P);
      assertEquals(BigInteger.valueOf(a).multiply(BigInteger.valueOf(b)).mod(p).longValue(), Shamir.mul(a, b));
      if (a != 0 && i % 100 == 0) {
        assertEquals(1, Shamir.mul(a, Shamir.inverse(a)));
      }
    }
  }

  @Test
  void anyThresholdSubsetReconstructsAndFewerCannot() {
    SplittableRandom r = new SplittableRandom(2);
    for (int trial = 0; trial < 200; trial++) {
      int n = 2 + r.nextInt(40);
      int t = 1 + r.nextInt(n);
      byte[] secret = Secrets.bytes(32);
      int[] xs = dev.helmet.core.util.Shuffle.permutation(1000, r);
      int[] holders = new int[n];
      for (int i = 0; i < n; i++) {
        holders[i] = xs[i] + 1;
      }
      long[][] shares = Shamir.split(secret, t, holders, P);
      int[] pick = dev.helmet.core.util.Shuffle.permutation(n, r);
      int[] sx = new int[t];
      long[][] ss = new long[t][];
      for (int j = 0; j < t; j++) {
        sx[j] = holders[pick[j]];
        ss[j] = shares[pick[j]];
      }
      assertArrayEquals(secret, Shamir.reconstruct(sx, ss, t, P));
      if (t > 1) {
        int[] fewer = java.util.Arrays.copyOf(sx, t - 1);
        long[][] fs = java.util.Arrays.copyOf(ss, t - 1);
        assertThrows(IllegalArgumentException.class, () -> Shamir.reconstruct(fewer, fs, fewer.length + 1, P));
      }
    }
  }

  /**
   * t - 1 shares reveal nothing: the shares of holders 1 and 2 under a 3-out-of-5 sharing have the
   * same (uniform) distribution whether the secret is all zeros or all ones. Chi-square test of
   * homogeneity over 16 buckets of each share's first field element, 20,000 sharings per secret, at
   * the 1e-7 upper quantile of chi-square with 15 degrees of freedom, per holder: a false-failure
   * rate of 2e-7.
   */
  @Test
  void fewerThanThresholdSharesAreIndependentOfTheSecret() {
    byte[] zeros = new byte[32];
    byte[] ones = new byte[32];
    java.util.Arrays.fill(ones, (byte) 0xff);
    int runs = 20_000;
    int[] holders = {1, 2, 3, 4, 5};
    double crit = ChiSquaredDistribution.of(15).inverseSurvivalProbability(1e-7);
    for (int h = 0; h < 2; h++) {
      long[][] counts = new long[2][16];
      for (int s = 0; s < 2; s++) {
        for (int i = 0; i < runs; i++) {
          long v = Shamir.split(s == 0 ? zeros : ones, 3, holders, P)[h][0];
          counts[s][(int) (v >>> 57)]++; // top 4 of 61 bits
        }
      }
      double chi2 = 0;
      for (int b = 0; b < 16; b++) {
        double col = counts[0][b] + counts[1][b];
        for (int s = 0; s < 2; s++) {
          double e = col / 2;
          chi2 += (counts[s][b] - e) * (counts[s][b] - e) / e;
        }
      }
      assertTrue(chi2 < crit, "holder " + (h + 1) + ": chi2 " + chi2 + " >= " + crit);
    }
  }
}
