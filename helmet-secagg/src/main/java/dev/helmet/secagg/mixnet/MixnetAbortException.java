package dev.helmet.secagg.mixnet;

/**
 * The token-list session must stop: a check of the mixnet or of the joint seed failed. The session
 * is over, and its tokens must never be mixed or used again (doubt 11: a duplicated honest token
 * can already have revealed its owner to the duplicator, so a retry with the same tokens would
 * leak more). The message names the check and the element or party, never a secret.
 */
public final class MixnetAbortException extends RuntimeException {
  private static final long serialVersionUID = 1L;

  /** Which check failed. */
  public enum Reason {
    /** An element has the wrong length for its layer (or a token is not 16 bytes). */
    MALFORMED_ELEMENT,
    /** An element does not open under the mixer's key: tampered with, or sealed for another layer. */
    AEAD_FAILURE,
    /** The list does not have the public number of elements. */
    WRONG_LIST_SIZE,
    /** Two identical ciphertexts in a list handed to a mixer: a copied element. */
    DUPLICATE_ELEMENT,
    /** Two identical tokens in the final list. */
    DUPLICATE_TOKEN,
    /** A party does not find all of its own tokens in the final list. */
    MISSING_OWN_TOKEN,
    /** A revealed seed share does not match its commitment, or is malformed. */
    BAD_REVEAL,
    /**
     * Another party published a joint seed other than this party's: the parties did not all see the
     * same list, commitments and shares (a relay that showed them different boards).
     */
    SEED_MISMATCH
  }

  private final Reason reason;
  private final int party;

  /**
   * @param reason the failed check
   * @param party the party that detected it (mixing checks, SEED_MISMATCH) or whose reveal failed
   *     (BAD_REVEAL); -1 for a check every party makes on public data
   * @param detail what was wrong, for the log (no secrets)
   */
  public MixnetAbortException(Reason reason, int party, String detail) {
    super(reason + ": " + detail
        + (party >= 0 && reason != Reason.BAD_REVEAL ? " (detected by party " + party + ")" : ""));
    this.reason = reason;
    this.party = party;
  }

  public Reason reason() {
    return reason;
  }

  public int party() {
    return party;
  }
}
