package dev.helmet.privacy.mechanism;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.helmet.privacy.event.DistributedDiscreteGaussianDpEvent;
import dev.helmet.privacy.event.SkellamDpEvent;
import dev.helmet.privacy.noise.RandomBits;
import java.util.function.Function;
import org.junit.jupiter.api.Test;

/**
 * The distributed discrete Gaussian and distributed Skellam encodings end to end. Randomness is
 * seeded ({@link RandomBits#insecureForTesting}, fixed data seeds), so each test gives the same
 * answer on every run; each statistical check states its false-failure rate on random seeds.
 */
class BaselineEncodingTest {
  /** Two-sided normal quantile for a false-failure rate of 1e-7. */
  private static final double Z = 5.33;

  private static final int D = 4096;
  private static final int CLIENTS = 10;
  private static final double GAMMA = 64;

  /**
   * What the test sees of one run: W = signed(sum of messages) - sum of the clients' clipped,
   * rotated, scaled vectors (the rounding errors plus the noise, in the rotated domain), and the
   * decoded sum minus the clipped inputs' sum (in the input domain).
   */
  private record Run(double[] w, double[] decodedError, long[][] messages, ConditionalRounding rounding) {}

  private interface Encoder {
    double[] clipRotateScale(double[] x);

    long[] encode(double[] x);
  }

  private static Run run(RandomizedHadamard h, Encoder enc, RoundedSumDecoder dec, ConditionalRounding rounding,
      int bits, long seed) {
    long[][] messages = new long[CLIENTS][];
    double[] scaledSum = new double[D];
    double[] clippedSum = new double[h.dimension()];
    for (int i = 0; i < CLIENTS; i++) {
      // norms from 0.5 to 1.4: some clipped to c = 1, some not
      double[] x = SmmEncodingTest.unitBall(h.dimension(), 0.5 + 0.1 * i, seed * 100 + i);
      double[] g = enc.clipRotateScale(x);
      double[] clipped = ConditionalRounding.clipL2(x, 1);
      for (int j = 0; j < D; j++) {
        scaledSum[j] += g[j];
      }
      for (int j = 0; j < clipped.length; j++) {
        clippedSum[j] += clipped[j];
      }
      messages[i] = enc.encode(x);
    }
    long[] sum = SmmDecoder.sumMod(bits, messages);
    double[] w = new double[D];
    for (int j = 0; j < D; j++) {
      w[j] = SmmDecoder.toSigned(sum[j], bits) - scaledSum[j];
    }
    double[] decoded = dec.decode(sum);
    double[] err = new double[decoded.length];
    for (int j = 0; j < err.length; j++) {
      err[j] = decoded[j] - clippedSum[j];
    }
    return new Run(w, err, messages, rounding);
  }

  private static Run ddg(long sigma2, int bits, long seed) {
    RandomizedHadamard h = new RandomizedHadamard(D, seed);
    DdgParameters p = new DdgParameters(1, GAMMA, ConditionalRounding.DEFAULT_BETA, sigma2, 1, bits);
    DdgEncoder enc = new DdgEncoder(h, p, RandomBits.insecureForTesting(seed));
    return run(h, adapt(enc::clipRotateScale, enc::encode), RoundedSumDecoder.of(h, p), enc.rounding(), bits, seed);
  }

  private static Run skellam(long lambda, int bits, long seed) {
    RandomizedHadamard h = new RandomizedHadamard(D, seed);
    SkellamParameters p = new SkellamParameters(1, GAMMA, ConditionalRounding.DEFAULT_BETA, lambda, 1, bits);
    SkellamEncoder enc = new SkellamEncoder(h, p, RandomBits.insecureForTesting(seed));
    return run(h, adapt(enc::clipRotateScale, enc::encode), RoundedSumDecoder.of(h, p), enc.rounding(), bits, seed);
  }

  private static Run binomial(long trials, int bits, long seed) {
    RandomizedHadamard h = new RandomizedHadamard(D, seed);
    BinomialParameters p = new BinomialParameters(1, GAMMA, ConditionalRounding.DEFAULT_BETA, trials, bits);
    BinomialEncoder enc = new BinomialEncoder(h, p, RandomBits.insecureForTesting(seed));
    return run(h, adapt(enc::clipRotateScale, enc::encode), RoundedSumDecoder.of(h, p), enc.rounding(), bits, seed);
  }

