package dev.helmet.transport;

import dev.helmet.protocols.algorithm.Setup;
import dev.helmet.secagg.crypto.CryptoProfile;
import dev.helmet.transport.wire.BoardChunk;
import dev.helmet.transport.wire.BoardTurn;
import dev.helmet.transport.wire.CoordinatorMessage;
import java.lang.System.Logger.Level;
import java.util.Arrays;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * The coordinator's side of a plan's setup (cross-silo SWOR: the token mixnet and the joint seed):
 * a bulletin board that relays posts and decides nothing. Step by step it hands each speaker the
 * posts the public schedule says it reads, then its turn, and waits for every speaker's post. It
 * checks what it can check without secrets (the sender's stream, the step, the public length, the
 * sender's identity signature, agreement at a unanimous step) so a bad post ends the session at
 * once, naming the party; the parties check every post again themselves. The setup cannot go on
 * without any one party (each holds a mixnet layer), so a party that leaves, or posts nothing
 * before the round deadline, ends the session too: nothing has been computed from data yet, and
 * nothing is charged.
 *
 * <p>Memory: a post is kept only until the last step that reads it.
 */
final class BoardRelay {
  private final Coordinator c;
  private final Setup setup;
  private final byte[] setupSession;
  private final CryptoProfile profile;
  /** The last step that reads each post. */
  private final Map<Setup.PostId, Integer> lastRead = new HashMap<>();
  /** Guarded by c.lock: the step open for posts, posts in progress and complete posts with their signatures. */
  private int step = -1;
  private final Map<Integer, Board.Assembly> arriving = new HashMap<>();
  private final Map<Setup.PostId, Board.Assembly> board = new HashMap<>();
  private String failure;

  BoardRelay(Coordinator c, Setup setup, byte[] setupSession, CryptoProfile profile) {
    this.c = c;
    this.setup = setup;
    this.setupSession = setupSession.clone();
    this.profile = profile;
    for (int s = 0; s < setup.steps(); s++) {
      for (int p : setup.speakers(s)) {
        for (Setup.PostId id : setup.reads(s, p)) {
          lastRead.merge(id, s, Math::max);
        }
      }
    }
  }

  /** Runs every step; returns when the last is complete. */
  void run() throws RoundDriver.Abort, InterruptedException {
    long start = System.nanoTime();
    Coordinator.LOG.log(Level.INFO, "session {0}: setup before round 0: {1}", c.sessionHex, setup.describe());
    for (int s = 0; s < setup.steps(); s++) {
      long stepStart = System.nanoTime();
      int[] speakers = setup.speakers(s);
      c.lock.lock();
      try {
        step = s;
        arriving.clear();
        c.setupStage = "SETUP_" + s;
        c.stageExpected = speakers.length;
        c.stageAnswered = 0;
        stopIfFailed(speakers);
      } finally {
        c.lock.unlock();
      }
      long deadline = c.deadlineAfterRound();
      c.lock.lock();
      try {
        c.stageDeadline = deadline;
      } finally {
        c.lock.unlock();
      }
      for (int p : speakers) {
        Peer peer = c.enrolled.get(p);
        for (Setup.PostId id : setup.reads(s, p)) {
          Board.Assembly a;
          c.lock.lock();
          try {
            a = board.get(id);
          } finally {
            c.lock.unlock();
          }
          for (BoardChunk ch : Board.chunks(id.step(), id.sender(), a.post(), a.signature())) {
            c.out.sendCounted(peer, CoordinatorMessage.newBuilder().setBoardChunk(ch).build(), deadline);
          }
        }
        c.out.sendCounted(peer, CoordinatorMessage.newBuilder().setBoardTurn(BoardTurn.newBuilder().setStep(s)).build(),
            deadline);
      }
      c.lock.lock();
      try {
        while (failure == null && !posted(s, speakers) && !anyGone(speakers) && c.waitUntil(deadline)) {
          // woken by a post or a departure
        }
        stopIfFailed(speakers);
        for (int p : speakers) {
          if (!board.containsKey(new Setup.PostId(s, p))) {
            throw new RoundDriver.Abort("setup step " + s + " of " + setup.describe() + ": party " + p
                + " posted nothing before the round deadline; the setup needs every party, so the session ends");
          }
        }
        if (setup.unanimous(s)) {
          byte[] first = board.get(new Setup.PostId(s, speakers[0])).post();
          for (int p : speakers) {
            if (!Arrays.equals(first, board.get(new Setup.PostId(s, p)).post())) {
              throw new RoundDriver.Abort("setup step " + s + ": parties " + speakers[0] + " and " + p + " derived "
                  + "different results, so they did not all see the same board; the session ends");
            }
          }
        }
        int done = s;
        board.keySet().removeIf(id -> lastRead.getOrDefault(id, -1) <= done);
      } finally {
        c.lock.unlock();
      }
      c.listener.stageClosed("SETUP_" + s, (System.nanoTime() - stepStart) / 1e9, speakers.length, speakers.length, 0);
      Coordinator.LOG.log(Level.INFO, "session {0}: setup step {1} of {2} ({3} speaker(s)) done in {4} s", c.sessionHex,
          s + 1, setup.steps(), speakers.length, String.format(java.util.Locale.ROOT, "%.2f",
              (System.nanoTime() - stepStart) / 1e9));
    }
    c.lock.lock();
    try {
      step = -1;
      c.setupStage = null;
    } finally {
      c.lock.unlock();
    }
    Coordinator.LOG.log(Level.INFO, "session {0}: setup done in {1} s", c.sessionHex,
        String.format(java.util.Locale.ROOT, "%.2f", (System.nanoTime() - start) / 1e9));
  }

  private boolean posted(int s, int[] speakers) {
    for (int p : speakers) {
      if (!board.containsKey(new Setup.PostId(s, p))) {
        return false;
      }
    }
    return true;
  }

  private boolean anyGone(int[] speakers) {
    for (int p : speakers) {
      if (c.gone.get(p) && !board.containsKey(new Setup.PostId(step, p))) {
        return true;
      }
    }
    return false;
  }

  /** Ends the session if a post failed its checks or a speaker has left (lock held). */
  private void stopIfFailed(int[] speakers) throws RoundDriver.Abort {
    if (failure != null) {
      throw new RoundDriver.Abort(failure);
    }
    for (int p = 0; p < c.enrolled.size(); p++) {
      if (c.gone.get(p)) {
        throw new RoundDriver.Abort("party " + p + " left during the setup (" + setup.describe() + "), which needs "
            + "every party; the session ends before anything is computed from data");
      }
    }
  }

  /** A chunk of a party's post (lock held). */
  void chunk(Peer peer, BoardChunk ch) {
    String stage = c.stage();
    if (step < 0 || ch.getStep() != step) {
      c.events.reject(peer, stage, "WRONG_ROUND", "a board post for step " + ch.getStep() + " from " + peer.name()
          + (step < 0 ? " when no setup step is open" : " during step " + step));
      return;
    }
    if (ch.getSender() != peer.party) {
      c.events.reject(peer, stage, "IMPERSONATION", "a board post claiming to be from party " + ch.getSender()
          + " on the stream of " + peer.name());
      return;
    }
    if (Arrays.stream(setup.speakers(step)).noneMatch(p -> p == peer.party)) {
      c.events.reject(peer, stage, "WRONG_ROUND", "a board post from " + peer.name() + ", who does not post at step "
          + step);
      return;
    }
    if (board.containsKey(new Setup.PostId(step, peer.party))) {
      c.events.reject(peer, stage, "REPLAYED", "a second board post from " + peer.name() + " at step " + step);
      return;
    }
    Board.Assembly a = arriving.computeIfAbsent(peer.party, p -> new Board.Assembly(step, p, setup.bytes(step, p)));
    String wrong = a.add(ch);
    if (wrong == null && a.complete() && !Board.verify(c.config, setupSession, step, peer.party, a.post(),
        a.signature(), peer.identityKey, profile)) {
      wrong = "its post at step " + step + " is not signed by its identity key";
    }
    if (wrong != null) {
      c.events.reject(peer, stage, "MALFORMED", peer.name() + ": " + wrong);
      failure = "setup step " + step + ": party " + peer.party + " sent a bad post (" + wrong + "); the setup needs "
          + "every party's, so the session ends";
      arriving.remove(peer.party);
      c.changed.signalAll();
      return;
    }
    if (a.complete()) {
      arriving.remove(peer.party);
      board.put(new Setup.PostId(step, peer.party), a);
      c.stageAnswered++;
      c.changed.signalAll();
    }
  }
}
