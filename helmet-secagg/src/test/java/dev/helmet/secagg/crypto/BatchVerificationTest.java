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
  /** A null key counts as invalid, in a batch or alone, as a malformed one does. */
  @Test
  void aNullKeyIsNamedNotThrown() {
    for (int n : new int[] {1, 2, 3, 8}) {
      Batch b = signed(n, new SplittableRandom(6 + n));
      int bad = n - 1;
      b.keys().set(bad, null);
      assertFalse(Signatures.batch(b.keys(), b.messages(), b.signatures()), n + " signatures");
      assertEquals(bad, Signatures.firstInvalid(b.keys(), b.messages(), b.signatures(), P), n + " signatures");
    }
  }

  /**
   * Signatures whose R or key carries a small-order component, as only the key's holder can make
   * them. BouncyCastle's verify (1.73 and later) checks the cofactored equation and accepts them;
   * the batch must judge them alike, alone or among others, so that no party's decision depends on
   * how many signatures it checks or whether another one in its batch is bad.
   */
  @Test
  void torsionComponentsAreJudgedAsBouncyCastleJudgesThem() throws Exception {
    SplittableRandom r = new SplittableRandom(7);
    java.util.Random jr = new java.util.Random(7);
    List<Ref.Pt> torsion = Ref.torsion();
    for (int round = 0; round < 6; round++) {
      Batch b = new Batch(new ArrayList<>(), new ArrayList<>(), new ArrayList<>());
      for (int i = 0; i < 4; i++) {
        BigInteger a = new BigInteger(252, jr).add(BigInteger.ONE);
        BigInteger nonce = new BigInteger(252, jr);
        Ref.Pt key = Ref.add(Ref.mul(a, Ref.B), torsion.get((i & 1) == 0 ? 0 : 1 + r.nextInt(7)));
        Ref.Pt rPoint = Ref.add(Ref.mul(nonce, Ref.B), torsion.get((i & 2) == 0 ? 0 : 1 + r.nextInt(7)));
        byte[] m = new byte[r.nextInt(40)];
        r.nextBytes(m);
        byte[] sig = Ref.sign(a, nonce, key, rPoint, m);
        assertTrue(Ed25519.verify(sig, 0, Ref.encode(key), 0, m, 0, m.length), "BouncyCastle's verify is cofactored");
        assertTrue(Signatures.batch(List.of(Signatures.PublicKey.of(Ref.encode(key))), List.of(m), List.of(sig)));
        b.keys().add(Signatures.PublicKey.of(Ref.encode(key)));
        b.messages().add(m);
        b.signatures().add(sig);
      }
      for (int n = 1; n <= 4; n++) {
        assertEquals(-1, Signatures.firstInvalid(b.keys().subList(0, n), b.messages().subList(0, n),
            b.signatures().subList(0, n), P), n + " signatures");
      }
      int bad = r.nextInt(4);
      byte[] tampered = b.signatures().get(bad).clone();
      tampered[32] ^= 1;
      b.signatures().set(bad, tampered);
      assertEquals(bad, Signatures.firstInvalid(b.keys(), b.messages(), b.signatures(), P));
    }
  }

  /**
   * R encoded with y >= p, or as x = 0 with the sign bit set, is rejected by both, even when its
   * value satisfies the equation (R the identity or of order 4, S = k a); the canonical identity is
   * accepted by both.
   */
  @Test
  void nonCanonicalREncodingsAreRejectedAsBouncyCastleRejectsThem() throws Exception {
    java.util.Random jr = new java.util.Random(8);
    BigInteger a = new BigInteger(252, jr).add(BigInteger.ONE);
    Ref.Pt key = Ref.mul(a, Ref.B);
    byte[] pk = Ref.encode(key);
    byte[] m = "U3 = {0, 1, 2}".getBytes();
    List<byte[]> encodings = new ArrayList<>();
    for (int j = 0; j < 19; j++) {
      encodings.add(Ref.le32(Edwards25519.P.add(BigInteger.valueOf(j))));
    }
    for (int j = 0; j < 19; j++) {
      byte[] signed = encodings.get(j).clone();
      signed[31] |= (byte) 0x80;
      encodings.add(signed);
    }
    encodings.add(HEX.parseHex("0100000000000000000000000000000000000000000000000000000000000080")); // x = 0, y = 1
    encodings.add(HEX.parseHex("ecffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff")); // x = 0, y = -1
    for (byte[] encodedR : encodings) {
      byte[] sig = Ref.signWithR(a, BigInteger.ZERO, pk, encodedR, m);
      boolean bc = Ed25519.verify(sig, 0, pk, 0, m, 0, m.length);
      assertFalse(bc, HEX.formatHex(encodedR));
      assertEquals(bc, Signatures.batch(List.of(Signatures.PublicKey.of(pk)), List.of(m), List.of(sig)),
          HEX.formatHex(encodedR));
    }
    byte[] identity = Ref.signWithR(a, BigInteger.ZERO, pk, Ref.encode(torsion0()), m);
    assertTrue(Ed25519.verify(identity, 0, pk, 0, m, 0, m.length));
    assertTrue(Signatures.batch(List.of(Signatures.PublicKey.of(pk)), List.of(m), List.of(identity)));
  }

  private static Ref.Pt torsion0() {
    return new Ref.Pt(BigInteger.ZERO, BigInteger.ONE);
  }

  /** The extended-coordinate formulas against affine arithmetic, on points with and without torsion. */
  @Test
  void additionAndDoublingAgreeWithAffineArithmetic() {
    java.util.Random jr = new java.util.Random(9);
    List<Ref.Pt> torsion = Ref.torsion();
    Edwards25519.Scratch s = new Edwards25519.Scratch();
    for (int i = 0; i < 60; i++) {
      Ref.Pt p = i % 4 == 0 ? torsion.get((i / 4) % 8) : Ref.add(Ref.mul(new BigInteger(253, jr), Ref.B), torsion.get(i % 8));
      Ref.Pt q = i % 3 == 0 ? p : Ref.add(Ref.mul(new BigInteger(253, jr), Ref.B), torsion.get((i / 8) % 8));
      Edwards25519.Point pp = Edwards25519.decode(Ref.encode(p));
      Edwards25519.Point qq = Edwards25519.decode(Ref.encode(q));
      assertEquals(p, Ref.affine(pp));
      Edwards25519.Point sum = new Edwards25519.Point();
      sum.set(pp);
      Edwards25519.add(sum, new Edwards25519.Cached(qq), sum, s);
      assertEquals(Ref.add(p, q), Ref.affine(sum), "P + Q");
      Edwards25519.add(sum, new Edwards25519.Cached(qq).negate(), sum, s);
      assertEquals(p, Ref.affine(sum), "P + Q - Q");
      Edwards25519.Point twice = new Edwards25519.Point();
      Edwards25519.dbl(pp, twice, true, s);
      assertEquals(Ref.add(p, p), Ref.affine(twice), "2P");
      assertEquals(Ref.neg(p), Ref.affine(pp.negate()), "-P");
      assertEquals(i % 4 == 0, Edwards25519.smallOrder(pp));
    }
  }

  /** Affine edwards25519 over BigInteger, for building test points and signatures. */
  private static final class Ref {
    static final BigInteger Q = Edwards25519.P;
    static final BigInteger D = BigInteger.valueOf(-121665).multiply(BigInteger.valueOf(121666).modInverse(Q)).mod(Q);
    static final Pt B = new Pt(
        new BigInteger("15112221349535400772501151409588531511454012693041857206046113283949847762202"),
        new BigInteger("46316835694926478169428394003475163141307993866256225615783033603165251855960"));

    record Pt(BigInteger x, BigInteger y) {}

    static Pt add(Pt p, Pt q) {
      BigInteger t = D.multiply(p.x()).multiply(q.x()).mod(Q).multiply(p.y()).multiply(q.y()).mod(Q);
      BigInteger x = p.x().multiply(q.y()).add(p.y().multiply(q.x())).multiply(BigInteger.ONE.add(t).modInverse(Q));
      BigInteger y = p.y().multiply(q.y()).add(p.x().multiply(q.x()))
          .multiply(BigInteger.ONE.subtract(t).mod(Q).modInverse(Q));
      return new Pt(x.mod(Q), y.mod(Q));
    }

    static Pt neg(Pt p) {
      return new Pt(p.x().negate().mod(Q), p.y());
    }

    static Pt mul(BigInteger k, Pt p) {
      Pt r = new Pt(BigInteger.ZERO, BigInteger.ONE);
      for (int i = k.bitLength() - 1; i >= 0; i--) {
        r = add(r, r);
        if (k.testBit(i)) {
          r = add(r, p);
        }
      }
      return r;
    }

    /** The eight points of small order: the multiples of a point of order 8. */
    static List<Pt> torsion() {
      BigInteger y = new BigInteger(1, reverse(HEX.parseHex(
          "26e8958fc2b227b045c3f489f2ef98f0d5dfac05d3c63339b13802886d53fc05")));
      BigInteger x2 = y.multiply(y).subtract(BigInteger.ONE).multiply(D.multiply(y).multiply(y).add(BigInteger.ONE)
          .modInverse(Q)).mod(Q);
      BigInteger x = x2.modPow(Q.add(BigInteger.valueOf(3)).shiftRight(3), Q);
      if (!x.multiply(x).mod(Q).equals(x2)) {
        x = x.multiply(BigInteger.TWO.modPow(Q.subtract(BigInteger.ONE).shiftRight(2), Q)).mod(Q);
      }
      assertEquals(x2, x.multiply(x).mod(Q));
      Pt t = new Pt(x, y);
      List<Pt> all = new ArrayList<>();
      Pt acc = new Pt(BigInteger.ZERO, BigInteger.ONE);
      for (int i = 0; i < 8; i++) {
        all.add(acc);
        acc = add(acc, t);
      }
      assertEquals(all.get(0), acc, "order 8");
      return all;
    }

    static byte[] le32(BigInteger v) {
      return reverse(leftPad(v.toByteArray()));
    }

    static byte[] encode(Pt p) {
      byte[] e = le32(p.y());
      e[31] |= (byte) (p.x().testBit(0) ? 0x80 : 0);
      return e;
    }

    static Pt affine(Edwards25519.Point p) {
      int[] zInv = org.bouncycastle.math.ec.rfc7748.X25519Field.create();
      org.bouncycastle.math.ec.rfc7748.X25519Field.inv(p.z, zInv);
      BigInteger x = field(p.x, zInv);
      BigInteger y = field(p.y, zInv);
      assertEquals(x.multiply(y).mod(Q), field(p.t, zInv), "T = XY/Z");
      return new Pt(x, y);
    }

    private static BigInteger field(int[] v, int[] zInv) {
      int[] t = org.bouncycastle.math.ec.rfc7748.X25519Field.create();
      org.bouncycastle.math.ec.rfc7748.X25519Field.mul(v, zInv, t);
      org.bouncycastle.math.ec.rfc7748.X25519Field.normalize(t);
      byte[] b = new byte[32];
      org.bouncycastle.math.ec.rfc7748.X25519Field.encode(t, b, 0);
      return new BigInteger(1, reverse(b));
    }

    /** (R, S = nonce + k a mod L) with k = SHA-512(R || A || M): what an honest signer of the points makes. */
    static byte[] sign(BigInteger a, BigInteger nonce, Pt key, Pt r, byte[] m) throws Exception {
      return signWithR(a, nonce, encode(key), encode(r), m);
    }

    static byte[] signWithR(BigInteger a, BigInteger nonce, byte[] pk, byte[] encodedR, byte[] m) throws Exception {
      java.security.MessageDigest sha = java.security.MessageDigest.getInstance("SHA-512");
      sha.update(encodedR);
      sha.update(pk);
      sha.update(m);
      BigInteger k = new BigInteger(1, reverse(sha.digest())).mod(Edwards25519.L);
      byte[] sig = new byte[64];
      System.arraycopy(encodedR, 0, sig, 0, 32);
      System.arraycopy(le32(nonce.add(k.multiply(a)).mod(Edwards25519.L)), 0, sig, 32, 32);
      return sig;
    }
  }
}
