package dev.helmet.transport;

import dev.helmet.transport.wire.CoordinatorGrpc;
import dev.helmet.transport.wire.GetSessionRequest;
import dev.helmet.transport.wire.SessionConfig;
import io.grpc.ManagedChannel;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import java.lang.System.Logger.Level;
import java.util.HexFormat;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * How a participant reaches its coordinator and waits for it: at start (the coordinator may not be
 * up yet) and after losing it (a coordinator restarted by its operator opens a new session, which
 * the participant joins once its policy accepts it). Waiting is bounded by the participant's
 * {@code wait} and said in words at each try; a TLS mistake, which waiting does not heal, fails at
 * once naming the check that failed.
 */
final class CoordinatorLink {
  /** The longest pause between two tries (a restarted coordinator is noticed within this). */
  static final long MAX_BACKOFF_MILLIS = 10_000;
  /** Tries at start when the participant does not wait (a coordinator still binding its port). */
  static final int ATTEMPTS_WITHOUT_WAITING = 3;

  private CoordinatorLink() {}

  /** The coordinator went away (connection lost, or it shut down) before the session ended. */
  static final class Lost extends Participant.ParticipantException {
    private static final long serialVersionUID = 1L;

    Lost(String message, Throwable cause) {
      super(message, cause);
    }
  }

  /** The coordinator refused the Join (perhaps because it was restarted and runs another session). */
  static final class Refused extends Participant.ParticipantException {
    private static final long serialVersionUID = 1L;

    Refused(String message) {
      super(message);
    }
  }

  /**
   * The session the coordinator runs now if it is not {@code session} (it was restarted between
   * this party's GetSession and its Join), else null.
   */
  static String replacedBy(ManagedChannel channel, String session) {
    try {
      String now = HexFormat.of().formatHex(CoordinatorGrpc.newBlockingStub(channel)
          .withDeadlineAfter(30, TimeUnit.SECONDS).getSession(GetSessionRequest.getDefaultInstance())
          .getSessionId().toByteArray());
      return now.equals(session) ? null : now;
    } catch (StatusRuntimeException e) {
      return null;
    }
  }

  /** Whether a stream failure means the coordinator is gone (killed, shut down, unreachable). */
  static boolean lost(Throwable t) {
    return Status.fromThrowable(t).getCode() == Status.Code.UNAVAILABLE;
  }

  /**
   * The configuration of the session the coordinator publishes, other than {@code previous} (the
   * session this participant just lost, or null at start), waiting up to {@code waitSeconds}.
   */
  static SessionConfig session(String target, ManagedChannel channel, long waitSeconds, String previous,
      ParticipantListener listener) throws Participant.ParticipantException, InterruptedException {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(waitSeconds);
    long backoff = 1_000;
    for (int attempt = 1; ; attempt++) {
      String waitingFor;
      Throwable cause = null;
      try {
        SessionConfig config = CoordinatorGrpc.newBlockingStub(channel).withDeadlineAfter(30, TimeUnit.SECONDS)
            .getSession(GetSessionRequest.getDefaultInstance());
        String id = HexFormat.of().formatHex(config.getSessionId().toByteArray());
        if (!id.equals(previous)) {
          return config;
        }
        // A connection lost while the coordinator lives on: its session goes on without this party.
        waitingFor = "session " + id + " goes on without this party; waiting for the coordinator's next session";
      } catch (StatusRuntimeException e) {
        String tls = tlsProblem(e);
        if (tls != null) {
          throw new Participant.ParticipantException("cannot reach the coordinator at " + target + ": " + tls, e);
        }
        Status.Code code = e.getStatus().getCode();
        if (code != Status.Code.UNAVAILABLE && code != Status.Code.DEADLINE_EXCEEDED) {
          throw new Participant.ParticipantException("cannot reach the coordinator at " + target + ": " + describe(e), e);
        }
        waitingFor = "the coordinator at " + target + " does not answer (" + describe(e) + ")";
        cause = e;
      }
      long left = deadline - System.nanoTime();
      boolean tryAgain = waitSeconds > 0 ? left > 0 : attempt < ATTEMPTS_WITHOUT_WAITING && previous == null;
      if (!tryAgain) {
        String waited = waitSeconds > 0 ? "; gave up after waiting " + waitSeconds + " s (--wait)" : "";
        throw new Participant.ParticipantException((cause != null ? "cannot reach the coordinator at " + target + ": "
            + describe(cause) : waitingFor) + waited, cause);
      }
      long pause = waitSeconds > 0 ? Math.min(backoff, Math.max(1, TimeUnit.NANOSECONDS.toMillis(left))) : backoff;
      long secondsLeft = waitSeconds > 0 ? Math.max(1, (left + 999_999_999L) / 1_000_000_000L) : 0;
      Participant.LOG.log(Level.INFO, "{0}; trying again in {1} s", waitingFor, pause / 1000.0);
      listener.event("waiting", Map.of("coordinator", target, "reason", waitingFor, "retry_seconds", pause / 1000.0,
          "seconds_left", secondsLeft));
      Thread.sleep(pause);
      backoff = Math.min(MAX_BACKOFF_MILLIS, backoff * 2);
    }
  }

