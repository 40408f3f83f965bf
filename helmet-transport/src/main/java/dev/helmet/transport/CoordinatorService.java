package dev.helmet.transport;

import dev.helmet.transport.wire.CoordinatorGrpc;
import dev.helmet.transport.wire.CoordinatorMessage;
import dev.helmet.transport.wire.GetSessionRequest;
import dev.helmet.transport.wire.ParticipantMessage;
import dev.helmet.transport.wire.SessionConfig;
import io.grpc.Status;
import io.grpc.stub.ServerCallStreamObserver;
import io.grpc.stub.StreamObserver;

/** The gRPC service: the published configuration, and one stream per participant handed to the session. */
final class CoordinatorService extends CoordinatorGrpc.CoordinatorImplBase {
  /** What is left of a stream the coordinator refused: anything more it sends is dropped. */
  private static final StreamObserver<ParticipantMessage> IGNORED = new StreamObserver<>() {
    @Override
    public void onNext(ParticipantMessage value) {}

    @Override
    public void onError(Throwable t) {}

    @Override
    public void onCompleted() {}
  };

  private final Coordinator c;

  CoordinatorService(Coordinator c) {
    this.c = c;
  }

  @Override
  public void getSession(GetSessionRequest request, StreamObserver<SessionConfig> response) {
    response.onNext(c.config);
    response.onCompleted();
  }

  /**
   * A participant refused the session by its own policy: recorded (once per certificate, through
   * the capped writer: enrolled parties' budget; at most {@link #DECLINE_CHARS} characters) and
   * logged, so the operator sees why parties do not join (issue 47). Nothing is trusted from it.
   */
  @Override
  public void decline(dev.helmet.transport.wire.DeclineRequest request,
      StreamObserver<dev.helmet.transport.wire.DeclineAck> response) {
    String subject = Tls.PEER.get() == null || Tls.PEER.get().isEmpty() ? "plaintext" : Tls.PEER.get();
    // Nothing of the request is echoed or processed beyond a fixed size: a large session id was
    // hex-formatted into the error (28 times its size: the attacker's read of this call).
    if (!request.getSessionId().equals(c.config.getSessionId())) {
      response.onError(Status.FAILED_PRECONDITION.withDescription("that is not this coordinator's session "
          + c.sessionHex).asRuntimeException());
      return;
    }
    String reason = PeerText.printable(request.getReason(), DECLINE_CHARS);
    c.lock.lock();
    try {
      if (c.declined.add(subject)) {
        int colon = reason.indexOf(':');
        String parameter = colon > 0 && colon < 40 ? reason.substring(0, colon) : "POLICY";
        c.events.capped("ENROLMENT", null, "DECLINED", parameter, subject + " refused the session: " + reason);
      }
    } finally {
      c.lock.unlock();
    }
    response.onNext(dev.helmet.transport.wire.DeclineAck.getDefaultInstance());
    response.onCompleted();
  }

  /** The longest refusal a participant's Decline stores. */
  static final int DECLINE_CHARS = 400;


  @Override
  public StreamObserver<ParticipantMessage> participate(StreamObserver<CoordinatorMessage> response) {
    ServerCallStreamObserver<CoordinatorMessage> out = (ServerCallStreamObserver<CoordinatorMessage>) response;
    out.disableAutoRequest();
    Peer peer = new Peer(out, Tls.PEER.get() == null ? "" : Tls.PEER.get(), Tls.PEER_CERTIFICATE.get(), c.outbound);
    c.lock.lock();
    try {
      if (c.phase == Coordinator.Phase.DONE || c.closing) {
        out.onError(Status.FAILED_PRECONDITION.withDescription("session " + c.sessionHex + " has ended")
            .asRuntimeException());
        return IGNORED;
      }
      String refusal = null;
      if (peer.tlsCertificate != null) {
        int same = 0;
        for (Peer other : c.streams) {
          same += java.util.Arrays.equals(other.tlsCertificate, peer.tlsCertificate) ? 1 : 0;
        }
        if (same >= Coordinator.MAX_STREAMS_PER_CERTIFICATE) {
          refusal = "this certificate already has " + same + " open streams";
        }
      }
      if (refusal == null && c.streams.size() >= 4L * c.config.getParties() + 64) {
        refusal = "too many open streams";
      }
      if (refusal != null) {
        c.events.reject("ENROLMENT", null, "TOO_MANY_STREAMS", refusal + " (" + peer.subjectOrPlain() + ")");
        out.onError(Status.RESOURCE_EXHAUSTED.withDescription(refusal).asRuntimeException());
        return IGNORED;
      }
      c.streams.add(peer);
    } finally {
      c.lock.unlock();
    }
    out.setOnCancelHandler(() -> c.inbound.departed(peer, "the connection was cancelled"));
    // A stream the coordinator ends itself (a refused join, a peer cut off for junk) is gone too:
    // it no longer counts against its certificate's streams, and rounds do not wait for it.
    out.setOnCloseHandler(() -> c.inbound.departed(peer, "the coordinator closed its stream"));
    out.setOnReadyHandler(peer::drained);
    out.request(1);
    return new StreamObserver<>() {
      @Override
      public void onNext(ParticipantMessage m) {
        c.inbound.onMessage(peer, m);
      }

      @Override
      public void onError(Throwable t) {
        c.inbound.departed(peer, "the connection failed: " + Status.fromThrowable(t).getCode());
      }

      @Override
      public void onCompleted() {
        c.inbound.departed(peer, "it closed its stream");
        peer.finish(Status.OK);
      }
    };
  }
}
