package dev.helmet.secagg.protocol;

/** What the server records about parties and rounds. */
public final class ServerEvents {
  private ServerEvents() {}

  /** Why a party's input or help is no longer used. */
  public enum DropReason {
    /** No message in a round (the party went away or missed the deadline). */
    NO_RESPONSE,
    /** Its key advertisement or consistency signature does not verify. */
    INVALID_SIGNATURE,
    /** Its message is malformed: wrong length, wrong recipients, values outside the ring or field. */
    MALFORMED_MESSAGE
  }

  /** Why a message was rejected without dropping its (unauthenticated) sender. */
  public enum RejectReason {
    /** For another session. */
    WRONG_SESSION,
    /** Not the message this round expects. */
    WRONG_ROUND,
    /** A second message from the same party in one round. */
    REPLAYED,
    /** From a party that is not in the session or was already dropped. */
    UNKNOWN_PARTY,
    /** A Shamir share that is not on the polynomial of the others (found by robust reconstruction). */
    BAD_SHARE
  }

  /** Why the server gave up; nothing is released. */
  public enum AbortReason {
    /** Fewer parties than the threshold or the minimum number of contributors are left. */
    TOO_FEW_SURVIVORS,
    /** Fewer than t shares arrived for some party's secret. */
    RECONSTRUCTION_FAILED,
    /** A reconstructed mask key does not match the key the party advertised. */
    INCONSISTENT_SHARES
  }

  /** A dropped party. */
  public record Drop(int party, Round round, DropReason reason, String detail) {}

  /** A rejected message. */
  public record Rejection(int claimedSender, Round round, RejectReason reason, String detail) {}
}