  /**
   * A failed TLS handshake in words (which side refused what), or null if {@code t} is not one: the
   * cause chain of a gRPC failure names the check in the JDK's terms (PKIX path building, an
   * expired certificate, a host name the certificate does not list, a fatal alert from the peer).
   */
  static String tlsProblem(Throwable t) {
    StringBuilder chain = new StringBuilder();
    boolean ssl = false;
    for (Throwable c = t; c != null && chain.length() < 20_000; c = c.getCause()) {
      ssl |= c instanceof javax.net.ssl.SSLException || c instanceof java.security.cert.CertificateException;
      if (c instanceof java.security.cert.CertificateExpiredException) {
        return "a certificate has expired (" + c.getMessage() + "); issue a new one (helmet certs sign)";
      }
      if (c instanceof CoordinatorTrustManager.NodeCertificate) {
        return "TLS handshake failed: " + c.getMessage() + "; connect to the coordinator's address, or ask its "
            + "operator why it presents a node's certificate";
      }
      chain.append(c.getClass().getName()).append(": ").append(c.getMessage()).append('\n');
    }
    String m = chain.toString();
    if (m.contains("PKIX path") || m.contains("unable to find valid certification path")) {
      return "TLS handshake failed: the coordinator's certificate is not signed by the CA in this participant's TLS "
          + "files (ca.pem); use the deployment's ca.pem";
    }
    if (m.contains("No subject alternative") || m.contains("No name matching")) {
      return "TLS handshake failed: the coordinator's certificate does not name the host this participant connects "
          + "to; connect with a name or address its certificate lists (helmet certs --host)";
    }
    if (m.contains("bad_certificate") || m.contains("certificate_unknown") || m.contains("unknown_ca")
        || m.contains("certificate_required")) {
      return "TLS handshake failed: the coordinator refused this participant's certificate (is it a participant "
          + "certificate signed by the deployment's CA, with its matching key?)";
    }
    if (m.contains("ALERT_INTERNAL_ERROR") || m.contains("internal_error")) {
      // What a coordinator on OpenSSL answers when its CA check refuses a client certificate.
      return "TLS handshake failed: the coordinator ended the handshake, most likely refusing this participant's "
          + "certificate (is it signed by the deployment's CA, and still valid?); the coordinator's log says why";
    }
    if (ssl) {
      return "TLS handshake failed: " + m.lines().reduce((a, b) -> b).orElse(m);
    }
    return null;
  }

  /** A gRPC failure's code and description. */
  static String describe(Throwable t) {
    Status s = Status.fromThrowable(t);
    String cause = s.getCause() == null || s.getCause().getMessage() == null ? null : s.getCause().getMessage();
    if (cause != null && cause.contains("Connection refused")) {
      cause = "connection refused: nothing listens there; is the coordinator running, on this port?";
    }
    // gRPC's "io exception" says nothing; its cause says what ("Connection refused: /127.0.0.1:7443").
    String description = s.getDescription() == null || s.getDescription().equals("io exception") && cause != null
        ? cause : s.getDescription();
    if (description != null && description.contains("Connection closed while performing TLS negotiation")) {
      // What a coordinator at its connection limits does to one more (ConnectionGuard): a busy
      // port, not a TLS mistake, so the participant tries again.
      description += "; the coordinator may be at its connection limit (it closes connections beyond it before TLS)";
    }
    return s.getCode() + (description == null ? "" : " (" + description + ")");
  }

  /**
   * Tells the coordinator that this participant refuses its session and why (its own policy's
   * words; nothing about its data): best effort, within 5 s, and an older coordinator without the
   * call or one that is gone changes nothing.
   */
  static void decline(io.grpc.Channel channel, dev.helmet.transport.wire.SessionConfig config, String reason) {
    try {
      dev.helmet.transport.wire.CoordinatorGrpc.newBlockingStub(channel).withDeadlineAfter(5, TimeUnit.SECONDS)
          .decline(dev.helmet.transport.wire.DeclineRequest.newBuilder().setSessionId(config.getSessionId())
              .setReason(reason).build());
    } catch (io.grpc.StatusRuntimeException e) {
      // best effort: the refusal is this participant's own, printed either way
    }
  }
}
