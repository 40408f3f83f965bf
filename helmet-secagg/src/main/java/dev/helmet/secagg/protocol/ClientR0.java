package dev.helmet.secagg.protocol;

import dev.helmet.secagg.crypto.Signatures;
import dev.helmet.secagg.crypto.X25519Keys;
import dev.helmet.secagg.protocol.Messages.AdvertiseKeys;

/** Round 0 (AdvertiseKeys): generate the two X25519 key pairs and publish their public halves. */
final class ClientR0 {
  private ClientR0() {}

  static ClientState.Step advertise(ClientState.Context ctx) {
    X25519Keys.KeyPair encryption = X25519Keys.generate();
    X25519Keys.KeyPair mask = X25519Keys.generate();
    long session = ctx.params().session();
    byte[] sig = Signatures.sign(ctx.identitySecret(),
        Transcripts.advertise(ctx.params(), ctx.id(), encryption.publicKey(), mask.publicKey()), ctx.profile());
    return new ClientState.Step(new ClientR1ShareKeys(ctx, encryption, mask),
        new AdvertiseKeys(session, ctx.id(), encryption.publicKey(), mask.publicKey(), sig));
  }
}
