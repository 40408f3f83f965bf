package dev.helmet.secagg.crypto;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.math.BigInteger;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.List;
import java.util.SplittableRandom;
import org.bouncycastle.math.ec.rfc7748.X25519;
import org.junit.jupiter.api.Test;

/** The vectorised X25519 ladder against RFC 7748 and BouncyCastle, and the batch API. */
class X25519VectorTest {
  private static final HexFormat HEX = HexFormat.of();
  private static final BigInteger P = BigInteger.ONE.shiftLeft(255).subtract(BigInteger.valueOf(19));

  private static void assumeVector() {
    assumeTrue(X25519Dispatch.vectorSupported(), "jdk.incubator.vector with 256-bit vectors is not available");
  }

  private static byte[] le(BigInteger x) {
    byte[] be = x.toByteArray();
    byte[] out = new byte[32];
    for (int i = 0; i < 32 && i < be.length; i++) {
      out[i] = be[be.length - 1 - i];
    }
    return out;
  }

  /** One lane's result of the vector ladder, with the same (k, u) in every lane. */
  private static byte[] vectorAll(byte[] k, byte[] u) {
    int lanes = X25519Vector.LANES;
    byte[] kk = new byte[32 * lanes];
    byte[] uu = new byte[32 * lanes];
    byte[] rr = new byte[32 * lanes];
    for (int l = 0; l < lanes; l++) {
      System.arraycopy(k, 0, kk, 32 * l, 32);
      System.arraycopy(u, 0, uu, 32 * l, 32);
    }
    X25519Vector.scalarMult(kk, uu, rr);
    byte[] r0 = Arrays.copyOf(rr, 32);
    for (int l = 1; l < lanes; l++) {
      assertArrayEquals(r0, Arrays.copyOfRange(rr, 32 * l, 32 * l + 32), "lane " + l);
    }
    return r0;
  }

  /** RFC 7748, section 5.2: the two test vectors. */
  @Test
  void vectorPathMatchesRfc7748Vectors() {
    assumeVector();
    String[][] vectors = {
        {"a546e36bf0527c9d3b16154b82465edd62144c0ac1fc5a18506a2244ba449ac4",
            "e6db6867583030db3594c1a424b15f7c726624ec26b3353b10a903a6d0ab1c4c",
            "c3da55379de9c6908e94ea4df28d084f32eccf03491c71f754b4075577a28552"},
        {"4b66e9d4d1b4673c5ad22691957d6af5c11b6421e0ea01d42ca4169e7918ba0d",
            "e5210f12786811d3f4b7959d0538ae2c31dbe7106fc03c3efc4cd549c715a493",
            "95cbde9476e8907d7aade45cb4b873f88b595a68799fa152e6f8f7647aac7957"}};
    for (String[] v : vectors) {
      assertEquals(v[2], HEX.formatHex(vectorAll(HEX.parseHex(v[0]), HEX.parseHex(v[1]))));
    }
  }

  /** RFC 7748, section 5.2: the iterated test after 1 and 1,000 iterations. */
  @Test
  void vectorPathMatchesRfc7748Iterations() {
    assumeVector();
    byte[] k = new byte[32];
    byte[] u = new byte[32];
    k[0] = 9;
    u[0] = 9;
    for (int it = 1; it <= 1000; it++) {
      byte[] r = vectorAll(k, u);
      u = k;
      k = r;
      if (it == 1) {
        assertEquals("422c8e7a6227d7bca1350b3e2bb7279f7897b87bb6854b783c60e80311ae3079", HEX.formatHex(k));
      }
    }
    assertEquals("684cf59ba83309552800ef566f2f4d3c1c3887c49360e3875f2eb94d99532c51", HEX.formatHex(k));
  }

