/**
 * The token list behind distributed sampling without replacement (the cross-silo paper, Sec. 3.4,
 * Algorithm 2, Theorem 1; design note 1.3 and 2.2): every party draws one random 128-bit token per
 * record, the parties run a decryption mixnet over the onion-encrypted tokens so that the final
 * list is public but only each token's owner knows whose it is, then draw a joint seed by
 * commit-reveal ({@link dev.helmet.secagg.mixnet.JointSeed}) and select each step's batch as a
 * uniform subset of the canonically sorted list ({@link dev.helmet.secagg.mixnet.TokenSampler}).
 *
 * <p>Threat model: parties that are honest-but-curious or malicious; unlinkability of an honest
 * party's tokens holds while at least one mixer other than the observer shuffles honestly. The
 * mixnet is <b>not verifiable</b> (doubt 11): tampering is detected by authentication at the next
 * layer, by list-length and duplicate checks, and by each owner finding its tokens at the end,
 * but blame cannot be assigned reliably. Any abort ends the session; its tokens are never reused.
 * Keys, tokens, ephemeral keys and permutations come from SecureRandom.
 */
package dev.helmet.secagg.mixnet;
