package dev.helmet.protocols.algorithm;

import dev.helmet.core.util.Parallel;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Runs a {@link Setup} with every party in this process: the same party code as over the network,
 * with a map for the board. It checks each post's public length (and a unanimous step's agreement)
 * as the networked coordinator does, and counts the bytes a party sends and reads.
 */
public final class SetupBoard {
  private SetupBoard() {}

  /**
   * What a run produced.
   *
   * @param parties each party's side after the last step
   * @param bytesPerParty mean bytes a party posted and read (payload only)
   * @param seconds wall time
   */
  public record Result(List<SetupParty> parties, long bytesPerParty, double seconds) {
    public Result {
      parties = List.copyOf(parties);
    }
  }

  /** Runs {@code setup} for parties 0 .. parties - 1; speakers of a step post in parallel. */
  public static Result run(Setup setup, int parties, int threads) {
    long start = System.nanoTime();
    List<SetupParty> sides = new ArrayList<>(parties);
    for (int i = 0; i < parties; i++) {
      sides.add(setup.party(i));
    }
    Map<Setup.PostId, byte[]> board = new HashMap<>();
    long bytes = 0;
    for (int s = 0; s < setup.steps(); s++) {
      int step = s;
      int[] speakers = setup.speakers(step);
      byte[][] posts = new byte[speakers.length][];
      List<List<byte[]>> reads = new ArrayList<>();
      for (int k = 0; k < speakers.length; k++) {
        List<byte[]> read = new ArrayList<>();
        for (Setup.PostId id : setup.reads(step, speakers[k])) {
          byte[] p = board.get(id);
          if (p == null) {
            throw new IllegalStateException("step " + step + " of " + setup.describe() + " reads post " + id
                + ", which is not on the board");
          }
          read.add(p);
          bytes += p.length;
        }
        reads.add(read);
      }
      Parallel.forEach(threads, speakers.length, k -> posts[k] = sides.get(speakers[k]).post(step, reads.get(k)));
      for (int k = 0; k < speakers.length; k++) {
        check(setup, step, speakers[k], posts[k]);
        if (setup.unanimous(step) && !java.util.Arrays.equals(posts[k], posts[0])) {
          throw new IllegalStateException("parties " + speakers[0] + " and " + speakers[k] + " disagree at step "
              + step + " of " + setup.describe());
        }
        board.put(new Setup.PostId(step, speakers[k]), posts[k]);
        bytes += posts[k].length;
      }
    }
    return new Result(sides, parties == 0 ? 0 : bytes / parties, (System.nanoTime() - start) / 1e9);
  }

  /** A post of any other length than the schedule's is refused, naming the party and step. */
  public static void check(Setup setup, int step, int party, byte[] post) {
    long want = setup.bytes(step, party);
    if (post == null || post.length != want) {
      throw new IllegalArgumentException("party " + party + "'s post at step " + step + " of " + setup.describe()
          + " is " + (post == null ? "missing" : post.length + " bytes") + "; the schedule says " + want);
    }
  }
}
