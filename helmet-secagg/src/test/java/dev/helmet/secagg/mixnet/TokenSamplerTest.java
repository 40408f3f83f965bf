package dev.helmet.secagg.mixnet;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.helmet.secagg.crypto.Secrets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.apache.commons.statistics.distribution.ChiSquaredDistribution;
import org.junit.jupiter.api.Test;

class TokenSamplerTest {

  private static TokenList list(int n) {
    List<Token> t = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      t.add(Token.random(Secrets.random()));
    }
    return TokenList.ofTokens(t, n);
  }

  @Test
  void batchesAreDistinctSortedPositionsAndDeterministicGivenTheSeed() {
    TokenList tokens = list(30);
    byte[] s = Secrets.bytes(32);
    TokenSampler a = new TokenSampler(tokens, s, 7);
    TokenSampler b = new TokenSampler(TokenList.ofTokens(tokens.tokens(), 30), s.clone(), 7);
    TokenSampler other = new TokenSampler(tokens, Secrets.bytes(32), 7);
    int differ = 0;
    for (long t = 0; t < 100; t++) {
      int[] p = a.positions(t);
      assertArrayEquals(p, b.positions(t), "step " + t);
      assertEquals(7, p.length);
      for (int i = 0; i < p.length; i++) {
        assertTrue(p[i] >= 0 && p[i] < 30 && (i == 0 || p[i] > p[i - 1]), Arrays.toString(p));
      }
      differ += Arrays.equals(p, other.positions(t)) ? 0 : 1;
      assertEquals(tokens.get(p[0]), a.batch(t).get(0));
    }
    // two seeds agree on a step with probability 1 / C(30, 7) = 4.9e-7
    assertEquals(100, differ);
    assertFalse(Arrays.equals(a.positions(0), a.positions(1)));
    assertArrayEquals(new int[] {0, 1, 2}, new TokenSampler(list(3), s, 3).positions(5));
    assertThrows(IllegalArgumentException.class, () -> new TokenSampler(tokens, s, 31));
    assertThrows(IllegalArgumentException.class, () -> new TokenSampler(tokens, new byte[16], 3));
    assertThrows(IllegalArgumentException.class, () -> a.positions(-1));
  }

  /**
   * Inclusion counts over 20,000 steps, n = 40, b = 8, expected 4,000 each: a chi-square test with
   * 39 degrees of freedom at the 1e-6 quantile. Conservative: under SWOR each count's variance is
   * (1 - b/n) times the multinomial one, so the statistic is about 0.8 chi2_39 and the
   * false-failure rate is below 1e-6. Also every position pair is included together about
   * b(b-1)/(n(n-1)) of the time (checked for the pair (0, 1) within 6 standard deviations).
   */
  @Test
  void everyTokenIsIncludedEquallyOften() {
    int n = 40;
    int b = 8;
    int steps = 20_000;
    TokenSampler s = new TokenSampler(list(n), Secrets.bytes(32), b);
    long[] counts = new long[n];
    int pair = 0;
    for (long t = 0; t < steps; t++) {
      int[] p = s.positions(t);
      for (int x : p) {
        counts[x]++;
      }
      if (p[0] == 0 && p[1] == 1) {
        pair++;
      }
    }
    double e = steps * (double) b / n;
    double chi2 = 0;
    for (long c : counts) {
      chi2 += (c - e) * (c - e) / e;
    }
    double crit = ChiSquaredDistribution.of(n - 1).inverseSurvivalProbability(1e-6);
    assertTrue(chi2 < crit, "chi2 " + chi2 + " >= " + crit + ", counts " + Arrays.toString(counts));
    double q = b * (b - 1.0) / (n * (n - 1.0));
    assertTrue(Math.abs(pair - steps * q) < 6 * Math.sqrt(steps * q * (1 - q)), pair + " vs " + steps * q);
  }

  /**
   * The whole pipeline in process: mix, seed after the list, sample. At each step the parties'
   * own records add up to the batch, and each record found belongs to the party that owns the
   * selected token.
   */
  @Test
  void eachPartyFindsExactlyItsOwnRecordsInEveryBatch() {
    byte[] session = Secrets.bytes(16);
    MixnetSimulation.Result mix = MixnetSimulation.run(new int[] {5, 7, 3}, session, 2);
    byte[] context = JointSeed.context(session, mix.tokens());
    List<JointSeed.Contribution> c = new ArrayList<>();
    for (int i = 0; i < 3; i++) {
      c.add(JointSeed.Contribution.draw(context, i));
    }
    byte[] seed = JointSeed.combine(context, c.stream().map(JointSeed.Contribution::commitment).toList(),
        c.stream().map(JointSeed.Contribution::reveal).toList());
    TokenSampler sampler = new TokenSampler(mix.tokens(), seed, 6);
    for (long t = 0; t < 50; t++) {
      List<Token> batch = sampler.batch(t);
      int found = 0;
      for (MixnetParty p : mix.parties()) {
        int[] records = p.recordsIn(batch);
        found += records.length;
        assertEquals(batch.stream().filter(p::owns).count(), records.length);
        for (int r : records) {
          assertTrue(r >= 0 && r < p.records());
        }
      }
      assertEquals(6, found, "step " + t);
    }
  }
}
