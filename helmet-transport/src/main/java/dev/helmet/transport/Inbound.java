package dev.helmet.transport;

import dev.helmet.secagg.protocol.Messages;
import dev.helmet.secagg.protocol.Round;
import dev.helmet.transport.wire.CoordinatorMessage;
import dev.helmet.transport.wire.Enrolled;
import dev.helmet.transport.wire.Join;
import dev.helmet.transport.wire.NonceReveal;
import dev.helmet.transport.wire.ParticipantMessage;
import dev.helmet.transport.wire.Refused;
import dev.helmet.transport.wire.UploadGrant;
import io.grpc.Status;
import java.lang.System.Logger.Level;
import java.util.HexFormat;

/**
 * The session's state machine for what participants send (gRPC threads, under the session lock):
 * joins, nonce reveals, the SecAgg messages with their upload grants, and departures. Every
 * message is checked against the round, the sender's stream and the protocol before it reaches the
 * SecAgg server state; anything else is rejected and recorded.
 */
final class Inbound {
  private final Coordinator c;

  Inbound(Coordinator c) {
    this.c = c;
  }

  void onMessage(Peer peer, ParticipantMessage m) {
    boolean requestNext = true;
    c.lock.lock();
    try {
      peer.bytesIn += m.getSerializedSize();
      c.bytesInThisRound += m.getSerializedSize();
      switch (m.getBodyCase()) {
        case JOIN -> join(peer, m.getJoin());
        case ADVERTISE_KEYS -> deliver(peer, () -> c.codec.decode(m.getAdvertiseKeys()));
        case SHARE_KEYS -> deliver(peer, () -> c.codec.decode(m.getShareKeys()));
        case UPLOAD_READY -> requestNext = uploadReady(peer);
        case MASKED_INPUT -> {
          if (!peer.granted) {
            c.events.reject(peer, c.stage(), "NO_UPLOAD_GRANT",
                "masked input from " + peer.name() + " without an upload grant");
          } else {
            peer.granted = false;
            c.activeUploads--;
            deliver(peer, () -> c.codec.decode(m.getMaskedInput()), true);
            grantUploads();
          }
        }
        case CONSISTENCY_SIGNATURE -> deliver(peer, () -> c.codec.decode(m.getConsistencySignature()));
        case UNMASKING_SHARES -> deliver(peer, () -> c.codec.decode(m.getUnmaskingShares()));
        case NONCE_REVEAL -> reveal(peer, m.getNonceReveal());
        case BOARD_CHUNK -> {
          BoardRelay board = c.board;
          if (board == null) {
            c.events.reject(peer, c.stage(), "WRONG_ROUND", "a board post from " + peer.name() + " when no setup runs");
          } else {
            board.chunk(peer, m.getBoardChunk());
          }
        }
        case BODY_NOT_SET -> c.events.reject(peer, c.stage(), "MALFORMED", "an empty message from "
            + peer.name());
      }
    } catch (RuntimeException e) {
      Coordinator.LOG.log(Level.ERROR, "session " + c.sessionHex + ": handling a message from " + peer.name(), e);
    } finally {
      c.lock.unlock();
    }
    if (requestNext) {
      requestNext(peer);
    }
  }

  static void requestNext(Peer peer) {
    synchronized (peer) {
      if (!peer.closed) {
        peer.out.request(1);
      }
    }
  }

  /** A party's nonce reveal (lock held). */
  void reveal(Peer peer, NonceReveal r) {
    if (!c.revealing || peer.party < 0) {
      c.events.reject(peer, c.stage(), "WRONG_ROUND", "a nonce reveal from " + peer.name() + " that is not expected now");
    } else if (peer.revealed != null) {
      c.events.reject(peer, c.stage(), "REPLAYED", "a second nonce reveal from " + peer.name());
    } else if (r.getSender() != peer.party) {
      c.events.reject(peer, c.stage(), "IMPERSONATION", "a nonce reveal claiming to be from party " + r.getSender()
          + " on the stream of " + peer.name());
    } else if (!java.security.MessageDigest.isEqual(SessionPlan.nonceCommitment(r.getNonce().toByteArray()),
        peer.commitment)) {
      c.events.reject(peer, c.stage(), "MALFORMED", "the nonce revealed by " + peer.name() + " does not match its commitment");
    } else {
      peer.revealed = r.getNonce().toByteArray();
      if (c.driver.liveRevealed()) {
        c.changed.signalAll();
      }
    }
  }

