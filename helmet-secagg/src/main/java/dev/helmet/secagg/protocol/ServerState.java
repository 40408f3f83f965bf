package dev.helmet.secagg.protocol;

import dev.helmet.secagg.crypto.CryptoProfile;
import dev.helmet.secagg.protocol.Messages.ClientMessage;
import dev.helmet.secagg.protocol.Messages.ServerMessage;
import dev.helmet.secagg.protocol.ServerEvents.AbortReason;
import dev.helmet.secagg.protocol.ServerEvents.Drop;
import dev.helmet.secagg.protocol.ServerEvents.DropReason;
import dev.helmet.secagg.protocol.ServerEvents.RejectReason;
import dev.helmet.secagg.protocol.ServerEvents.Rejection;
import java.util.ArrayList;
import java.util.BitSet;
import java.util.Collections;
import java.util.List;
import java.util.Map;

/**
 * The server's state in one round: {@link #receive} takes the parties' messages one at a time (a
 * malformed one drops its sender with a recorded reason, a misplaced or repeated one is rejected),
 * and {@link #close} ends the round, returning the next state and one message per surviving party.
 * The server drops parties rather than the round, and aborts only when too few remain.
 */
public abstract class ServerState {
  /** The server's knowledge, carried from round to round. */
  static final class Session {
    final SecAggParameters params;
    final CryptoProfile profile;
    final List<Drop> drops = new ArrayList<>();
    final List<Rejection> rejections = new ArrayList<>();
    final BitSet dropped = new BitSet();
    /** Each party's commitment to its self-mask seed, sent with its shares (round 1). */
    final Map<Integer, byte[]> selfMaskCommitments = new java.util.concurrent.ConcurrentHashMap<>();
    /** The parties whose message was accepted, per round closed or open, so a late copy reads as a replay. */
    final Map<Round, BitSet> acceptedIn = new java.util.EnumMap<>(Round.class);

    Session(SecAggParameters params, CryptoProfile profile) {
      this.params = params;
      this.profile = profile;
    }

    void drop(int party, Round round, DropReason reason, String detail) {
      if (!dropped.get(party)) {
        dropped.set(party);
        drops.add(new Drop(party, round, reason, detail));
      }
    }
  }

  /** The end of a round. */
  public record Transition(ServerState next, Map<Integer, ServerMessage> outgoing) {}

  final Session session;
  /** Parties whose message for this round was accepted. */
  final BitSet accepted = new BitSet();

  ServerState(Session session) {
    this.session = session;
  }

  /** A fresh server at round 0. */
  public static ServerState start(SecAggParameters params, CryptoProfile profile) {
    return new ServerR0AdvertiseKeys(new Session(params, profile));
  }

  /** The round this state collects, or null for a final state. */
  public abstract Round round();

  /** Whether this is a final state. */
  public boolean isFinal() {
    return round() == null;
  }

  /** Parties dropped so far, in the order they were dropped. */
  public List<Drop> drops() {
    return Collections.unmodifiableList(session.drops);
  }

  /** Messages rejected so far. */
  public List<Rejection> rejections() {
    return Collections.unmodifiableList(session.rejections);
  }

  /** The parties expected to speak in this round. */
  abstract BitSet expected();

  /**
   * The parties this round still waits for: expected, not yet heard from, not dropped. A transport
   * closes the round early once this is empty (or holds only parties it knows are gone).
   */
  public final BitSet awaiting() {
    if (isFinal()) {
      return new BitSet();
    }
    BitSet a = (BitSet) expected().clone();
    a.andNot(accepted);
    a.andNot(session.dropped);
    return a;
  }

  /** Validates and takes the message's content; returns a drop reason or null. */
  abstract Drop take(ClientMessage m);

  /** Accepts one message for this round. */
  public final void receive(ClientMessage m) {
    SecAggParameters p = session.params;
    if (m == null) {
      return;
    }
    if (isFinal()) {
      reject(m, RejectReason.WRONG_ROUND, "the session has ended");
      return;
    }
    if (m.session() != p.session()) {
      reject(m, RejectReason.WRONG_SESSION, "session " + m.session());
      return;
    }
    int u = m.sender();
    if (u < 0 || u >= p.parties() || !expected().get(u) || session.dropped.get(u)) {
      reject(m, RejectReason.UNKNOWN_PARTY, "party " + u + " is not expected in " + round());
      return;
    }
    if (m.round() != round()) {
      BitSet then = session.acceptedIn.get(m.round());
      if (then != null && then.get(u)) {
        // A copy of a message already taken in an earlier round: a replay, however late it comes.
        reject(m, RejectReason.REPLAYED, "second " + m.round() + " message from party " + u + ", during " + round());
      } else {
        reject(m, RejectReason.WRONG_ROUND, m.round() + " message during " + round());
      }
      return;
    }
    if (accepted.get(u)) {
      reject(m, RejectReason.REPLAYED, "second " + round() + " message from party " + u);
      return;
    }
    Drop d = take(m);
    if (d != null) {
      session.drop(d.party(), d.round(), d.reason(), d.detail());
    } else {
      accepted.set(u);
      session.acceptedIn.computeIfAbsent(round(), r -> new BitSet()).set(u);
    }
  }

  private void reject(ClientMessage m, RejectReason reason, String detail) {
    session.rejections.add(new Rejection(m.sender(), round(), reason, detail));
  }

  /** Ends the round. */
  public abstract Transition close();

  /** Records every expected party that did not speak as dropped for no response. */
  final BitSet survivorsOfRound() {
    BitSet expected = expected();
    for (int u = expected.nextSetBit(0); u >= 0; u = expected.nextSetBit(u + 1)) {
      if (!accepted.get(u)) {
        session.drop(u, round(), DropReason.NO_RESPONSE, "no " + round() + " message");
      }
    }
    return (BitSet) accepted.clone();
  }

  /** The transition to an abort when fewer than {@code needed} parties survive. */
  final Transition abortIfTooFew(BitSet survivors, int needed) {
    if (survivors.cardinality() < needed) {
      return new Transition(new Aborted(session, AbortReason.TOO_FEW_SURVIVORS,
          survivors.cardinality() + " parties left after " + round() + ", " + needed + " needed"), Map.of());
    }
    return null;
  }

  /** Survivors needed at every round: the minimum number of contributors. */
  final int needed() {
    return session.params.minSurvivors();
  }

  /** A final state: it expects no message and closes onto itself. */
  public abstract static class Terminal extends ServerState {
    Terminal(Session session) {
      super(session);
    }

    @Override
    public Round round() {
      return null;
    }

    @Override
    BitSet expected() {
      return new BitSet();
    }

    @Override
    Drop take(ClientMessage m) {
      return null;
    }

    @Override
    public Transition close() {
      return new Transition(this, Map.of());
    }
  }

  /** The end: the sum of the contributors' inputs. */
  public static final class Completed extends Terminal {
    private final long[] sum;
    private final BitSet contributors;

    Completed(Session session, long[] sum, BitSet contributors) {
      super(session);
      this.sum = sum;
      this.contributors = contributors;
    }

    /** The ring sum of the contributors' inputs. */
    public long[] sum() {
      return sum.clone();
    }

    /** The parties whose inputs are in the sum (U3). */
    public BitSet contributors() {
      return (BitSet) contributors.clone();
    }
  }

  /** The server gave up; it releases nothing. */
  public static final class Aborted extends Terminal {
    private final AbortReason reason;
    private final String detail;

    Aborted(Session session, AbortReason reason, String detail) {
      super(session);
      this.reason = reason;
      this.detail = detail;
    }

    public AbortReason reason() {
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
