package dev.helmet.secagg.mixnet;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;

import dev.helmet.secagg.crypto.Secrets;
import dev.helmet.secagg.mixnet.MixnetAbortException.Reason;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;

class JointSeedTest {

  private static TokenList list(int n) {
    List<Token> t = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      t.add(Token.random(Secrets.random()));
    }
    return TokenList.ofTokens(t, n);
  }

  private static List<JointSeed.Contribution> draw(byte[] context, int parties) {
    List<JointSeed.Contribution> c = new ArrayList<>();
    for (int i = 0; i < parties; i++) {
      c.add(JointSeed.Contribution.draw(context, i));
    }
    return c;
  }

  private static List<byte[]> commitments(List<JointSeed.Contribution> c) {
    return c.stream().map(JointSeed.Contribution::commitment).toList();
  }

  private static List<byte[]> reveals(List<JointSeed.Contribution> c) {
    return c.stream().map(JointSeed.Contribution::reveal).toList();
  }

  @Test
  void honestRevealsGiveOneSeedThatEveryRevealChanges() {
    byte[] context = JointSeed.context(Secrets.bytes(16), list(20));
    List<JointSeed.Contribution> c = draw(context, 4);
    byte[] s = JointSeed.combine(context, commitments(c), reveals(c));
    assertEquals(32, s.length);
    assertArrayEquals(s, JointSeed.combine(context, commitments(c), reveals(c)));
    for (int i = 0; i < 4; i++) {
      List<JointSeed.Contribution> other = new ArrayList<>(c);
      other.set(i, JointSeed.Contribution.draw(context, i));
      assertFalse(Arrays.equals(s, JointSeed.combine(context, commitments(other), reveals(other))), "party " + i);
    }
  }

  @Test
  void aRevealThatDoesNotMatchItsCommitmentAbortsNamingTheParty() {
    byte[] context = JointSeed.context(Secrets.bytes(16), list(5));
    List<JointSeed.Contribution> c = draw(context, 3);
    List<byte[]> r = new ArrayList<>(reveals(c));
    r.get(2)[0] ^= 1;
    MixnetAbortException e = assertThrows(MixnetAbortException.class, () -> JointSeed.combine(context,
        commitments(c), r));
    assertEquals(Reason.BAD_REVEAL, e.reason());
    assertEquals(2, e.party());
    assertEquals("BAD_REVEAL: party 2's revealed share does not match its commitment", e.getMessage());
    r.set(2, new byte[31]);
    assertEquals("BAD_REVEAL: party 2 revealed 31 bytes, a seed share is 32", assertThrows(MixnetAbortException.class,
        () -> JointSeed.combine(context, commitments(c), r)).getMessage());
    // a share swapped in from another party does not verify either: commitments bind the index
    List<byte[]> swapped = new ArrayList<>(reveals(c));
    swapped.set(0, c.get(1).reveal());
    assertEquals(0, assertThrows(MixnetAbortException.class, () -> JointSeed.combine(context, commitments(c),
        swapped)).party());
  }

  /**
   * Doubt 10: the seed is bound to the final list. A commitment made for one list (say, before the
   * last mixer fixed it) does not verify for another, so a seed can only be drawn once the list is
   * public, and nobody can pick the list after seeing the seed.
   */
  @Test
  void theSeedIsBoundToTheFinalListAndSession() {
    byte[] session = Secrets.bytes(16);
    TokenList a = list(8);
    TokenList b = list(8);
    byte[] ca = JointSeed.context(session, a);
    assertArrayEquals(ca, JointSeed.context(session, TokenList.ofTokens(a.tokens(), 8)));
    assertFalse(Arrays.equals(ca, JointSeed.context(session, b)));
    assertFalse(Arrays.equals(ca, JointSeed.context(Secrets.bytes(16), a)));
    List<JointSeed.Contribution> c = draw(ca, 2);
    byte[] cb = JointSeed.context(session, b);
    assertThrows(MixnetAbortException.class, () -> JointSeed.combine(cb, commitments(c), reveals(c)));
    assertFalse(c.get(0).toString().contains(Arrays.toString(c.get(0).reveal())));
  }
}