  private static List<byte[]> specialUs() {
    List<byte[]> s = new ArrayList<>();
    for (BigInteger x : new BigInteger[] {BigInteger.ZERO, BigInteger.ONE, P.subtract(BigInteger.ONE), P,
        P.add(BigInteger.ONE), P.add(BigInteger.valueOf(18)), BigInteger.ONE.shiftLeft(255).subtract(BigInteger.ONE),
        BigInteger.ONE.shiftLeft(256).subtract(BigInteger.ONE), P.add(BigInteger.ONE.shiftLeft(255)),
        BigInteger.ONE.shiftLeft(255), BigInteger.valueOf(9)}) {
      s.add(le(x));
    }
    return s;
  }

  private static byte[] randomU(SplittableRandom rnd, List<byte[]> special, int idx) {
    byte[] u = new byte[32];
    rnd.nextBytes(u);
    switch (idx % 6) {
      case 0:
        return special.get(rnd.nextInt(special.size())).clone();
      case 1: // p <= u < 2^255, optionally with the high bit set
        Arrays.fill(u, 1, 32, (byte) 0xFF);
        u[0] = (byte) (0xED + rnd.nextInt(0x13));
        if (rnd.nextBoolean()) {
          u[31] &= 0x7F;
        }
        return u;
      case 2:
        u[31] |= (byte) 0x80;
        return u;
      default:
        return u;
    }
  }

  /** 2,000 random pairs in batches of 1..9 with one secret each: the vector path equals BouncyCastle. */
  @Test
  void vectorBatchesMatchBouncyCastle() {
    assumeVector();
    SplittableRandom rnd = new SplittableRandom(20261125);
    List<byte[]> special = specialUs();
    int pairs = 0;
    int zeros = 0;
    int batch = 0;
    while (pairs < 2000) {
      int n = 1 + (batch++ % 9);
      byte[] secret = new byte[32];
      rnd.nextBytes(secret);
      if (batch % 2 == 0) { // pre-clamped and raw scalars both
        secret[0] &= (byte) 248;
        secret[31] = (byte) ((secret[31] & 127) | 64);
      }
      List<byte[]> us = new ArrayList<>();
      for (int i = 0; i < n; i++) {
        us.add(randomU(rnd, special, pairs + i));
      }
      byte[][] v = new byte[n][];
      boolean[] vok = new boolean[n];
      byte[][] b = new byte[n][];
      boolean[] bok = new boolean[n];
      X25519Dispatch.agreeAllVector(secret, us, v, vok);
      X25519Dispatch.agreeAllBc(secret, us, b, bok);
      for (int i = 0; i < n; i++) {
        assertArrayEquals(b[i], v[i], "batch of " + n + ", u=" + HEX.formatHex(us.get(i)));
        assertEquals(bok[i], vok[i]);
        zeros += bok[i] ? 0 : 1;
      }
      pairs += n;
    }
    assertTrue(zeros > 0, "the small-order inputs were exercised");
  }

