package dev.helmet.transport;

import com.google.protobuf.ByteString;
import dev.helmet.secagg.protocol.Messages;
import dev.helmet.transport.wire.CoordinatorMessage;
import dev.helmet.transport.wire.Outcome;
import io.grpc.Status;
import java.lang.System.Logger.Level;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * What the coordinator sends: each round's messages and the outcome, through a byte budget that a
 * stream returns once it has drained, cutting off a reader that stalls past the deadline.
 */
final class Outbound {
  private final Coordinator c;

  Outbound(Coordinator c) {
    this.c = c;
  }

  void broadcastOutcome(Outcome o) {
    CoordinatorMessage m = CoordinatorMessage.newBuilder().setOutcome(o).build();
    List<Peer> all;
    c.lock.lock();
    try {
      all = new ArrayList<>(c.streams);
    } finally {
      c.lock.unlock();
    }
    long deadline = c.deadlineAfterRound();
    for (Peer p : all) {
      if (p.party >= 0) {
        sendCounted(p, m, deadline);
      }
      p.finish(Status.OK);
    }
  }

  /** Sends the round's messages (with the lock released while waiting for outbound budget). */
  void sendRound(Map<Integer, Messages.ServerMessage> outgoing) {
    List<Map.Entry<Peer, CoordinatorMessage>> batch = new ArrayList<>();
    for (Map.Entry<Integer, Messages.ServerMessage> e : outgoing.entrySet()) {
      Peer p = c.enrolled.get(e.getKey());
      if (!c.gone.get(p.party)) {
        batch.add(Map.entry(p, encode(e.getValue())));
      }
    }
    c.lock.unlock();
    long deadline = c.deadlineAfterRound();
    long bytes = 0;
    for (Map.Entry<Peer, CoordinatorMessage> e : batch) {
      bytes += e.getValue().getSerializedSize();
      sendCounted(e.getKey(), e.getValue(), deadline);
    }
    Coordinator.LOG.log(Level.INFO, "session {0}: sent {1} messages, {2} B", c.sessionHex, batch.size(), bytes);
  }

  CoordinatorMessage encode(Messages.ServerMessage m) {
    CoordinatorMessage.Builder b = CoordinatorMessage.newBuilder();
    if (m instanceof Messages.KeyRoster k) {
      var kr = c.codec.encode(k).toBuilder();
      if (c.ca != null) {
        for (int v : k.neighbours().keySet()) {
          Peer n = c.enrolled.get(v);
          kr.addBindings(dev.helmet.transport.wire.IdentityBinding.newBuilder().setParty(v)
              .setCertificate(ByteString.copyFrom(n.tlsCertificate)).setSignature(ByteString.copyFrom(n.binding)));
        }
      }
      b.setKeyRoster(kr);
    } else if (m instanceof Messages.ShareDelivery s) {
      b.setShareDelivery(c.codec.encode(s));
    } else if (m instanceof Messages.ConsistencyCheckRequest check) {
      b.setConsistencyCheckRequest(c.codec.encode(check));
    } else if (m instanceof Messages.UnmaskingRequest u) {
      b.setUnmaskingRequest(c.codec.encode(u));
    } else {
      throw new IllegalStateException("no encoding for " + m.getClass().getSimpleName());
    }
    return b.build();
  }

  /**
   * Sends through the outbound budget. A participant whose stream does not drain before the
   * deadline while the budget is exhausted is cut off, so one stalled reader cannot stall everyone.
   */
  void sendCounted(Peer p, CoordinatorMessage m, long deadline) {
    int permits = Math.min(m.getSerializedSize(), Coordinator.OUTBOUND_BUDGET);
    try {
      while (!c.outbound.tryAcquire(permits, Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS)) {
        if (System.nanoTime() - deadline >= 0) {
          cutOffStalledReaders();
          deadline = c.deadlineAfterRound();
        }
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return;
    }
    p.sendCounted(m, permits);
  }

  void cutOffStalledReaders() {
    List<Peer> all;
    c.lock.lock();
    try {
      all = new ArrayList<>(c.streams);
    } finally {
      c.lock.unlock();
    }
    for (Peer p : all) {
      boolean stalled;
      synchronized (p) {
        stalled = p.pendingPermits > 0 && !p.out.isReady();
      }
      if (stalled) {
        Coordinator.LOG.log(Level.WARNING, "session {0}: {1} does not read its messages; disconnecting it", c.sessionHex, p.name());
        c.inbound.departed(p, "did not read its messages before the deadline");
        p.finish(Status.DEADLINE_EXCEEDED.withDescription("messages not read before the deadline"));
      }
    }
  }
}