  private static Encoder adapt(Function<double[], double[]> scale, Function<double[], long[]> encode) {
    return new Encoder() {
      @Override
      public double[] clipRotateScale(double[] x) {
        return scale.apply(x);
      }

      @Override
      public long[] encode(double[] x) {
        return encode.apply(x);
      }
    };
  }

  /**
   * Without noise every message is a conditional rounding of the client's scaled vector: each
   * coordinate the floor or the ceiling, the squared norm at most B; so each coordinate of W errs
   * by less than one unit per client.
   */
  @Test
  void withoutNoiseEveryMessageIsARoundingWithinTheNormBound() {
    for (Run r : new Run[] {ddg(0, 24, 1), skellam(0, 24, 2)}) {
      for (long[] m : r.messages()) {
        long[] y = new long[D];
        for (int j = 0; j < D; j++) {
          y[j] = SmmDecoder.toSigned(m[j], 24);
        }
        assertTrue(r.rounding().withinBound(y), "a message breaks the bound B = " + r.rounding().squaredBound());
      }
      for (double v : r.w()) {
        assertTrue(Math.abs(v) < CLIENTS, "rounding error " + v);
      }
      assertDecodedErrorIsWBroughtBack(r);
    }
  }

  /**
   * The decoded sum errs from the clipped inputs' sum by exactly W rotated back and divided by
   * gamma (d = D, so the inverse rotation is an isometry): ||decoded - sum clip(x_i)|| = ||W|| /
   * gamma, up to floating-point error.
   */
  private static void assertDecodedErrorIsWBroughtBack(Run r) {
    double e2 = 0;
    double w2 = 0;
    for (double v : r.decodedError()) {
      e2 += v * v;
    }
    for (double v : r.w()) {
      w2 += v * v;
    }
    assertEquals(Math.sqrt(w2) / GAMMA, Math.sqrt(e2), 1e-9 * (1 + Math.sqrt(w2)));
  }

  /**
   * W = N + R: N the noise sum, independent across coordinates, each of variance v (n sigma^2 for
   * the discrete Gaussian with sigma = 20, exact to e^-(2 pi^2 sigma^2); 2 n lambda for Skellam),
   * R the rounding errors, |R_j| < n. Then sum_j W_j^2 / D has mean v + E|R|^2 / D, within [v, v
   * + n^2], and standard deviation about sqrt(2 / D) v from N^2 (both noises are Gaussian to a
   * fourth cumulant below 1e-3 v^2) plus 2 n sqrt(v / D) from the cross term. Checked at Z = 5.33
   * on each side: false-failure rate about 1e-7, plus the chi-square skew's share, below 1e-5.
   */
  private static void assertNoiseVariance(Run r, double v) {
    assertDecodedErrorIsWBroughtBack(r);
    double m = 0;
    for (double w : r.w()) {
      m += w * w;
    }
    m /= D;
    double sd = Math.sqrt(2.0 / D) * v + 2 * CLIENTS * Math.sqrt(v / D);
    assertTrue(m >= v - Z * sd, "mean squared error " + m + " below " + v + " - " + Z * sd);
    assertTrue(m <= v + CLIENTS * CLIENTS + Z * sd, "mean squared error " + m + " above " + v);
    // The decoded sum is the clipped inputs' sum within the noise: its error norm is about
    // sqrt(v D) / gamma, here about 62 / 64 for a sum of norm up to 10.
    double e2 = 0;
    for (double e : r.decodedError()) {
      e2 += e * e;
    }
    assertTrue(Math.sqrt(e2) <= Math.sqrt((v + CLIENTS * CLIENTS + Z * sd) * D) / GAMMA);
  }

  @Test
  void ddgDecodesTheClippedSumWithTheNoiseOfNDiscreteGaussians() {
    assertNoiseVariance(ddg(400, 24, 3), CLIENTS * 400.0);
  }

  @Test
  void skellamDecodesTheClippedSumWithTheNoiseOfNSkellams() {
    assertNoiseVariance(skellam(200, 24, 4), 2 * CLIENTS * 200.0);
  }

  /** cpSGD: n clients' centred binomials of N = 1600 trials, variance n N / 4 (Gaussian to 1/N). */
  @Test
  void binomialDecodesTheClippedSumWithTheNoiseOfNBinomials() {
    assertNoiseVariance(binomial(1600, 24, 7), CLIENTS * 400.0);
    assertNoiseVariance(binomial(1600, 16, 8), CLIENTS * 400.0);
  }

