package dev.helmet.transport;

import dev.helmet.protocols.algorithm.Setup;
import dev.helmet.protocols.algorithm.SetupBoard;
import dev.helmet.protocols.algorithm.SetupParty;
import dev.helmet.secagg.crypto.CryptoProfile;
import dev.helmet.transport.Participant.ParticipantException;
import dev.helmet.transport.wire.BoardChunk;
import dev.helmet.transport.wire.Roster;
import dev.helmet.transport.wire.SessionConfig;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * A participant's side of a plan's setup board: it accepts only the posts the public schedule
 * says it reads, checks each against its sender's identity key from the roster (the coordinator
 * relays; it cannot alter or forge a post), posts at its own steps in order, and signs its posts.
 * Any failed check stops this party; the setup then cannot finish and the session ends before
 * anything is computed from data.
 */
final class BoardClient {
  private final SessionConfig config;
  private final Roster roster;
  private final Setup setup;
  private final SetupParty side;
  private final int party;
  private final byte[] setupSession;
  private final byte[] identitySecret;
  private final CryptoProfile profile;
  private final int[] steps;
  private int next;
  /** The last of this party's steps that reads each post it reads. */
  private final Map<Setup.PostId, Integer> lastRead = new HashMap<>();
  private final Map<Setup.PostId, Board.Assembly> arriving = new HashMap<>();
  private final Map<Setup.PostId, byte[]> received = new HashMap<>();
  private final java.util.Set<Setup.PostId> seen = new java.util.HashSet<>();

  BoardClient(SessionConfig config, Roster roster, Setup setup, int party, byte[] setupSession, byte[] identitySecret,
      CryptoProfile profile) {
    this.config = config;
    this.roster = roster;
    this.setup = setup;
    this.party = party;
    this.setupSession = setupSession.clone();
    this.identitySecret = identitySecret;
    this.profile = profile;
    this.side = setup.party(party);
    List<Integer> own = new ArrayList<>();
    for (int s = 0; s < setup.steps(); s++) {
      for (int p : setup.speakers(s)) {
        if (p == party) {
          own.add(s);
          for (Setup.PostId id : setup.reads(s, p)) {
            lastRead.merge(id, s, Math::max);
          }
        }
      }
    }
    this.steps = own.stream().mapToInt(Integer::intValue).toArray();
  }

  /** A relayed chunk of another party's (or its own) post. */
  void chunk(BoardChunk ch) throws ParticipantException {
    Setup.PostId id = new Setup.PostId(ch.getStep(), ch.getSender());
    if (!lastRead.containsKey(id) || lastRead.get(id) < (next < steps.length ? steps[next] : Integer.MAX_VALUE)
        || seen.contains(id) && !arriving.containsKey(id)) {
      throw new ParticipantException("the coordinator relayed a board post (step " + id.step() + ", party "
          + id.sender() + ") this party does not read now, or a second time; it stops");
    }
    seen.add(id);
    Board.Assembly a = arriving.computeIfAbsent(id, k -> new Board.Assembly(k.step(), k.sender(),
        setup.bytes(k.step(), k.sender())));
    String wrong = a.add(ch);
    if (wrong == null && a.complete() && !Board.verify(config, setupSession, id.step(), id.sender(), a.post(),
        a.signature(), roster.getParties(id.sender()).getIdentityKey().toByteArray(), profile)) {
      wrong = "its post at step " + id.step() + " is not signed by its identity key";
    }
    if (wrong != null) {
      throw new ParticipantException("the coordinator relayed a bad board post of party " + id.sender() + " (" + wrong
          + "); it may have altered it, so this party stops");
    }
    if (a.complete()) {
      arriving.remove(id);
      received.put(id, a.post());
    }
  }

  /** Its turn at {@code step}: its post, as signed chunks. */
  List<BoardChunk> turn(int step) throws ParticipantException {
    if (next >= steps.length || step != steps[next]) {
      throw new ParticipantException("the coordinator opened setup step " + step + " for this party; it "
          + (next >= steps.length ? "has posted at all its steps" : "posts next at step " + steps[next]) + ", so it stops");
    }
    List<byte[]> read = new ArrayList<>();
    for (Setup.PostId id : setup.reads(step, party)) {
      byte[] p = received.get(id);
      if (p == null) {
        throw new ParticipantException("the coordinator opened setup step " + step + " before relaying the post of "
            + "party " + id.sender() + " at step " + id.step() + ", which this party reads; it stops");
      }
      read.add(p);
    }
    byte[] post;
    try {
      post = side.post(step, read);
      SetupBoard.check(setup, step, party, post);
    } catch (RuntimeException e) {
      throw new ParticipantException("setup step " + step + " (" + setup.describe() + ") failed this party's checks: "
          + e.getMessage() + "; the session must end", e);
    }
    next++;
    received.keySet().removeIf(id -> lastRead.get(id) <= step);
    return Board.chunks(config, setupSession, step, party, post, identitySecret, profile);
  }

  /** Whether this party has posted at all its steps (its side is then complete). */
  boolean done() {
    return next == steps.length;
  }

  /** The setup's steps in all. */
  int steps() {
    return setup.steps();
  }

  SetupParty side() {
    return side;
  }
}
