package dev.helmet.transport;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.google.protobuf.ByteString;
import dev.helmet.core.data.Dataset;
import dev.helmet.core.partition.Partition;
import dev.helmet.core.partition.PartitionStrategy;
import dev.helmet.core.testdata.TestData;
import dev.helmet.transport.wire.ComputeNodeEntry;
import dev.helmet.transport.wire.SessionConfig;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyFactory;
import java.security.PrivateKey;
import java.security.cert.CertificateFactory;
import java.security.cert.X509Certificate;
import java.security.spec.PKCS8EncodedKeySpec;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Base64;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.bouncycastle.asn1.x500.X500Name;
import org.bouncycastle.asn1.x509.GeneralName;
import org.bouncycastle.asn1.x509.GeneralNames;
import org.bouncycastle.asn1.x509.KeyPurposeId;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Security review turn 3, T3-2 (built on its {@code DcaSameHolderNodesPocTest}): the compute nodes
 * were whatever the coordinator listed, and two certificates of one holder (a renewal: the same
 * subject and key) passed as two nodes, whose holder rebuilt every party's exact input from the two
 * shares. Now a participant takes part in a dca session only if it lists a node the participant
 * trusts (its own policy), and refuses, in the TLS handshake and so before its share leaves, a node
 * that shares its subject or key with another, or with the certificate the coordinator presented
 * on the party's own connection: no holder receives more than one share, and the coordinator's
 * own node none.
 */
@org.junit.jupiter.api.Tag("integration")
class DcaOneHolderTest {
  private static final Dataset DIGITS = TestData.digits();

  @Test
  void aSessionListingNoTrustedNodeIsRefusedNamingTheFlag() throws Exception {
    SessionConfig config = config(List.of(entry("compute-node-1", 7101, 1), entry("compute-node-2", 7102, 2)));
    ParticipantPolicy defaults = new ParticipantPolicy(1.0, 3, Set.of(), 0.5);
    String why = defaults.check(config);
    assertTrue(why != null && why.contains("--trusted-node") && why.contains("compute-node-1"), why);
    String second = HexFormat.of().formatHex(digest(2));
    assertNull(defaults.withTrustedNodes(Set.of(second.toUpperCase())).check(config), "a listed node it trusts");
    String other = HexFormat.of().formatHex(digest(9));
    assertTrue(defaults.withTrustedNodes(Set.of(other)).check(config) != null, "a node it trusts that is not listed");
  }

