package dev.helmet.secagg.protocol;

/** The five rounds of SecAgg (Bonawitz et al. 2017, Fig. 4) and SecAgg+. */
public enum Round {
  /** Round 0: each party publishes two X25519 public keys, signed with its identity key. */
  ADVERTISE_KEYS,
  /** Round 1: each party Shamir-shares its mask key and self-mask seed, encrypted per neighbour. */
  SHARE_KEYS,
  /** Round 2: each party sends its input plus its self mask plus its pairwise masks. */
  MASKED_INPUT,
  /** Round 3: each party signs the set of parties whose masked inputs the server holds. */
  CONSISTENCY_CHECK,
  /** Round 4: each party reveals self-mask shares of survivors and mask-key shares of dropouts. */
  UNMASKING
}