  /**
   * Many secrets with one public key (an onion layer's ephemeral keys): on the vector path, 1,000
   * random secrets in batches of 1..9 against random and special u, and against the base point,
   * give BouncyCastle's bytes (the base point: its public keys); generateMany's public keys are
   * publicKey(secret), and agreeEach equals agree on each, throwing the same error for a small-order
   * key.
   */
  @Test
  void manySecretsWithOnePublicKeyMatchBouncyCastle() {
    SplittableRandom rnd = new SplittableRandom(20261126);
    List<byte[]> special = specialUs();
    byte[] nine = new byte[32];
    nine[0] = 9;
    int done = 0;
    int batch = 0;
    while (X25519Dispatch.vectorSupported() && done < 1000) {
      int n = 1 + (batch++ % 9);
      List<byte[]> secrets = new ArrayList<>();
      for (int i = 0; i < n; i++) {
        byte[] k = new byte[32];
        rnd.nextBytes(k);
        secrets.add(k);
      }
      for (byte[] u : List.of(randomU(rnd, special, done), nine)) {
        byte[][] v = new byte[n][];
        boolean[] vok = new boolean[n];
        X25519Dispatch.agreeEachVector(secrets, u, v, vok);
        for (int i = 0; i < n; i++) {
          byte[] b = new byte[32];
          boolean bok = X25519.calculateAgreement(secrets.get(i), 0, u, 0, b, 0);
          assertArrayEquals(b, v[i], "secret " + i + " of " + n + ", u=" + HEX.formatHex(u));
          assertEquals(bok, vok[i]);
          if (u == nine) {
            assertArrayEquals(X25519Keys.publicKey(secrets.get(i)), v[i]);
          }
        }
      }
      done += n;
    }
    for (X25519Keys.KeyPair k : X25519Keys.generateMany(9)) {
      assertArrayEquals(X25519Keys.publicKey(k.secret()), k.publicKey());
    }
    byte[] peer = X25519Keys.generate().publicKey();
    List<byte[]> secrets = new ArrayList<>();
    X25519Keys.generateMany(7).forEach(k -> secrets.add(k.secret()));
    List<byte[]> each = X25519Keys.agreeEach(secrets, peer, CryptoProfile.NONE);
    for (int i = 0; i < secrets.size(); i++) {
      assertArrayEquals(X25519Keys.agree(secrets.get(i), peer, CryptoProfile.NONE), each.get(i));
    }
    CryptoException small = assertThrows(CryptoException.class,
        () -> X25519Keys.agreeEach(secrets, new byte[32], CryptoProfile.NONE));
    assertEquals(assertThrows(CryptoException.class,
        () -> X25519Keys.agree(secrets.get(0), new byte[32], CryptoProfile.NONE)).getMessage(), small.getMessage());
  }

  /** agreeAll equals agree on each key, and throws what the first failing agree throws. */
  @Test
  void agreeAllEqualsRepeatedAgree() {
    X25519Keys.KeyPair me = X25519Keys.generate();
    for (int n = 0; n <= 9; n++) {
      List<byte[]> peers = new ArrayList<>();
      for (int i = 0; i < n; i++) {
        peers.add(X25519Keys.generate().publicKey());
      }
      List<byte[]> all = X25519Keys.agreeAll(me.secret(), peers, CryptoProfile.NONE);
      assertEquals(n, all.size());
      for (int i = 0; i < n; i++) {
        assertArrayEquals(X25519Keys.agree(me.secret(), peers.get(i), CryptoProfile.NONE), all.get(i));
      }
      if (X25519Dispatch.vectorSupported()) {
        byte[][] v = new byte[n][];
        X25519Dispatch.agreeAllVector(me.secret(), peers, v, new boolean[n]);
        for (int i = 0; i < n; i++) {
          assertArrayEquals(all.get(i), v[i]);
        }
      }
    }
    byte[] good = X25519Keys.generate().publicKey();
    byte[] zero = new byte[32];
    CryptoException small = assertThrows(CryptoException.class,
        () -> X25519Keys.agreeAll(me.secret(), List.of(good, good, zero, new byte[31]), CryptoProfile.NONE));
    assertEquals(assertThrows(CryptoException.class, () -> X25519Keys.agree(me.secret(), zero, CryptoProfile.NONE))
        .getMessage(), small.getMessage());
    CryptoException len = assertThrows(CryptoException.class,
        () -> X25519Keys.agreeAll(me.secret(), List.of(good, new byte[31], zero), CryptoProfile.NONE));
    assertEquals(assertThrows(CryptoException.class,
        () -> X25519Keys.agree(me.secret(), new byte[31], CryptoProfile.NONE)).getMessage(), len.getMessage());
    List<byte[]> withNull = new ArrayList<>(List.of(good));
    withNull.add(null);
    assertThrows(CryptoException.class, () -> X25519Keys.agreeAll(me.secret(), withNull, CryptoProfile.NONE));
  }

