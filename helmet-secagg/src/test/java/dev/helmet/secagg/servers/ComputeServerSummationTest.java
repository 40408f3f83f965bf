package dev.helmet.secagg.servers;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.helmet.secagg.crypto.CryptoProfile;
import dev.helmet.secagg.crypto.MaskPrg;
import dev.helmet.secagg.ring.FixedPointEncoding;
import dev.helmet.secagg.summation.DropoutPlan;
import dev.helmet.secagg.summation.SummationOutcome;
import dev.helmet.secagg.summation.SummationSpec;
import java.util.SplittableRandom;
import org.apache.commons.statistics.distribution.ChiSquaredDistribution;
import org.junit.jupiter.api.Test;

class ComputeServerSummationTest {

  @Test
  void theServersSumsAddUpToTheExactSumOfTheContributors() {
    SplittableRandom r = new SplittableRandom(1);
    for (int servers : new int[] {2, 3, 5}) {
      for (int bits : new int[] {2, 6, 10, 16, 32, 64}) {
        int n = 60;
        int d = 37;
        FixedPointEncoding enc = new FixedPointEncoding(bits, 0);
        long[][] x = new long[n][d];
        for (long[] v : x) {
          for (int i = 0; i < d; i++) {
            v[i] = r.nextLong() & enc.mask();
          }
        }
        int[] drop = new int[n];
        java.util.Arrays.fill(drop, -1);
        for (int u = 0; u < 12; u++) {
          drop[u * 5] = u % 2; // half before sending anything, half between seeds and last share
        }
        SummationOutcome o = new ComputeServerSummation(servers, (p, parties, steps) -> drop[p], 2)
            .run(new SummationSpec(n, d, enc, 1), u -> x[u]);
        assertEquals(SummationOutcome.Status.COMPLETED, o.status());
        long[] want = new long[d];
        for (int u = 0; u < n; u++) {
          if (drop[u] < 0) {
            for (int i = 0; i < d; i++) {
              want[i] = (want[i] + x[u][i]) & enc.mask();
            }
          }
        }
        assertArrayEquals(want, o.sum(), servers + " servers, " + bits + " bits");
        assertEquals(n - 12, o.contributors().size());
        assertEquals(12, o.dropped().size());
      }
    }
  }

  @Test
  void fewerContributorsThanTheThresholdAbort() {
    FixedPointEncoding enc = new FixedPointEncoding(32, 0);
    SummationOutcome o = new ComputeServerSummation(2, DropoutPlan.of(new int[] {0, 1, 2}, 1), 2)
        .run(new SummationSpec(5, 4, enc, 3), u -> new long[4]);
    assertEquals(SummationOutcome.Status.ABORTED, o.status());
    assertNull(o.sum());
  }

  /**
   * Each share alone is uniform whatever the input: for an all-zero input, the last share (what
   * server J sees) and a seeded share (what server 1 sees) pass a chi-square test over the 256
   * values of their top byte, 50,000 elements each, at the 1e-7 quantile: false-failure rate 2e-7.
   */
  @Test
  void everySingleShareIsUniformWhateverTheInput() {
    ComputeServerSummation.Shares s = ComputeServerSummation.split(new long[50_000], 2, 32, CryptoProfile.NONE);
    long[] seeded = new long[50_000];
    MaskPrg.apply(s.seeds()[0], false, seeded, 32, CryptoProfile.NONE);
    double crit = ChiSquaredDistribution.of(255).inverseSurvivalProbability(1e-7);
    for (long[] share : new long[][] {s.last(), seeded}) {
      long[] c = new long[256];
      for (long v : share) {
        c[(int) (v >>> 24)]++;
      }
      double e = share.length / 256.0;
      double chi2 = 0;
      for (long k : c) {
        chi2 += (k - e) * (k - e) / e;
      }
      assertTrue(chi2 < crit, "chi2 " + chi2);
    }
    // and the shares add back to the input
    long[] back = s.last().clone();
    MaskPrg.apply(s.seeds()[0], false, back, 32, CryptoProfile.NONE);
    assertArrayEquals(new long[50_000], back);
  }

