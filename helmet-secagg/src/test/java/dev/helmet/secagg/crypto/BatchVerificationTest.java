package dev.helmet.secagg.crypto;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.math.BigInteger;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.SplittableRandom;
import org.bouncycastle.math.ec.rfc8032.Ed25519;
import org.junit.jupiter.api.Test;

class BatchVerificationTest {
  private static final CryptoProfile P = CryptoProfile.NONE;
  private static final HexFormat HEX = HexFormat.of();

  private record Batch(List<Signatures.PublicKey> keys, List<byte[]> messages, List<byte[]> signatures) {}

  private static Batch signed(int n, SplittableRandom r) {
    Batch b = new Batch(new ArrayList<>(), new ArrayList<>(), new ArrayList<>());
    for (int i = 0; i < n; i++) {
      Signatures.KeyPair k = Signatures.generate();
      byte[] m = new byte[r.nextInt(200)];
      r.nextBytes(m);
      b.keys().add(Signatures.PublicKey.of(k.publicKey()));
      b.messages().add(m);
      b.signatures().add(Signatures.sign(k.secret(), m, P));
    }
    return b;
  }

  @Test
  void validSignaturesPassTogether() {
    SplittableRandom r = new SplittableRandom(1);
    for (int n : new int[] {1, 2, 3, 17, 64}) {
      Batch b = signed(n, r);
      assertTrue(Signatures.batch(b.keys(), b.messages(), b.signatures()), n + " signatures, by the batch equation");
      assertEquals(-1, Signatures.firstInvalid(b.keys(), b.messages(), b.signatures(), P), n + " signatures");
    }
  }

  @Test
  void theFirstBadSignatureIsNamedWhateverIsWrongWithIt() {
    SplittableRandom r = new SplittableRandom(2);
    BigInteger l = Edwards25519.L;
    for (int fault = 0; fault < 7; fault++) {
      Batch b = signed(12, r);
      int bad = 3 + r.nextInt(8);
      byte[] sig = b.signatures().get(bad).clone();
      switch (fault) {
        case 0 -> sig[r.nextInt(32)] ^= 1; // R
        case 1 -> sig[32 + r.nextInt(31)] ^= 1; // S, still below L
        case 2 -> b.messages().set(bad, "another message".getBytes());
        case 3 -> b.keys().set(bad, Signatures.PublicKey.of(Signatures.generate().publicKey()));
        case 4 -> { // S + L: the same point equation, but S is not reduced
          BigInteger s = new BigInteger(1, reverse(java.util.Arrays.copyOfRange(sig, 32, 64))).add(l);
          System.arraycopy(reverse(leftPad(s.toByteArray())), 0, sig, 32, 32);
        }
        case 5 -> sig = new byte[10];
        default -> b.keys().set(bad, Signatures.PublicKey.of(new byte[32])); // small order
      }
      b.signatures().set(bad, sig);
      assertFalse(Signatures.batch(b.keys(), b.messages(), b.signatures()), "fault " + fault);
      assertFalse(Signatures.verify(b.keys().get(bad).encoded(), b.messages().get(bad), sig, P), "fault " + fault);
      assertEquals(bad, Signatures.firstInvalid(b.keys(), b.messages(), b.signatures(), P), "fault " + fault);
    }
  }

  private static byte[] reverse(byte[] a) {
    byte[] b = new byte[a.length];
    for (int i = 0; i < a.length; i++) {
      b[i] = a[a.length - 1 - i];
    }
    return b;
  }

  private static byte[] leftPad(byte[] be) {
    byte[] out = new byte[32];
    int n = Math.min(32, be.length);
    System.arraycopy(be, be.length - n, out, 32 - n, n);
    return out;
  }

  /** Small-order points and non-canonical encodings ("Taming the many EdDSAs", Chalkias et al. 2020). */
  private static final String[] EDGE_KEYS = {
    "0100000000000000000000000000000000000000000000000000000000000000",
    "ecffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff7f",
    "0000000000000000000000000000000000000000000000000000000000000000",
    "0000000000000000000000000000000000000000000000000000000000000080",
    "26e8958fc2b227b045c3f489f2ef98f0d5dfac05d3c63339b13802886d53fc05",
    "26e8958fc2b227b045c3f489f2ef98f0d5dfac05d3c63339b13802886d53fc85",
    "c7176a703d4dd84fba3c0b760d10670f2a2053fa2c39ccc64ec7fd7792ac037a",
    "c7176a703d4dd84fba3c0b760d10670f2a2053fa2c39ccc64ec7fd7792ac03fa",
    "0100000000000000000000000000000000000000000000000000000000000080",
    "ecffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff",
    "edffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff7f",
    "eeffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff7f",
    "ffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff",
  };

