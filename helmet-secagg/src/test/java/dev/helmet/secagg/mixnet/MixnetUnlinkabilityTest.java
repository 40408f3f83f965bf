package dev.helmet.secagg.mixnet;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.helmet.secagg.crypto.CryptoProfile;
import dev.helmet.secagg.crypto.Secrets;
import dev.helmet.secagg.crypto.X25519Keys;
import java.security.SecureRandom;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.apache.commons.statistics.distribution.BinomialDistribution;
import org.apache.commons.statistics.distribution.ChiSquaredDistribution;
import org.junit.jupiter.api.Test;

/**
 * Theorem 1 ii of the cross-silo paper, tested as a game: with N = 4 parties of one token each,
 * party 0 (the first mixer: it sees every published list and holds its own key, so it knows where
 * its own shuffle put each party's element) guesses which final position holds party 2's token.
 * Its best position-based strategy is to follow party 2's element through its own shuffle and
 * guess that position in the final list (the next one if that is its own token). Honest shuffles
 * by mixers 1..3 make the final order independent of its view, so it wins with probability exactly
 * 1/3 (party 2's token is one of the three tokens not its own). A control run with mixers that do
 * not shuffle shows the same strategy then always wins, so the test can fail.
 */
@org.junit.jupiter.api.Tag("statistical")
class MixnetUnlinkabilityTest {
  private static final int N = 4;

  /** A source whose permutations are the identity: a mixer that does not shuffle (test only). */
  private static final class NoShuffle extends SecureRandom {
    private static final long serialVersionUID = 1L;

    @Override
    public int nextInt(int bound) {
      return bound - 1; // Fisher-Yates then swaps every element with itself
    }
  }

  /** One game; returns {won, final position of party 2's token}. */
  private static int[] play(boolean honestMixers) {
    byte[] session = Secrets.bytes(16);
    List<MixnetParty> parties = new ArrayList<>();
    for (int i = 0; i < N; i++) {
      SecureRandom source = i == 0 || honestMixers ? null : new NoShuffle();
      parties.add(new MixnetParty(i, N, 1, session, X25519Keys.generate(), source));
    }
    List<List<byte[]>> seen = new ArrayList<>();
    MixnetSimulation.Result r = MixnetSimulation.run(parties, 1, (step, list) -> {
      seen.add(list);
      return list;
    });
    // party 0's view: the initial list (element i is party i's) and its own output
    MixnetParty observer = parties.get(0);
    byte[] peeled = OnionLayer.open(seen.get(0).get(2), observer.keysForTest(), session, 0, CryptoProfile.NONE);
    int tracked = -1;
    for (int p = 0; p < N; p++) {
      if (Arrays.equals(seen.get(1).get(p), peeled)) {
        tracked = p;
      }
    }
    List<byte[]> published = seen.get(N);
    int guess = tracked;
    if (observer.owns(Token.of(published.get(guess)))) {
      guess = (guess + 1) % N;
    }
    int where = -1;
    for (int p = 0; p < N; p++) {
      if (parties.get(2).owns(Token.of(published.get(p)))) {
        where = p;
      }
    }
    assertEquals(N, r.tokens().size());
    return new int[] {parties.get(2).owns(Token.of(published.get(guess))) ? 1 : 0, where};
  }

  /**
   * 1000 games: the wins must lie within the central interval of Binomial(1000, 1/3) that leaves
   * 1e-6 in each tail, and party 2's final position must pass a chi-square test of uniformity over
   * the 4 positions at the 1e-6 quantile (false-failure rate below 3e-6 for the test).
   */
  @Test
  void theFirstMixerCannotTellWhichTokenIsAnotherPartysBetterThanChance() {
    int games = 1000;
    int wins = 0;
    long[] positions = new long[N];
    for (int g = 0; g < games; g++) {
      int[] o = play(true);
      wins += o[0];
      positions[o[1]]++;
    }
    BinomialDistribution chance = BinomialDistribution.of(games, 1.0 / 3);
    int lo = chance.inverseCumulativeProbability(1e-6);
    int hi = chance.inverseSurvivalProbability(1e-6);
    assertTrue(wins >= lo && wins <= hi, wins + " wins of " + games + ", chance interval [" + lo + ", " + hi + "]");
    double e = games / (double) N;
    double chi2 = 0;
    for (long c : positions) {
      chi2 += (c - e) * (c - e) / e;
    }
    double crit = ChiSquaredDistribution.of(N - 1).inverseSurvivalProbability(1e-6);
    assertTrue(chi2 < crit, "final positions " + Arrays.toString(positions) + ": chi2 " + chi2 + " >= " + crit);
  }

  /** The control: if mixers 1..3 do not shuffle, following the element by position always wins. */
  @Test
  void withoutShufflesTheSameStrategyAlwaysWins() {
    for (int g = 0; g < 50; g++) {
      assertEquals(1, play(false)[0]);
    }
  }
}
