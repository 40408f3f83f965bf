package dev.helmet.transport;

import dev.helmet.transport.wire.CoordinatorMessage;
import io.grpc.Status;
import io.grpc.stub.ServerCallStreamObserver;

/** One participant's stream. */
final class Peer {
  final ServerCallStreamObserver<CoordinatorMessage> out;
  final String subject;
  int party = -1;
  boolean joined;
  /** Over TLS: the certificate of the handshake (DER) and the identity binding from the Join. */
  final byte[] tlsCertificate;
  byte[] binding;
  int points;
  byte[] identityKey;
  /** The commitment its Join made to its graph nonce, and the nonce once revealed. */
  byte[] commitment;
  byte[] revealed;
  boolean granted;
  boolean closed;
  long pendingPermits;
  /** Messages of this peer rejected so far. */
  int rejections;
  long bytesIn;
  long bytesOut;

  /** The coordinator's outbound byte budget, shared by every stream. */
  private final java.util.concurrent.Semaphore outbound;

  Peer(ServerCallStreamObserver<CoordinatorMessage> out, String subject, byte[] tlsCertificate,
      java.util.concurrent.Semaphore outbound) {
    this.outbound = outbound;
    this.out = out;
    this.subject = subject;
    this.tlsCertificate = tlsCertificate;
  }

  String name() {
    return party >= 0 ? "party " + party + " (" + subjectOrPlain() + ")"
        : (joined ? "enrolled peer " : "unenrolled peer ") + subjectOrPlain();
  }

  String subjectOrPlain() {
    return subject.isEmpty() ? "plaintext" : subject;
  }

  /** Sends a control message (small; not counted against the outbound budget). */
  synchronized void sendSmall(CoordinatorMessage m) {
    if (closed) {
      return;
    }
    bytesOut += m.getSerializedSize();
    try {
      out.onNext(m);
    } catch (RuntimeException e) {
      closed = true;
    }
  }

  /** Sends a message holding {@code permits} of the outbound budget until the stream drains. */
  void sendCounted(CoordinatorMessage m, int permits) {
    synchronized (this) {
      if (closed) {
        outbound.release(permits);
        return;
      }
      bytesOut += m.getSerializedSize();
      try {
        out.onNext(m);
      } catch (RuntimeException e) {
        closed = true;
        outbound.release(permits);
        return;
      }
      pendingPermits += permits;
    }
    drained();
  }

  /** Returns this stream's permits once gRPC has passed its queued bytes to the network. */
  synchronized void drained() {
    if (pendingPermits > 0 && (closed || out.isReady())) {
      outbound.release((int) pendingPermits);
      pendingPermits = 0;
    }
  }

  synchronized void finish(Status status) {
    if (closed) {
      return;
    }
    closed = true;
    try {
      if (status.isOk()) {
        out.onCompleted();
      } else {
        out.onError(status.asRuntimeException());
      }
    } catch (RuntimeException e) {
      // the stream is already gone
    }
    if (pendingPermits > 0) {
      outbound.release((int) pendingPermits);
      pendingPermits = 0;
    }
  }
}