  void join(Peer peer, Join j) {
    if (peer.joined) {
      c.events.reject(peer, c.stage(), "REPLAYED", "a second Join from " + peer.name());
      return;
    }
    String why = null;
    String bindingProblem;
    if (c.phase != Coordinator.Phase.ENROLLING) {
      why = "enrolment for session " + c.sessionHex + " is closed";
    } else if (!j.getSessionId().equals(c.config.getSessionId())) {
      why = "unknown session " + HexFormat.of().formatHex(j.getSessionId().toByteArray())
          + "; this coordinator runs session " + c.sessionHex;
    } else if (!java.security.MessageDigest.isEqual(j.getConfigDigest().toByteArray(), c.configDigest)) {
      why = "configuration mismatch: the participant agreed to configuration digest "
          + HexFormat.of().formatHex(j.getConfigDigest().toByteArray()) + " but the session's is "
          + HexFormat.of().formatHex(c.configDigest);
    } else if (c.countsPrivate && j.getPoints() != c.config.getMaxPoints()) {
      // Neither logged nor stored: under add-or-remove a number other than the bound may be a size.
      why = "session " + c.sessionHex + " is accounted under add-or-remove neighbours, where a party's size is "
          + "private: every participant claims max_points = " + c.config.getMaxPoints() + " instead of its size "
          + "(a participant of this version does)";
    } else if (j.getPoints() < 1 || j.getPoints() > c.config.getMaxPoints()) {
      why = "a participant claims between 1 and max_points = " + c.config.getMaxPoints() + " training points; this one "
          + "claimed " + j.getPoints();
    } else if (j.getIdentityKey().size() != 32 || j.getNonceCommitment().size() != 32) {
      why = "identity_key and nonce_commitment must be 32 bytes each";
    } else if (c.ca != null && (peer.tlsCertificate == null
        || !java.util.Arrays.equals(peer.tlsCertificate, j.getCertificate().toByteArray()))) {
      why = "the certificate in the Join is not the one presented in the TLS handshake";
    } else if (c.ca != null && (bindingProblem = IdentityBinding.check(j.getCertificate().toByteArray(),
        j.getIdentityBinding().toByteArray(), c.ca, c.configDigest, j.getIdentityKey().toByteArray(),
        j.getNonceCommitment().toByteArray())) != null) {
      why = bindingProblem;
    } else if (c.enrolled.size() >= c.config.getParties()) {
      why = "the session already has its " + c.config.getParties() + " parties";
    } else {
      for (Peer other : c.enrolled) {
        // One enrolment per certificate: one certificate holder enrolling many times would make up
        // more of the parties than the honest fraction the noise was sized for allows.
        if (c.ca != null && (java.util.Arrays.equals(other.tlsCertificate, peer.tlsCertificate)
            || IdentityBinding.holder(other.tlsCertificate).same(IdentityBinding.holder(peer.tlsCertificate)))) {
          why = "this certificate, or another with its subject or key, is already enrolled in session " + c.sessionHex
              + " (one enrolment per certificate holder)";
          break;
        }
        if (java.util.Arrays.equals(other.identityKey, j.getIdentityKey().toByteArray())
            || java.util.Arrays.equals(other.commitment, j.getNonceCommitment().toByteArray())) {
          why = "the identity key or nonce commitment is already enrolled (" + other.subjectOrPlain() + ")";
          break;
        }
      }
    }
    if (why != null) {
      c.events.reject("ENROLMENT", null, "REFUSED", why + " (" + peer.subjectOrPlain() + ")");
      peer.sendSmall(CoordinatorMessage.newBuilder().setRefused(Refused.newBuilder().setReason(why)).build());
      peer.finish(Status.OK);
      return;
    }
    peer.joined = true;
    peer.binding = j.getIdentityBinding().toByteArray();
    peer.points = j.getPoints();
    peer.identityKey = j.getIdentityKey().toByteArray();
    peer.commitment = j.getNonceCommitment().toByteArray();
    c.enrolled.add(peer);
    c.listener.enrolled(c.enrolled.size(), (int) c.config.getParties());
    Coordinator.LOG.log(Level.INFO, "session {0}: enrolled {1}, {2} points; {3} of {4}", c.sessionHex, peer.subjectOrPlain(),
        peer.points, c.enrolled.size(), c.config.getParties());
    peer.sendSmall(CoordinatorMessage.newBuilder().setEnrolled(Enrolled.newBuilder().setEnrolled(c.enrolled.size())
        .setParties(c.config.getParties())).build());
    c.changed.signalAll();
  }

