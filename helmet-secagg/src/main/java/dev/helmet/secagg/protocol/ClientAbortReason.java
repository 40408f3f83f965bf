package dev.helmet.secagg.protocol;

/** Why a party stopped taking part; it reveals nothing more after aborting. */
public enum ClientAbortReason {
  /** A message for another session, party or round, or not the one the state expects. */
  UNEXPECTED_MESSAGE,
  /** A neighbour's key advertisement or consistency signature does not verify. */
  INVALID_SIGNATURE,
  /** Fewer neighbours than the threshold remain, so the party's secrets could not be recovered. */
  TOO_FEW_NEIGHBOURS,
  /** An encrypted share fails authentication (tampered or misrouted). */
  DECRYPTION_FAILED,
  /** The server asked for both the self-mask share and the mask-key share of one party. */
  BOTH_SECRETS_REQUESTED,
  /** The unmasking request contradicts the signed survivor set or asks for shares never held. */
  INCONSISTENT_REQUEST,
  /** A malformed value in a server message. */
  MALFORMED_MESSAGE
}
