package dev.helmet.protocols.algorithm;

import java.util.List;

/**
 * One party's side of a {@link Setup}: it holds its secrets and, after the last step, whatever the
 * plan's contributor needs from the setup (cross-silo: its tokens and the joint seed).
 */
public interface SetupParty {
  /**
   * Its post at {@code step}, from the posts {@link Setup#reads} names, in that order (each of its
   * public length, relayed unchanged and authenticated by the runner).
   *
   * @throws RuntimeException when a check fails (a malformed list, a missing own token, a reveal
   *     that does not match its commitment): the session must then end
   */
  byte[] post(int step, List<byte[]> read);
}