  interface Decoder {
    Messages.ClientMessage decode();
  }

  void deliver(Peer peer, Decoder decoder) {
    deliver(peer, decoder, false);
  }

  /** @param uploading whether this is the masked input its upload grant was for */
  void deliver(Peer peer, Decoder decoder, boolean uploading) {
    String stage = c.stage();
    if (c.phase != Coordinator.Phase.RUNNING || c.state == null || c.state.isFinal()) {
      c.events.reject(peer, stage, "WRONG_ROUND", "no round is open (" + peer.name() + ")");
      return;
    }
    if (peer.party < 0) {
      c.events.reject(peer, stage, "UNKNOWN_PARTY", "a protocol message from a peer that has not joined ("
          + peer.subjectOrPlain() + ")");
      return;
    }
    if (c.gone.get(peer.party)) {
      c.events.reject(peer, stage, "UNKNOWN_PARTY", peer.name() + " was disconnected");
      return;
    }
    Messages.ClientMessage msg;
    try {
      msg = decoder.decode();
    } catch (WireFormatException e) {
      c.events.reject(peer, stage, "MALFORMED", e.getMessage() + " (" + peer.name() + ")");
      if (uploading) {
        // Its one upload grant is spent: it cannot contribute any more, so the round need not wait.
        c.gone.set(peer.party);
        if (c.awaitingLive().isEmpty()) {
          c.changed.signalAll();
        }
      }
      return;
    }
    if (msg.sender() != peer.party) {
      c.events.reject(peer, stage, "IMPERSONATION", "a message claiming to be from party " + msg.sender() + " on the stream of "
          + peer.name());
      return;
    }
    int rejectedBefore = c.state.rejections().size();
    c.state.receive(msg);
    c.events.recordEvents(stage);
    if (c.state.rejections().size() > rejectedBefore) {
      c.events.charge(peer);
    }
    if (c.awaitingLive().isEmpty()) {
      c.changed.signalAll();
    }
  }

  /** Queues the party for an upload grant; its next message is read only once granted. */
  boolean uploadReady(Peer peer) {
    if (c.phase != Coordinator.Phase.RUNNING || c.state == null || c.state.round() != Round.MASKED_INPUT || peer.party < 0
        || !c.state.awaiting().get(peer.party) || peer.granted || c.uploadQueue.contains(peer)) {
      c.events.reject(peer, c.stage(), "WRONG_ROUND", "an upload request from " + peer.name()
          + " that is not expected now");
      return true;
    }
    c.uploadQueue.add(peer);
    grantUploads();
    return false;
  }

  void grantUploads() {
    while (c.activeUploads < c.settings.uploadSlots() && !c.uploadQueue.isEmpty()) {
      Peer p = c.uploadQueue.poll();
      if (c.gone.get(p.party)) {
        continue;
      }
      p.granted = true;
      c.activeUploads++;
      p.sendSmall(CoordinatorMessage.newBuilder()
          .setUploadGrant(UploadGrant.newBuilder().setSecaggSession(c.secaggSession)).build());
      requestNext(p);
    }
  }

  void departed(Peer peer, String why) {
    c.lock.lock();
    try {
      if (peer.joined && peer.party < 0 && c.phase == Coordinator.Phase.ENROLLING) {
        // A party that leaves before the roster is fixed is simply not enrolled.
        c.enrolled.remove(peer);
        // Written by the event writer under the same cap as rejections: join-and-leave loops can
        // neither stall enrolment nor fill the database.
        c.events.capped("ENROLMENT", null, "LEFT", "DISCONNECTED", peer.subjectOrPlain() + ": " + why);
        Coordinator.LOG.log(Level.INFO, "session {0}: {1} left during enrolment: {2}", c.sessionHex, peer.name(), why);
        c.changed.signalAll();
      } else if (peer.party >= 0 && !c.gone.get(peer.party)) {
        c.gone.set(peer.party);
        Coordinator.LOG.log(Level.INFO, "session {0}: {1} left: {2}", c.sessionHex, peer.name(), why);
        if (peer.granted) {
          peer.granted = false;
          c.activeUploads--;
          grantUploads();
        }
        c.uploadQueue.remove(peer);
        c.changed.signalAll();
      }
      c.streams.remove(peer);
    } finally {
      c.lock.unlock();
    }
    synchronized (peer) {
      peer.closed = true;
      peer.drained();
    }
  }
}