  /**
   * Every small-order u (RFC 7748 / the standard list: 0, 1, the two points of order 8, p - 1, p,
   * p + 1, and the same with the top bit set) in every lane position of batches of 1 to 9, with
   * random keys in the other lanes: the vector path flags exactly that lane (all-zero result) and
   * gives BouncyCastle's bytes in every other.
   */
  @Test
  void everySmallOrderInputInEveryLaneIsFlaggedOnTheVectorPath() {
    assumeVector();
    List<byte[]> small = new ArrayList<>();
    for (BigInteger u : List.of(BigInteger.ZERO, BigInteger.ONE,
        new BigInteger("325606250916557431795983626356110631294008115727848805560023387167927233504"),
        new BigInteger("39382357235489614581723060781553021112529911719440698176882885853963445705823"),
        P.subtract(BigInteger.ONE), P, P.add(BigInteger.ONE))) {
      small.add(le(u));
      byte[] high = le(u);
      high[31] |= (byte) 0x80;
      small.add(high);
    }
    SplittableRandom rnd = new SplittableRandom(11);
    byte[] secret = X25519Keys.generate().secret();
    int checked = 0;
    for (byte[] bad : small) {
      for (int n = 1; n <= 9; n++) {
        for (int at = 0; at < n; at++) {
          List<byte[]> peers = new ArrayList<>();
          for (int i = 0; i < n; i++) {
            if (i == at) {
              peers.add(bad);
            } else {
              byte[] k = new byte[32];
              rnd.nextBytes(k);
              peers.add(k);
            }
          }
          byte[][] out = new byte[n][];
          boolean[] ok = new boolean[n];
          X25519Dispatch.agreeAllVector(secret, peers, out, ok);
          for (int i = 0; i < n; i++) {
            byte[] want = new byte[32];
            boolean wantOk = X25519.calculateAgreement(secret, 0, peers.get(i), 0, want, 0);
            assertEquals(i != at, ok[i], "lane " + i + " of " + n);
            assertEquals(wantOk, ok[i]);
            if (wantOk) {
              assertArrayEquals(want, out[i]);
            }
          }
          checked++;
        }
      }
    }
    assertEquals(14 * 45, checked);
  }

  /**
   * The automatic path: BouncyCastle until a large run is announced; after {@link
   * X25519Keys#prepareForMany} of 100,000 agreements, the vector path where the JVM supports it and
   * its warm-up found it faster; the same bytes before and after.
   */
  @Test
  void autoPathIsBouncyCastleUntilALargeRunAndTheSameBytesAfter() {
    X25519Keys.KeyPair me = X25519Keys.generate();
    List<byte[]> peers = new ArrayList<>();
    for (int i = 0; i < 6; i++) {
      peers.add(X25519Keys.generate().publicKey());
    }
    List<byte[]> before = X25519Keys.agreeAll(me.secret(), peers, CryptoProfile.NONE);
    if (X25519Dispatch.MODE == X25519Dispatch.Mode.AUTO) {
      X25519Keys.prepareForMany(1000); // too few: nothing happens
      assertTrue(!X25519Dispatch.isWarm() || X25519Dispatch.useVector(6));
    }
    X25519Keys.prepareForMany(100_000);
    List<byte[]> after = X25519Keys.agreeAll(me.secret(), peers, CryptoProfile.NONE);
    for (int i = 0; i < peers.size(); i++) {
      assertArrayEquals(X25519Keys.agree(me.secret(), peers.get(i), CryptoProfile.NONE), before.get(i));
      assertArrayEquals(before.get(i), after.get(i));
    }
    if (X25519Dispatch.MODE == X25519Dispatch.Mode.AUTO) {
      assertEquals(X25519Dispatch.isWarm() && X25519Dispatch.vectorSupported() && X25519Dispatch.c2Available(),
          X25519Dispatch.useVector(6));
      assertTrue(!X25519Dispatch.useVector(1), "a single agreement always goes to BouncyCastle");
    }
    System.out.println("X25519 auto path: vector supported " + X25519Dispatch.vectorSupported() + ", C2 "
        + X25519Dispatch.c2Available() + ", warm " + X25519Dispatch.isWarm());
  }
}