  /** In a 16-bit ring the sum (|W| about 63, 6 sd below 2^15 minus the signal) never wraps. */
  @Test
  void aSixteenBitRingDecodesTheSame() {
    assertNoiseVariance(ddg(400, 16, 5), CLIENTS * 400.0);
    assertNoiseVariance(skellam(200, 16, 6), 2 * CLIENTS * 200.0);
  }

  @Test
  void encodersAreSecureByDefaultAndDescribeTheirRelease() {
    RandomizedHadamard h = new RandomizedHadamard(3000, 9);
    DdgParameters dp = new DdgParameters(1, 64, ConditionalRounding.DEFAULT_BETA, 2500, 1, 16);
    DdgEncoder ddg = new DdgEncoder(h, dp);
    assertTrue(ddg.isSecure());
    assertFalse(new DdgEncoder(h, dp, RandomBits.insecureForTesting(1)).isSecure());
    DistributedDiscreteGaussianDpEvent e = ddg.event(100);
    assertTrue(e.sigma() <= 50 && e.sigma() > 50 * (1 - 1e-14), "sigma rounded down: " + e.sigma());
    assertEquals(100, e.parties());
    assertEquals(4096, e.dimension());
    // B = 64^2 + 4096/4 + 64 + 64/2 = 5216
    assertEquals(5216, ddg.rounding().squaredBound());
    assertTrue(e.l2Sensitivity() >= Math.sqrt(5216) && e.l2Sensitivity() <= Math.sqrt(5216) * (1 + 1e-15));
    assertEquals(Math.min(5216, Math.sqrt(4096.0 * 5216)), e.l1Sensitivity(), 1e-9);

    SkellamParameters sp = new SkellamParameters(1, 64, ConditionalRounding.DEFAULT_BETA, 5, 2, 16);
    SkellamEncoder sk = new SkellamEncoder(h, sp);
    assertTrue(sk.isSecure());
    SkellamDpEvent k = sk.event(100);
    assertTrue(k.mu() <= 250 && k.mu() > 250 * (1 - 1e-14), "mu = n lambda rounded down: " + k.mu());
    assertEquals(e.l2Sensitivity(), k.l2Sensitivity());
    assertEquals(e.l1Sensitivity(), k.l1Sensitivity());
    assertEquals(4096, sk.encode(new double[3000]).length);
    assertEquals(3000, RoundedSumDecoder.of(h, sp).decode(new long[4096]).length);
  }

  @Test
  void eventsNeedNoiseTheTheoremsCover() {
    RandomizedHadamard h = new RandomizedHadamard(16, 1);
    assertThrows(IllegalStateException.class,
        () -> new DdgEncoder(h, new DdgParameters(1, 4, 0.5, 0, 1, 16)).event(10));
    assertThrows(IllegalStateException.class,
        () -> new DdgEncoder(h, new DdgParameters(1, 4, 0.5, 1, 5, 16)).event(10), "sigma^2 = 1/5 < 1/4");
    assertThrows(IllegalStateException.class,
        () -> new SkellamEncoder(h, new SkellamParameters(1, 4, 0.5, 0, 1, 16)).event(10));
  }

  @Test
  void badParametersAreRefusedNamingThem() {
    IllegalArgumentException a = assertThrows(IllegalArgumentException.class,
        () -> new DdgParameters(1, 0x1p30, 0.5, 1, 1, 16));
    assertTrue(a.getMessage().contains("c gamma"), a.getMessage());
    IllegalArgumentException b = assertThrows(IllegalArgumentException.class,
        () -> new SkellamParameters(1, 4, 1, 1, 1, 16));
    assertTrue(b.getMessage().contains("beta"), b.getMessage());
    assertThrows(IllegalArgumentException.class, () -> new SkellamParameters(1, 4, 0.5, 1L << 41, 1, 16));
    assertThrows(IllegalArgumentException.class, () -> new DdgParameters(1, 4, 0.5, 1, 1, 65));
    RandomizedHadamard h = new RandomizedHadamard(16, 1);
    RoundedSumDecoder dec = RoundedSumDecoder.of(h, new DdgParameters(1, 4, 0.5, 1, 1, 8));
    IllegalArgumentException c = assertThrows(IllegalArgumentException.class, () -> dec.decode(new long[] {256}));
    assertTrue(c.getMessage().contains("length"), c.getMessage());
    long[] big = new long[16];
    big[2] = 256;
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> dec.decode(big));
    assertTrue(e.getMessage().contains("coordinate 2"), e.getMessage());
  }
}
