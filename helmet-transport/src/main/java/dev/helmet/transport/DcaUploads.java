package dev.helmet.transport;

import com.google.protobuf.ByteString;
import dev.helmet.secagg.crypto.CryptoProfile;
import dev.helmet.secagg.ring.BitPacking;
import dev.helmet.secagg.servers.ComputeServerSummation;
import dev.helmet.transport.wire.ComputeNodeEntry;
import dev.helmet.transport.wire.ComputeNodeGrpc;
import dev.helmet.transport.wire.SessionConfig;
import dev.helmet.transport.wire.ShareChunk;
import dev.helmet.transport.wire.UploadAck;
import io.grpc.ManagedChannel;
import io.grpc.Status;
import io.grpc.stub.StreamObserver;
import java.lang.System.Logger.Level;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * A participant's side of a dca round: it splits its input into M additive shares (M - 1 seeds
 * of the mask generator and the bit-packed last share, {@link ComputeServerSummation#split}) and
 * uploads share l to compute node l directly, over mutual TLS with the node's certificate pinned
 * by the digest in the published configuration, all nodes at once. Nothing goes to the
 * coordinator; a node that refuses or does not answer leaves this party out of the round's sum.
 */
final class DcaUploads implements AutoCloseable {
  private final SessionConfig config;
  private final String session;
  private final List<ManagedChannel> channels = new ArrayList<>();
  private final Participant.Hook hook;
  long bytesSent;
  double seconds;

  /** Each node's certificate as its handshake showed it (null until then). */
  private final java.security.cert.X509Certificate[] seen;
  /** Why a node's handshake was refused by the holder check, by node. */
  private final java.util.Map<Integer, String> refused = new java.util.concurrent.ConcurrentHashMap<>();
  private final ParticipantListener listener;
  /** The certificate the coordinator presented on this party's session stream. */
  private final java.security.cert.X509Certificate coordinator;

  /**
   * @param coordinator the certificate the coordinator presented on this party's own connection to
   *     it ({@link CoordinatorCertificate}); no node may share its holder
   * @param transport where the channels to the nodes come from (the participant's settings')
   */
  DcaUploads(SessionConfig config, String session, Tls.Files tls, java.security.cert.X509Certificate coordinator,
      Participant.Hook hook, ParticipantListener listener, Transport transport) {
    this.config = config;
    this.session = session;
    this.hook = hook;
    this.listener = listener;
    this.coordinator = java.util.Objects.requireNonNull(coordinator, "the coordinator's certificate");
    this.seen = new java.security.cert.X509Certificate[config.getComputeNodesCount()];
    for (int l = 0; l < config.getComputeNodesCount(); l++) {
      ComputeNodeEntry e = config.getComputeNodes(l);
      int node = l;
      channels.add(transport.channel(e.getEndpoint(), NodeTls.pinned(tls, e.getCertificateSha256()
          .toByteArray(), e.getName(), cert -> distinctHolder(node, cert))).build());
    }
  }

  /**
   * Privacy needs one honest node besides the others, so the nodes must be different holders: a
   * node whose certificate shares its subject or its public key with another node's is refused in
   * its handshake, before its share leaves (two certificates of one holder, a renewal, passed as two
   * nodes and that holder rebuilt every party's input: security review turn 3, T3-2). A share alone
   * is uniformly random, so what the first of such nodes received tells it nothing. The same holds
   * against the coordinator's certificate, as this party saw it on its own session stream: a node
   * sharing its subject or key is the coordinator's own node, and the coordinator (which also
   * receives the nodes' sums) counts as a colluder of every node it runs, so such a node gets no
   * share at all. A heuristic: it catches renewals and byte-identical subjects, not one holder with
   * fresh keys and another subject (its attacker's read); privacy rests on the node the participant
   * trusts ({@link ParticipantPolicy#trustedNodes}) being honest.
   */
  private synchronized void distinctHolder(int node, java.security.cert.X509Certificate cert)
      throws java.security.cert.CertificateException {
    String name = config.getComputeNodes(node).getName();
    String withCoordinator = shared(coordinator, cert);
    if (withCoordinator != null) {
      refuse(node, name, "compute node " + name + " has the same " + withCoordinator + " as the coordinator's "
          + "certificate (" + cert.getSubjectX500Principal().getName() + "; the coordinator's: "
          + coordinator.getSubjectX500Principal().getName() + "): the coordinator would hold this node's share of this "
          + "party's input, so it gets none");
    }
    for (int other = 0; other < seen.length; other++) {
      java.security.cert.X509Certificate o = seen[other];
      if (other == node || o == null) {
        continue;
      }
      String same = shared(o, cert);
      if (same != null) {
        refuse(node, name, "compute node " + name + " has the same " + same + " as compute "
            + "node " + config.getComputeNodes(other).getName() + " (" + cert.getSubjectX500Principal().getName()
            + "): one holder would receive every share of this party's input, so it gets none");
      }
    }
    if (seen[node] == null) {
      seen[node] = cert;
      listener.event("compute_node", java.util.Map.of("node", name, "subject",
          cert.getSubjectX500Principal().getName()));
    }
  }

  /** "subject" or "public key" (SubjectPublicKeyInfo) if the two certificates share it, else null. */
  static String shared(java.security.cert.X509Certificate a, java.security.cert.X509Certificate b) {
    if (a.getSubjectX500Principal().equals(b.getSubjectX500Principal())) {
      return "subject";
    }
    return java.util.Arrays.equals(a.getPublicKey().getEncoded(), b.getPublicKey().getEncoded()) ? "public key" : null;
  }

  /** Reports the refusal of {@code node} once and fails its handshake. */
  private void refuse(int node, String name, String why) throws java.security.cert.CertificateException {
    if (refused.putIfAbsent(node, why) == null) {
      listener.event("compute_node_refused", java.util.Map.of("node", name, "reason", why));
    }
    throw new java.security.cert.CertificateException(why);
  }

  /**
   * Splits {@code x} (d ring elements of {@code bits} bits) and uploads its shares of round
   * {@code round}; waits at most the round deadline. Returns the nodes that did not take their
   * share, with why (empty: all did).
   */
  List<String> upload(int round, int party, long[] x, int bits, CryptoProfile profile) throws InterruptedException {
    long t0 = System.nanoTime();
    int m = channels.size();
    ComputeServerSummation.Shares shares = ComputeServerSummation.split(x, m, bits, profile);
    List<CompletableFuture<UploadAck>> acks = new ArrayList<>();
    for (int l = 0; l < m; l++) {
      byte[] share = l < m - 1 ? shares.seeds()[l] : BitPacking.pack(shares.last(), bits);
      acks.add(send(l, round, party, hook.share(l, share)));
    }
    List<String> failed = new ArrayList<>();
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(config.getDeadlines().getRoundSeconds());
    for (int l = 0; l < m; l++) {
      String name = config.getComputeNodes(l).getName();
      try {
        acks.get(l).get(Math.max(1, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
      } catch (ExecutionException e) {
        Status s = Status.fromThrowable(e.getCause());
        String why = refused.get(l);
        failed.add(name + ": " + (why != null ? why
            : s.getCode() + (s.getDescription() == null ? "" : " (" + s.getDescription() + ")")));
      } catch (TimeoutException e) {
        failed.add(name + ": no answer within the round deadline");
      }
    }
    seconds += (System.nanoTime() - t0) / 1e9;
    if (!failed.isEmpty()) {
      Participant.LOG.log(Level.WARNING, "session {0}: round {1}: compute node(s) did not take this party''s share: {2}",
          session, round, String.join("; ", failed));
    }
    return failed;
  }

  private CompletableFuture<UploadAck> send(int node, int round, int party, byte[] share) {
    CompletableFuture<UploadAck> done = new CompletableFuture<>();
    StreamObserver<ShareChunk> out = ComputeNodeGrpc.newStub(channels.get(node))
        .withDeadlineAfter(config.getDeadlines().getRoundSeconds(), TimeUnit.SECONDS)
        .upload(new StreamObserver<>() {
          @Override
          public void onNext(UploadAck ack) {
            done.complete(ack);
          }

          @Override
          public void onError(Throwable t) {
            done.completeExceptionally(t);
          }

          @Override
          public void onCompleted() {
            done.complete(UploadAck.getDefaultInstance());
          }
        });
    int offset = 0;
    do {
      int len = Math.min(NodeService.CHUNK_BYTES, share.length - offset);
      ShareChunk c = ShareChunk.newBuilder().setSessionId(config.getSessionId()).setRound(round).setParty(party)
          .setTotalBytes(share.length).setData(ByteString.copyFrom(share, offset, len)).build();
      synchronized (this) {
        bytesSent += c.getSerializedSize();
      }
      out.onNext(c);
      offset += len;
    } while (offset < share.length);
    out.onCompleted();
    return done;
  }

  @Override
  public void close() {
    for (ManagedChannel ch : channels) {
      ch.shutdownNow();
    }
  }
}
