package dev.helmet.secagg.protocol;

import dev.helmet.secagg.crypto.Signatures;
import java.util.AbstractList;
import java.util.List;
import java.util.RandomAccess;

/**
 * The parties' Ed25519 public keys of one session, with each key's verifier ({@link
 * Signatures.PublicKey}: the decoded point and its table, built on first use) made once per session
 * rather than once per party that checks it: in process, 1000 parties with 100 neighbours each would
 * otherwise hold 100,000 tables (about 130 MB) for 1000 keys. Immutable; the verifiers hold only
 * public data and build themselves thread-safely.
 */
final class IdentityKeys extends AbstractList<byte[]> implements RandomAccess {
  private final List<byte[]> keys;
  private final Signatures.PublicKey[] verifiers;

  private IdentityKeys(List<byte[]> keys) {
    this.keys = List.copyOf(keys);
    this.verifiers = new Signatures.PublicKey[this.keys.size()];
    for (int i = 0; i < verifiers.length; i++) {
      verifiers[i] = Signatures.PublicKey.of(this.keys.get(i));
    }
  }

  static IdentityKeys of(List<byte[]> keys) {
    return keys instanceof IdentityKeys k ? k : new IdentityKeys(keys);
  }

  @Override
  public byte[] get(int index) {
    return keys.get(index);
  }

  @Override
  public int size() {
    return keys.size();
  }

  /** Party {@code v}'s verifier, shared by everyone who checks v's signatures in this session. */
  Signatures.PublicKey verifier(int v) {
    return verifiers[v];
  }
}
