package dev.helmet.transport;

import dev.helmet.secagg.protocol.ServerEvents;
import io.grpc.Status;
import java.lang.System.Logger.Level;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * The coordinator's record of drops and rejected messages: written by one writer thread outside
 * the session lock, capped per session, and charged to the peer that sent the junk.
 */
final class EventLog {
  private final Coordinator c;

  EventLog(Coordinator c) {
    this.c = c;
  }

  /** Records the drops and rejections the state machine logged since the last call. */
  void recordEvents(String stage) {
    List<ServerEvents.Drop> drops = c.state.drops();
    for (int i = c.reportedDrops; i < drops.size(); i++) {
      ServerEvents.Drop d = drops.get(i);
      if (c.absentAtStart.get(d.party())) {
        continue;
      }
      c.dropRecorded.set(d.party());
      c.store.event(c.sessionHex, d.round().name(), d.party(), "DROP", d.reason().name(), d.detail());
      c.listener.event("DROP", d.reason().name());
      Coordinator.LOG.log(Level.INFO, "session {0}: dropped party {1} in {2}: {3} ({4})", c.sessionHex, d.party(), d.round(),
          d.reason(), d.detail());
    }
    c.reportedDrops = drops.size();
    List<ServerEvents.Rejection> logged = c.state.rejections();
    for (int i = c.reportedRejections; i < logged.size(); i++) {
      ServerEvents.Rejection r = logged.get(i);
      reject(stage, r.claimedSender(), r.reason().name(), r.detail());
    }
    c.reportedRejections = logged.size();
  }

  /**
   * Records a rejected message: written by the event writer thread, outside the session lock, and
   * only the first {@link #MAX_STORED_REJECTIONS} of a session (later ones are counted), so a flood
   * of junk neither stalls the honest parties' rounds nor fills the database. Called with the lock held.
   */
  void reject(String stage, Integer party, String reason, String detail) {
    capped(stage, party, "REJECT", reason, detail);
  }

  /** Stores an event of {@code kind} through the capped writer (lock held). */
  void capped(String stage, Integer party, String kind, String reason, String detail) {
    c.listener.event(kind, reason);
    c.rejections++;
    if (c.rejections <= Coordinator.MAX_STORED_REJECTIONS) {
      String d = detail.length() > 500 ? detail.substring(0, 500) + "..." : detail;
      boolean last = c.rejections == Coordinator.MAX_STORED_REJECTIONS;
      c.eventWriter.execute(() -> {
        c.store.event(c.sessionHex, stage, party, kind, reason, d);
        if (last) {
          c.store.event(c.sessionHex, stage, null, "REJECT", "CAPPED", Coordinator.MAX_STORED_REJECTIONS
              + " rejections stored; later ones are counted in the log only");
        }
      });
      Coordinator.LOG.log(Level.WARNING, "session {0}: {1}{2}: {3} ({4})", c.sessionHex, kind.equals("REJECT")
          ? "rejected a message" : kind.toLowerCase(java.util.Locale.ROOT), party == null ? "" : " from party " + party,
          reason, d);
    }
  }

  /**
   * A rejection charged to the peer that sent it: past {@link #MAX_REJECTIONS_PER_PEER} the peer is
   * disconnected (a party that sends that much junk is not following the protocol). Lock held.
   */
  void reject(Peer peer, String stage, String reason, String detail) {
    reject(stage, peer.party < 0 ? null : peer.party, reason, detail);
    charge(peer);
  }

  void charge(Peer peer) {
    if (++peer.rejections == Coordinator.MAX_REJECTIONS_PER_PEER) {
      Coordinator.LOG.log(Level.WARNING, "session {0}: disconnecting {1} after {2} rejected messages", c.sessionHex, peer.name(),
          Coordinator.MAX_REJECTIONS_PER_PEER);
      peer.finish(Status.RESOURCE_EXHAUSTED.withDescription(Coordinator.MAX_REJECTIONS_PER_PEER + " rejected messages"));
    }
  }

  /** Waits until every event handed to the writer is stored. */
  void flushEvents() {
    try {
      c.eventWriter.submit(() -> { }).get(30, TimeUnit.SECONDS);
    } catch (java.util.concurrent.ExecutionException | TimeoutException | java.util.concurrent.RejectedExecutionException e) {
      Coordinator.LOG.log(Level.WARNING, "session {0}: the event writer did not drain: {1}", c.sessionHex, e.toString());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