  /** SMM's ring: raw elements of Z_{2^6}, summed by three servers, the last share 6 bits per element. */
  @Test
  void sumsRawElementsOfASixBitRingAndCountsTheLastSharePacked() {
    int n = 40;
    int d = 101;
    SplittableRandom r = new SplittableRandom(6);
    long[][] x = new long[n][d];
    long[] want = new long[d];
    for (long[] v : x) {
      for (int i = 0; i < d; i++) {
        v[i] = r.nextInt(64);
        want[i] = (want[i] + v[i]) % 64;
      }
    }
    SummationSpec spec = SummationSpec.ofRingElements(n, d, 6, n);
    SummationOutcome o = new ComputeServerSummation(3, DropoutPlan.NONE, 2).run(spec, u -> x[u]);
    assertEquals(SummationOutcome.Status.COMPLETED, o.status(), o.abortReason());
    assertArrayEquals(want, o.sum());
    // two seed messages (header 13 + 32 bytes) and the last share: 13 + ceil(101 * 6 / 8) = 13 + 76
    assertEquals(2 * 45 + 13 + 76, o.bytesPerParty());
  }

  @Test
  void aPartyWhoseInputIsOutsideTheRingOrTheWrongLengthIsLeftOutWithTheReason() {
    SummationSpec spec = SummationSpec.ofRingElements(4, 3, 6, 2);
    long[][] x = {{1, 2, 3}, {64, 0, 0}, {1, 1}, {5, 5, 5}};
    SummationOutcome o = new ComputeServerSummation(2, DropoutPlan.NONE, 2).run(spec, u -> x[u]);
    assertEquals(SummationOutcome.Status.COMPLETED, o.status());
    assertArrayEquals(new long[] {6, 7, 8}, o.sum());
    assertEquals(java.util.List.of(0, 3), o.contributors());
    assertEquals(java.util.List.of(
        new SummationOutcome.Drop(1, "LAST_SHARE", "MALFORMED_INPUT", "input element 0 is outside the 6-bit ring"),
        new SummationOutcome.Drop(2, "LAST_SHARE", "MALFORMED_INPUT", "input of length 2, expected 3")), o.dropped());
  }

  /**
   * The name is dca, compute-servers its alias; the parameters say per node what it received and
   * sent (3 nodes, 10 parties of which one left after its seeds: 9 x 45 + 13 + 2 bytes at the seed
   * nodes, 9 last shares of 13 + 76 bytes at the last), and per party what it sent.
   */
  @Test
  void reportsBytesAndSecondsPerNodeAndPerPartyUnderTheNameDca() {
    assertEquals("dca", new ComputeServerSummation(2, DropoutPlan.NONE, 1).name());
    assertTrue(ComputeServerSummation.named("compute-servers") && ComputeServerSummation.named("DCA"));
    int n = 10;
    SummationSpec spec = SummationSpec.ofRingElements(n, 101, 6, 2);
    SummationOutcome o = new ComputeServerSummation(3, DropoutPlan.of(new int[] {4}, 1), 2)
        .run(spec, u -> new long[101]);
    assertEquals(SummationOutcome.Status.COMPLETED, o.status(), o.abortReason());
    @SuppressWarnings("unchecked")
    java.util.List<java.util.Map<String, Object>> nodes = (java.util.List<java.util.Map<String, Object>>) o.parameters()
        .get("nodes");
    assertEquals(3, nodes.size());
    assertEquals(10L * 45 + 13 + 2, ((Number) nodes.get(0).get("bytes_in")).longValue());
    assertEquals(9L * (13 + 76), ((Number) nodes.get(2).get("bytes_in")).longValue());
    assertEquals(13L + 76, ((Number) nodes.get(0).get("bytes_out")).longValue());
    assertTrue(((Number) nodes.get(1).get("seconds")).doubleValue() >= 0);
    @SuppressWarnings("unchecked")
    java.util.List<java.util.Map<String, Object>> parties = (java.util.List<java.util.Map<String, Object>>) o
        .parameters().get("per_party");
    assertEquals(n, parties.size());
    assertEquals(2L * 45 + 13 + 76, ((Number) parties.get(0).get("bytes_out")).longValue());
    assertEquals(2L * 45, ((Number) parties.get(4).get("bytes_out")).longValue());
  }
}
