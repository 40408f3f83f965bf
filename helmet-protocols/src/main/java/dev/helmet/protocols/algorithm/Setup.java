package dev.helmet.protocols.algorithm;

import java.util.List;

/**
 * A public exchange among the parties before round 0, for plans that need one (cross-silo's
 * sampling without replacement: the token mixnet and the joint seed). Its steps run on a bulletin
 * board: at step s each speaker posts one message, computed from the earlier posts it reads; a
 * runner (the in-process {@link SetupBoard} or the networked coordinator) only relays posts, in
 * order, and checks their public lengths. Everything on the board is public by design; secrets
 * stay inside each {@link SetupParty}.
 *
 * <p>The schedule (who speaks, who reads what, how long each post is) is a function of the public
 * plan, so every party and the runner derive it alike and a runner cannot ask a party for more.
 */
public interface Setup {
  /**
   * The longest post a board carries, in bytes: a runner assembles each post in one Java array
   * (whose length is at most {@code Integer.MAX_VALUE - 8} on common JVMs). A plan whose schedule
   * implies a longer post is refused when the session is validated ({@link
   * AlgorithmSpec#setupProblem}), before anyone trains.
   */
  long MAX_POST_BYTES = Integer.MAX_VALUE - 8;

  /** One post's place on the board: its step and its sender. */
  record PostId(int step, int sender) {}

  /** The number of steps (0 .. steps() - 1). */
  int steps();

  /** The parties that post at {@code step}, ascending. */
  int[] speakers(int step);

  /** The earlier posts {@code party} reads before it posts at {@code step}, in the order it takes them. */
  List<PostId> reads(int step, int party);

  /** The exact length in bytes of {@code party}'s post at {@code step} (public; a runner refuses any other). */
  long bytes(int step, int party);

  /**
   * Whether every party's post at {@code step} must be the same bytes (a confirmation of a public
   * value, such as the joint seed). A runner that sees two different posts at such a step knows the
   * board was not the same for everyone and ends the session.
   */
  default boolean unanimous(int step) {
    return false;
  }

  /** Party {@code party}'s side, with its fresh secrets. */
  SetupParty party(int party);

  /** One line for logs and the ledger ("token mixnet of 3 parties, 90 tokens, 8 steps"). */
  String describe();
}