  @Test
  void twoNodeCertificatesOfOneHolderNeverBothReceiveAShare(@TempDir Path dir) throws Exception {
    Path certs = dir.resolve("certs");
    Certificates.create(certs, List.of("localhost", "127.0.0.1"), 3, 1, Duration.ofDays(1));
    reissueSameKey(certs, "compute-node-1", "compute-node-1-renewed");
    List<ComputeNodeServer> servers = new ArrayList<>();
    servers.add(ComputeNodeServer.start(new ComputeNodeServer.Settings("compute-node-1", "127.0.0.1", 0,
        Tls.Files.in(certs, "compute-node-1"), null, 2)));
    servers.add(ComputeNodeServer.start(new ComputeNodeServer.Settings("compute-node-1-renewed", "127.0.0.1", 0,
        Tls.Files.in(certs, "compute-node-1-renewed"), null, 2)));
    ExecutorService pool = Executors.newFixedThreadPool(3);
    try {
      List<ComputeNodeEntry> entries = new ArrayList<>();
      for (ComputeNodeServer s : servers) {
        entries.add(ComputeNodeEntry.newBuilder().setName(s.name()).setEndpoint("127.0.0.1:" + s.port())
            .setCertificateSha256(ByteString.copyFrom(s.certificateSha256())).build());
      }
      SessionConfig config = config(entries);
      Partition p = new PartitionStrategy.Iid(3, 40).split(DIGITS, new SplittableRandom(3));
      Map<Integer, List<String>> refusals = new ConcurrentHashMap<>();
      Coordinator.Result r;
      try (Coordinator c = Coordinator.start(Loopback.settings(config, dir, Tls.Files.in(certs, "coordinator"), 1e7))) {
        List<Future<Participant.Result>> fs = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
          int k = i;
          refusals.put(k, java.util.Collections.synchronizedList(new ArrayList<>()));
          Dataset shard = DIGITS.subset(p.indices(k), "shard " + k);
          ParticipantPolicy trustsTheFirst = ParticipantPolicy.upTo(1e7).withTrustedNodes(Set.of(
              HexFormat.of().formatHex(servers.get(0).certificateSha256())));
          fs.add(pool.submit(() -> Participant.run(new Participant.Settings("127.0.0.1:" + c.port(),
              Tls.Files.in(certs, "participant-" + (k + 1)), trustsTheFirst, shard, 11L + k, 120, null),
              (kind, fields) -> {
                if (kind.equals("compute_node_refused")) {
                  refusals.get(k).add(String.valueOf(fields.get("reason")));
                }
              })));
        }
        r = c.await(120, TimeUnit.SECONDS);
        for (Future<Participant.Result> f : fs) {
          try {
            f.get(60, TimeUnit.SECONDS);
          } catch (java.util.concurrent.ExecutionException e) {
            // a party left out of the round's sum ends with the session
          }
        }
      }
      assertFalse(r.completed(), "a sum was released though every party refused one of the two nodes: " + r.reason());
      for (int i = 0; i < 3; i++) {
        List<String> why = refusals.get(i);
        assertEquals(1, why.size(), "participant " + i + ": " + why);
        assertTrue(why.get(0).contains("has the same subject") && why.get(0).contains("gets none"), why.get(0));
      }
    } finally {
      pool.shutdownNow();
      servers.forEach(ComputeNodeServer::close);
    }
  }

  @Test
  void aNodeHoldingTheCoordinatorsKeyNeverReceivesAShare(@TempDir Path dir) throws Exception {
    // The CA issues the coordinator a certificate for compute-node-1's key (its own node): a
    // coordinator subject, serverAuth, no node marker, so it passes as the coordinator.
    Path certs = dir.resolve("certs");
    Certificates.create(certs, List.of("localhost", "127.0.0.1"), 3, 2, Duration.ofDays(1));
    X509Certificate node1 = read(certs.resolve("compute-node-1.pem"));
    issue(certs, new X500Name("CN=helmet-coordinator"), node1, "coordinator-holding-node-1",
        KeyPurposeId.id_kp_serverAuth);
    Files.copy(certs.resolve("compute-node-1-key.pem"), certs.resolve("coordinator-holding-node-1-key.pem"));
    List<ComputeNodeServer> servers = new ArrayList<>();
    for (String name : List.of("compute-node-1", "compute-node-2")) {
      servers.add(ComputeNodeServer.start(new ComputeNodeServer.Settings(name, "127.0.0.1", 0,
          Tls.Files.in(certs, name), null, 2)));
    }
    ExecutorService pool = Executors.newFixedThreadPool(3);
    try {
      List<ComputeNodeEntry> entries = new ArrayList<>();
      for (ComputeNodeServer s : servers) {
        entries.add(ComputeNodeEntry.newBuilder().setName(s.name()).setEndpoint("127.0.0.1:" + s.port())
            .setCertificateSha256(ByteString.copyFrom(s.certificateSha256())).build());
      }
      SessionConfig config = config(entries);
      Partition p = new PartitionStrategy.Iid(3, 40).split(DIGITS, new SplittableRandom(3));
      Map<Integer, List<String>> refusals = new ConcurrentHashMap<>();
      Map<Integer, List<String>> connected = new ConcurrentHashMap<>();
      Coordinator.Result r;
      try (Coordinator c = Coordinator.start(Loopback.settings(config, dir,
          Tls.Files.in(certs, "coordinator-holding-node-1"), 1e7))) {
        List<Future<Participant.Result>> fs = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
          int k = i;
          refusals.put(k, java.util.Collections.synchronizedList(new ArrayList<>()));
          connected.put(k, java.util.Collections.synchronizedList(new ArrayList<>()));
          Dataset shard = DIGITS.subset(p.indices(k), "shard " + k);
          ParticipantPolicy trustsTheSecond = ParticipantPolicy.upTo(1e7).withTrustedNodes(Set.of(
              HexFormat.of().formatHex(servers.get(1).certificateSha256())));
          fs.add(pool.submit(() -> Participant.run(new Participant.Settings("127.0.0.1:" + c.port(),
              Tls.Files.in(certs, "participant-" + (k + 1)), trustsTheSecond, shard, 11L + k, 120, null),
              (kind, fields) -> {
                if (kind.equals("compute_node_refused")) {
                  refusals.get(k).add(fields.get("node") + ": " + fields.get("reason"));
                } else if (kind.equals("compute_node")) {
                  connected.get(k).add(String.valueOf(fields.get("node")));
                }
              })));
        }
        r = c.await(120, TimeUnit.SECONDS);
        for (Future<Participant.Result> f : fs) {
          try {
            f.get(60, TimeUnit.SECONDS);
          } catch (java.util.concurrent.ExecutionException e) {
            // a party left out of the round's sum ends with the session
          }
        }
      }
      assertFalse(r.completed(), "a sum was released though every party refused the coordinator's node: " + r.reason());
      for (int i = 0; i < 3; i++) {
        List<String> why = refusals.get(i);
        assertEquals(1, why.size(), "participant " + i + ": " + why);
        assertTrue(why.get(0).startsWith("compute-node-1: ") && why.get(0).contains("has the same public key as the "
            + "coordinator's certificate") && why.get(0).contains("gets none"), why.get(0));
        // Its handshake with the node failed, so that node never received this party's share.
        assertFalse(connected.get(i).contains("compute-node-1"), "participant " + i + ": " + connected.get(i));
      }
    } finally {
      pool.shutdownNow();
      servers.forEach(ComputeNodeServer::close);
    }
  }

  private static SessionConfig config(List<ComputeNodeEntry> nodes) {
    SessionConfig.Builder b = Loopback.config(DIGITS, 3, 3, 1).setColludingFraction(0.5).setProtocol("dca")
        .addAllComputeNodes(nodes);
    b.setPrivacy(b.getPrivacy().toBuilder().setHonestFraction(0.5));
    return Loopback.algorithm(b, "helmet", Loopback.HELMET).build();
  }

  private static byte[] digest(int l) {
    byte[] d = new byte[32];
    d[0] = (byte) l;
    return d;
  }

  private static ComputeNodeEntry entry(String name, int port, int l) {
    return ComputeNodeEntry.newBuilder().setName(name).setEndpoint("node.example:" + port)
        .setCertificateSha256(ByteString.copyFrom(digest(l))).build();
  }

  /** The CA issues a second node certificate for the same key and subject (a renewal). */
  private static void reissueSameKey(Path certs, String from, String to) throws Exception {
    X509Certificate old = read(certs.resolve(from + ".pem"));
    issue(certs, X500Name.getInstance(old.getSubjectX500Principal().getEncoded()), old, to,
        KeyPurposeId.id_kp_serverAuth, KeyPurposeId.id_kp_clientAuth);
    Files.copy(certs.resolve(from + "-key.pem"), certs.resolve(to + "-key.pem"));
  }

  /** The CA issues {@code subject} a certificate for {@code old}'s key, written as {@code to}.pem. */
  private static X509Certificate issue(Path certs, X500Name subject, X509Certificate old, String to,
      KeyPurposeId... purposes) throws Exception {
    X509Certificate ca = read(certs.resolve("ca.pem"));
    PrivateKey caKey = key(certs.resolve("ca-key.pem"));
    GeneralNames names = new GeneralNames(new GeneralName[] {new GeneralName(GeneralName.dNSName, "localhost"),
        new GeneralName(GeneralName.iPAddress, "127.0.0.1")});
    X509Certificate cert = Certificates.issue(subject, old.getPublicKey(), ca, caKey, Instant.now(),
        Duration.ofDays(1), purposes, names);
    Certificates.write(certs.resolve(to + ".pem"), cert);
    return cert;
  }

  private static X509Certificate read(Path p) throws Exception {
    try (var in = Files.newInputStream(p)) {
      return (X509Certificate) CertificateFactory.getInstance("X.509").generateCertificate(in);
    }
  }

  private static PrivateKey key(Path p) throws Exception {
    String pem = Files.readString(p, StandardCharsets.US_ASCII);
    String b64 = pem.replaceAll("-----[A-Z ]+-----", "").replaceAll("\\s", "");
    return KeyFactory.getInstance("EC").generatePrivate(new PKCS8EncodedKeySpec(Base64.getDecoder().decode(b64)));
  }
}
