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
   * A TLS handshake the CA check refused (lock held): a peer without a certificate of this
   * deployment, whose subject, issuer and address are its own choice. Kept apart from the
   * rejections of enrolled parties (security review turn 3, T3-8): before, 2,000 such handshakes
   * used up the session's stored rejections, and an enrolled party's impersonation, replays or
   * malformed messages after them were only counted. Now at most
   * {@link Coordinator#MAX_STORED_HANDSHAKE_REFUSALS} are stored per session and
   * {@link Coordinator#MAX_STORED_HANDSHAKE_REFUSALS_PER_SOURCE} per source address (one source
   * cannot take them all); the rest are counted, and reported in one log line at most every
   * {@link ConnectionGuard#REPORT_EVERY_SECONDS} s.
   *
   * @param source the peer's "host:port" where known, else null (all unknown peers share one source)
   */
  void handshakeRefused(String source, String detail) {
    c.listener.event("REJECT", "TLS_HANDSHAKE");
    c.handshakeRefusals++;
    String host = source == null ? "an unknown address" : source.lastIndexOf(':') > 0
        ? source.substring(0, source.lastIndexOf(':')) : source;
    int fromHost = c.storedRefusalsBySource.getOrDefault(host, 0);
    if (c.storedHandshakeRefusals < Coordinator.MAX_STORED_HANDSHAKE_REFUSALS
        && fromHost < Coordinator.MAX_STORED_HANDSHAKE_REFUSALS_PER_SOURCE) {
      c.storedRefusalsBySource.put(host, fromHost + 1);
      boolean last = ++c.storedHandshakeRefusals == Coordinator.MAX_STORED_HANDSHAKE_REFUSALS;
      String d = detail.length() > 500 ? detail.substring(0, 500) + "..." : detail;
      c.eventWriter.execute(() -> {
        c.store.event(c.sessionHex, "HANDSHAKE", null, "REJECT", "TLS_HANDSHAKE", d);
        if (last) {
          c.store.event(c.sessionHex, "HANDSHAKE", null, "REJECT", "CAPPED", Coordinator.MAX_STORED_HANDSHAKE_REFUSALS
              + " refused TLS handshakes stored; later ones are counted in the log only (the parties' rejections "
              + "have their own " + Coordinator.MAX_STORED_REJECTIONS + ")");
        }
      });
      Coordinator.LOG.log(Level.WARNING, "session {0}: {1}", c.sessionHex, d);
      return;
    }
    long now = System.nanoTime();
    if (now - c.nextRefusalReport >= 0) {
      c.nextRefusalReport = now + TimeUnit.SECONDS.toNanos(ConnectionGuard.REPORT_EVERY_SECONDS);
      Coordinator.LOG.log(Level.WARNING, "session {0}: {1} refused TLS handshakes so far, {2} of them stored (at most "
          + "{3} per session and {4} per source address; the latest not stored: {5}); at most one such line per {6} s",
          c.sessionHex, c.handshakeRefusals, c.storedHandshakeRefusals, Coordinator.MAX_STORED_HANDSHAKE_REFUSALS,
          Coordinator.MAX_STORED_HANDSHAKE_REFUSALS_PER_SOURCE, detail.length() > 500 ? detail.substring(0, 500)
          + "..." : detail, ConnectionGuard.REPORT_EVERY_SECONDS);
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
