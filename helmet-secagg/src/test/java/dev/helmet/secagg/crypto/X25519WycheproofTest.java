package dev.helmet.secagg.crypto;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.bouncycastle.math.ec.rfc7748.X25519;
import org.junit.jupiter.api.Test;

/**
 * Project Wycheproof's 518 X25519 vectors (src/test/resources/wycheproof, commit dac1dd4): the
 * BouncyCastle path, the vectorised ladder in every lane of a batch, and the key-agreement API,
 * which must refuse exactly the vectors whose shared secret is zero (low-order public keys).
 */
class X25519WycheproofTest {
  private static final HexFormat HEX = HexFormat.of();
  private static final Pattern TEST = Pattern.compile(
      "\"tcId\"\\s*:\\s*(\\d+).*?\"flags\"\\s*:\\s*\\[([^]]*)].*?\"public\"\\s*:\\s*\"([0-9a-f]{64})\".*?"
          + "\"private\"\\s*:\\s*\"([0-9a-f]{64})\".*?\"shared\"\\s*:\\s*\"([0-9a-f]{64})\".*?\"result\"\\s*:\\s*\"(\\w+)\"",
      Pattern.DOTALL);

  record Vector(int id, boolean zeroShared, byte[] pub, byte[] priv, byte[] shared, String result) {}

  static List<Vector> vectors() throws IOException {
    String json;
    try (InputStream in = X25519WycheproofTest.class.getResourceAsStream("/wycheproof/x25519_test.json")) {
      json = new String(in.readAllBytes(), StandardCharsets.UTF_8);
    }
    List<Vector> out = new ArrayList<>();
    Matcher m = TEST.matcher(json);
    while (m.find()) {
      out.add(new Vector(Integer.parseInt(m.group(1)), m.group(2).contains("ZeroSharedSecret"),
          HEX.parseHex(m.group(3)), HEX.parseHex(m.group(4)), HEX.parseHex(m.group(5)), m.group(6)));
    }
    assertEquals(518, out.size(), "every vector of the file is read");
    return out;
  }

  @Test
  void bouncyCastleGivesEverySharedSecret() throws IOException {
    for (Vector v : vectors()) {
      byte[] r = new byte[32];
      X25519.scalarMult(v.priv(), 0, v.pub(), 0, r, 0);
      assertArrayEquals(v.shared(), r, "tcId " + v.id());
    }
  }

  @Test
  void theVectorLadderGivesEverySharedSecretInEveryLane() throws IOException {
    org.junit.jupiter.api.Assumptions.assumeTrue(X25519Dispatch.vectorSupported(),
        "jdk.incubator.vector with 256-bit vectors is not available");
    List<Vector> all = vectors();
    int lanes = X25519Vector.LANES;
    // Each vector in each lane position once: shift the batches by one vector per pass.
    for (int shift = 0; shift < lanes; shift++) {
      for (int at = -shift; at < all.size(); at += lanes) {
        byte[] k = new byte[32 * lanes];
        byte[] u = new byte[32 * lanes];
        byte[] r = new byte[32 * lanes];
        for (int l = 0; l < lanes; l++) {
          Vector v = all.get(Math.floorMod(at + l, all.size()));
          System.arraycopy(v.priv(), 0, k, 32 * l, 32);
          System.arraycopy(v.pub(), 0, u, 32 * l, 32);
        }
        X25519Vector.scalarMult(k, u, r);
        for (int l = 0; l < lanes; l++) {
          Vector v = all.get(Math.floorMod(at + l, all.size()));
          byte[] lane = java.util.Arrays.copyOfRange(r, 32 * l, 32 * l + 32);
          assertArrayEquals(v.shared(), lane, "tcId " + v.id() + " in lane " + l);
        }
      }
    }
  }

  @Test
  void agreementRefusesExactlyTheZeroSharedSecrets() throws IOException {
    List<Vector> all = vectors();
    int refused = 0;
    for (Vector v : all) {
      assertTrue(v.result().equals("valid") || v.result().equals("acceptable"), "tcId " + v.id());
      if (v.zeroShared()) {
        refused++;
        assertThrows(CryptoException.class, () -> X25519Keys.agree(v.priv(), v.pub(), CryptoProfile.NONE),
            "tcId " + v.id());
        assertThrows(CryptoException.class,
            () -> X25519Keys.agreeAll(v.priv(), List.of(v.pub()), CryptoProfile.NONE), "tcId " + v.id());
      } else {
        assertArrayEquals(v.shared(), X25519Keys.agree(v.priv(), v.pub(), CryptoProfile.NONE), "tcId " + v.id());
        assertArrayEquals(v.shared(), X25519Keys.agreeAll(v.priv(), List.of(v.pub()), CryptoProfile.NONE).get(0),
            "tcId " + v.id());
      }
    }
    assertTrue(refused >= 20, "the file's low-order cases: " + refused);
  }

  @Test
  void aMalformedSecretIsTheSameErrorForOneAndForMany() {
    byte[] pub = X25519Keys.generate().publicKey();
    for (byte[] secret : new byte[][] {null, new byte[31], new byte[33]}) {
      CryptoException one = assertThrows(CryptoException.class, () -> X25519Keys.agree(secret, pub,
          CryptoProfile.NONE));
      CryptoException many = assertThrows(CryptoException.class, () -> X25519Keys.agreeAll(secret, List.of(pub),
          CryptoProfile.NONE));
      assertEquals(one.getMessage(), many.getMessage());
    }
  }
}
