package dev.helmet.secagg.protocol;

import dev.helmet.secagg.crypto.CryptoProfile;
import dev.helmet.secagg.protocol.Messages.ClientMessage;
import dev.helmet.secagg.protocol.Messages.ServerMessage;
import java.util.function.Supplier;

/**
 * A party's state in one round. {@link #handle} takes the server's message for this round and
 * returns the next state and the party's reply; any message the state does not expect aborts the
 * party with {@link ClientAbortReason#UNEXPECTED_MESSAGE}. States are immutable once built; a
 * party never reuses a state after handling a message.
 */
public abstract class ClientState {
  /** Everything a party knows that does not change between rounds. */
  public record Context(
      SecAggParameters params,
      int id,
      byte[] identitySecret,
      Supplier<long[]> input,
      CryptoProfile profile) {
    @Override
    public String toString() {
      return "Context[party " + id + "]"; // never the identity secret or the input
    }
  }

  /** The result of handling a message: the next state and the reply (null if none). */
  public record Step(ClientState next, ClientMessage reply) {}

  final Context ctx;

  ClientState(Context ctx) {
    this.ctx = ctx;
  }

  /** The round whose server message this state expects, or null for a final state. */
  public abstract Round expects();

  /** Handles the server's message. */
  public abstract Step handle(ServerMessage message);

  /** Whether this is a final state (completed or aborted). */
  public boolean isFinal() {
    return expects() == null;
  }

  /** Starts a party: round 0 generates its keys and advertises them. */
  public static Step start(Context ctx) {
    return ClientR0.advertise(ctx);
  }

  /** Checks the envelope of a server message; returns an abort step or null if it is acceptable. */
  Step rejectUnexpected(ServerMessage m, Class<? extends ServerMessage> expected) {
    if (m == null || !expected.isInstance(m)) {
      return abort(ClientAbortReason.UNEXPECTED_MESSAGE,
          "expected " + expected.getSimpleName() + ", got " + (m == null ? "nothing" : m.getClass().getSimpleName()));
    }
    if (m.session() != ctx.params().session()) {
      return abort(ClientAbortReason.UNEXPECTED_MESSAGE, "message for another session");
    }
    if (m.recipient() != ctx.id()) {
      return abort(ClientAbortReason.UNEXPECTED_MESSAGE, "message for party " + m.recipient());
    }
    return null;
  }

  Step abort(ClientAbortReason reason, String detail) {
    return new Step(new Aborted(ctx, reason, detail), null);
  }

  /** A final state: it expects nothing and ignores every message. */
  public abstract static class Terminal extends ClientState {
    Terminal(Context ctx) {
      super(ctx);
    }

    @Override
    public Round expects() {
      return null;
    }

    @Override
    public Step handle(ServerMessage message) {
      return new Step(this, null);
    }
  }

  /** A party that finished its part of the protocol. */
  public static final class Completed extends Terminal {
    Completed(Context ctx) {
      super(ctx);
    }
  }

  /** A party that refused to continue; it reveals nothing more. */
  public static final class Aborted extends Terminal {
    private final ClientAbortReason reason;
    private final String detail;

    Aborted(Context ctx, ClientAbortReason reason, String detail) {
      super(ctx);
      this.reason = reason;
      this.detail = detail;
    }

    public ClientAbortReason reason() {
      return reason;
    }

    public String detail() {
      return detail;
    }

    @Override
    public String toString() {
      return "Aborted[" + reason + ": " + detail + "]";
    }
  }
}