  @Test
  void keysAreAcceptedExactlyWhenBouncyCastleAcceptsThem() {
    for (String hex : EDGE_KEYS) {
      byte[] k = HEX.parseHex(hex);
      assertEquals(Ed25519.validatePublicKeyPartial(k, 0), Signatures.PublicKey.of(k).valid(), hex);
    }
    SplittableRandom r = new SplittableRandom(3);
    int valid = 0;
    for (int i = 0; i < 2000; i++) {
      byte[] k = new byte[32];
      r.nextBytes(k);
      if (i % 4 == 0) {
        k = Signatures.generate().publicKey();
      }
      boolean expected = Ed25519.validatePublicKeyPartial(k, 0);
      valid += expected ? 1 : 0;
      assertEquals(expected, Signatures.PublicKey.of(k).valid(), HEX.formatHex(k));
    }
    assertTrue(valid > 500 && valid < 2000, valid + " valid keys: both outcomes were exercised");
  }

  @Test
  void nafDigitsAreSparseOddAndSumToTheScalar() {
    SplittableRandom r = new SplittableRandom(4);
    for (int i = 0; i < 2000; i++) {
      int w = 2 + r.nextInt(7);
      byte[] bytes = new byte[32];
      r.nextBytes(bytes);
      BigInteger k = i < 3 ? BigInteger.valueOf(i) : new BigInteger(1, bytes);
      byte[] d = Edwards25519.wnaf(k, w);
      BigInteger sum = BigInteger.ZERO;
      int lastNonzero = -w;
      for (int j = 0; j < d.length; j++) {
        if (d[j] != 0) {
          assertTrue((d[j] & 1) == 1 && Math.abs(d[j]) < 1 << (w - 1), "digit " + d[j]);
          assertTrue(j - lastNonzero >= w, "nonzero digits at most once per " + w);
          lastNonzero = j;
          sum = sum.add(BigInteger.valueOf(d[j]).shiftLeft(j));
        }
      }
      assertEquals(k, sum);
    }
  }

  /** [a]P + [b]Q + ... is the identity exactly when the scalars cancel modulo the group order. */
  @Test
  void multiScalarSumsAreIdentityExactlyWhenTheScalarsCancel() {
    SplittableRandom r = new SplittableRandom(5);
    BigInteger l = Edwards25519.L;
    for (int i = 0; i < 50; i++) {
      Edwards25519.Point p = i % 2 == 0 ? Edwards25519.base() : randomPoint(r);
      BigInteger a = new BigInteger(252, new java.util.Random(r.nextLong()));
      BigInteger b = new BigInteger(252, new java.util.Random(r.nextLong()));
      BigInteger c = l.subtract(a.add(b).mod(l)); // a + b + c = 0 mod L
      int w = 2 + r.nextInt(7);
      Edwards25519.Cached[] t = Edwards25519.oddMultiples(p, w);
      Edwards25519.Cached[][] tables = {t, t, t};
      assertTrue(Edwards25519.sumTimesCofactorIsIdentity(tables,
          new byte[][] {Edwards25519.wnaf(a, w), Edwards25519.wnaf(b, w), Edwards25519.wnaf(c, w)}));
      assertFalse(Edwards25519.sumTimesCofactorIsIdentity(tables,
          new byte[][] {Edwards25519.wnaf(a, w), Edwards25519.wnaf(b, w), Edwards25519.wnaf(c.add(BigInteger.ONE), w)}));
    }
    Edwards25519.Cached[][] base = {Edwards25519.oddMultiples(Edwards25519.base(), 5)};
    assertTrue(Edwards25519.sumTimesCofactorIsIdentity(base, new byte[][] {Edwards25519.wnaf(l, 5)}), "[L]B = 0");
    assertFalse(Edwards25519.sumTimesCofactorIsIdentity(base, new byte[][] {Edwards25519.wnaf(BigInteger.ONE, 5)}));
  }

  /** A random curve point of large order (it may have a small-order component, which [8] removes). */
  private static Edwards25519.Point randomPoint(SplittableRandom r) {
    while (true) {
      byte[] k = new byte[32];
      r.nextBytes(k);
      Edwards25519.Point p = Edwards25519.decode(k);
      if (p != null && !Edwards25519.smallOrder(p)) {
        return p;
      }
    }
  }
}
