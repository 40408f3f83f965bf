package dev.helmet.protocols.privacy;

/**
 * Whom a guarantee protects against, in the words every printed epsilon carries (docs/privacy.md
 * has the threat model): who sees what depends on the summation, and the noise counts only the
 * parties trusted to add theirs.
 */
public final class Audience {
  private Audience() {}

  /**
   * Whom the released model's guarantee holds against.
   *
   * @param summation the summation's name (plain, secagg, secagg+, dca or its old name
   *     compute-servers, ...)
   * @param revealsInputs whether the summation shows the server every input (plain)
   * @param colluders the most parties that may collude with the server (they add no noise and
   *     share what they know): floor((1 - t) w)
   */
  public static String releasedModel(String summation, boolean revealsInputs, int colluders) {
    return releasedModel(summation, revealsInputs, colluders, true);
  }

  /**
   * As {@link #releasedModel(String, boolean, int)}; {@code observerCovered} false where the noise
   * is not sized for a participant that subtracts its own share (DP-FL's all-trusted split), whose
   * caller then says so.
   */
  public static String releasedModel(String summation, boolean revealsInputs, int colluders,
      boolean observerCovered) {
    // With no colluder tolerated the noise is still sized for one participant that subtracts its own
    // share (HonestParties.noiseHonest; cross-silo's M - T - 1): the text names that participant.
    String parties = colluders > 0 ? "up to " + colluders + (colluders == 1 ? " party" : " parties")
        : observerCovered ? "no party (any one participant, though it knows its own noise share, is covered)"
        : "no party";
    if (revealsInputs) {
      return "anyone holding the released model who saw nothing else (not the server: the summation is in the clear)";
    }
    if (summation.startsWith("simulated")) {
      return "anyone holding the released model (a simulation: no server and no messages; deployed through secure "
          + "aggregation the same guarantee holds against the server colluding with " + parties + ")";
    }
    if (summation.startsWith("groups")) {
      return "anyone holding the released model, and the server colluding with " + parties + " (pairwise masks in "
          + "disjoint groups show the server each group's sum, and each group's noise is sized for it)";
    }
    if (summation.startsWith("dca") || summation.startsWith("compute-servers")) {
      return "anyone holding the released model, and the servers colluding with " + parties
          + " (the servers see only the sum unless all compute servers collude)";
    }
    return "anyone holding the released model, and the server colluding with " + parties
        + " (secure aggregation shows the server only the sum)";
  }

  /** Whom a party's own guarantee holds against when the summation is in the clear. */
  public static String serverInTheClear() {
    return "the server of a summation in the clear, which sees each party's noised input (the guarantee of "
        + "the records of any one party)";
  }
}
