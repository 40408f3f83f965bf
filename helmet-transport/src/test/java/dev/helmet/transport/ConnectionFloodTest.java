package dev.helmet.transport;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.helmet.core.data.Dataset;
import dev.helmet.core.testdata.TestData;
import dev.helmet.transport.wire.CoordinatorGrpc;
import dev.helmet.transport.wire.GetSessionRequest;
import dev.helmet.transport.wire.SessionConfig;
import io.grpc.ManagedChannel;
import io.grpc.StatusRuntimeException;
import io.grpc.netty.shaded.io.grpc.netty.NettyChannelBuilder;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Security review turn 3, T3-5 (built on {@code poc/slowloris_poc.sh}): TCP connections that never
 * start TLS, from sources without any certificate. Before the fix the coordinator accepted all of
 * them and kept each until the TLS handshake timed out (10 s), whatever their number; now connections past
 * the caps are closed at accept, silent ones after the start timeout, and honest parties get in.
 * The flood comes from 127.0.0.2 and 127.0.0.3 (Linux routes all of 127/8 to loopback), the
 * participants from 127.0.0.1. Bounded: at most 80 sockets, loopback only.
 */
@org.junit.jupiter.api.Tag("integration")
class ConnectionFloodTest {
  private static final Dataset DIGITS = TestData.digits();

  /**
   * Per address and in total: connections past the caps are closed at once; participants that try
   * while the port is full are turned away, wait, and finish once the flood of one source ends,
   * while another source still holds every handshake slot it may have.
   */
  @Test
  void connectionsPastTheCapsAreClosedAtAcceptAndPartiesGetInWhenTheFloodEnds(@TempDir Path dir) throws Exception {
    Path certs = dir.resolve("certs");
    Certificates.create(certs, List.of("localhost", "127.0.0.1"), 3, Duration.ofDays(1));
    SessionConfig config = Loopback.config(DIGITS, 3, 3, 1e6).build();
    Coordinator.Settings s = Loopback.settings(config, dir, Tls.Files.in(certs, "coordinator"), 1e7)
        .withConnections(new Coordinator.ConnectionLimits(50, 30, 8));
    List<Socket> held = new ArrayList<>();
    try (Coordinator c = Coordinator.start(s)) {
      ConnectionGuard g = c.connections;
      // One source, 40 silent connections: 30 are kept (its handshake slots), 10 closed at accept.
      List<Socket> first = open("127.0.0.2", c.port(), 40);
      held.addAll(first);
      awaitCount(g::refusedOverAddress, 10, "connections past the per-address cap closed at accept");
      assertEquals(10, g.refusedOverAddress());
      for (Socket k : first.subList(30, 40)) {
        assertTrue(closedWithin(k, 10_000), "a connection past the per-address cap is closed");
      }
      assertEquals(0, g.refusedOverTotal());
      // Another source, 40 more: 20 fill the total of 50, 20 are closed at accept.
      List<Socket> second = open("127.0.0.3", c.port(), 40);
      held.addAll(second);
      awaitCount(g::refusedOverTotal, 20, "connections past the total cap closed at accept");
      assertEquals(20, g.refusedOverTotal());
      for (Socket k : second.subList(20, 40)) {
        assertTrue(closedWithin(k, 10_000), "a connection past the total cap is closed");
      }
      assertEquals(10, g.refusedOverAddress());
      assertEquals(0, g.closedSilent(), "nothing timed out yet");
      assertEquals(50, g.open());

      // Honest parties while the port is full: turned away at accept (UNAVAILABLE), they wait and retry.
      CompletableFuture<List<Loopback.Outcome>> parties = CompletableFuture.supplyAsync(() -> {
        try {
          return Loopback.participants(c.port(), Loopback.shards(DIGITS, 3, 50, 4), null,
              i -> Tls.Files.in(certs, "participant-" + (i + 1)), ParticipantPolicy.upTo(1e7),
              i -> Participant.Hook.NONE, i -> null, 60);
        } catch (InterruptedException e) {
          throw new IllegalStateException(e);
        }
      });
      awaitCount(g::refusedOverTotal, 21, "a participant's connection closed at accept while the port is full");
      // The second source stops; the first still holds its 30 handshake slots.
      for (Socket k : second) {
        k.close();
      }
      List<Loopback.Outcome> outs = parties.get(120, TimeUnit.SECONDS);
      Coordinator.Result r = c.await(90, TimeUnit.SECONDS);
      assertTrue(r.completed(), r.reason());
      for (Loopback.Outcome o : outs) {
        assertNull(o.error(), () -> String.valueOf(o.error()));
        assertTrue(o.result().completed());
      }
      // The first source's connections never sent a byte: closed after the start timeout (8 s
      // here, before the 10 s handshake timeout), and counted.
      for (Socket k : first.subList(0, 30)) {
        assertTrue(closedWithin(k, 30_000), "a silent connection is closed in the end");
      }

      awaitCount(g::closedSilent, 30, "silent connections closed");
    } finally {
      for (Socket k : held) {
        k.close();
      }
    }
  }

  /**
   * A connection that sends nothing is closed after the start timeout (2 s here), well before the
   * 10 s TLS handshake timeout that closed it before the fix; one that has started its handshake
   * is left to the handshake timeout.
   */
  @Test
  void connectionsThatSendNothingAreClosedAfterTheStartTimeout(@TempDir Path dir) throws Exception {
    Path certs = dir.resolve("certs");
    Certificates.create(certs, List.of("localhost", "127.0.0.1"), 2, Duration.ofDays(1));
    SessionConfig config = Loopback.config(DIGITS, 2, 2, 1e6).build();
    Coordinator.Settings s = Loopback.settings(config, dir, Tls.Files.in(certs, "coordinator"), 1e7)
        .withConnections(new Coordinator.ConnectionLimits(1000, 100, 2));
    List<Socket> silent = new ArrayList<>();
    try (Coordinator c = Coordinator.start(s); Socket started = new Socket("127.0.0.1", c.port())) {
      // The first byte of a TLS record (a handshake), and nothing more: a ClientHello begun.
      started.getOutputStream().write(0x16);
      started.getOutputStream().flush();
      silent.addAll(open("127.0.0.2", c.port(), 30));
      long t0 = System.nanoTime();
      for (Socket k : silent) {
        long left = 8_000 - TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - t0);
        assertTrue(left > 0 && closedWithin(k, (int) left),
            "a silent connection is closed well before the 10 s handshake timeout");
      }
      awaitCount(c.connections::closedSilent, 30, "silent connections closed");
      assertFalse(closedWithin(started, 200), "a connection that began its handshake is left to gRPC's timeout");
      assertEquals(30, c.connections.closedSilent());
      assertEquals(0, c.connections.refusedOverAddress() + c.connections.refusedOverTotal());
    } finally {
      for (Socket k : silent) {
        k.close();
      }
    }
  }

  /**
   * The attacker's read of the fix above ({@code AttackPass2PocTest
   * .oneCertifiedPeerFromOneAddressHoldsEveryConnectionSlot}): the per-address cap counted only
   * connections in their handshake, so participant-1's certificate from one address held all 40
   * connections the port allowed and participant-2 was turned away 5 times out of 5. Now a
   * certificate holds at most 4 (the default): its other 36 are closed right after their handshake,
   * participant-2 gets in every time, and participant-1 gets a connection again once one of its own
   * closes.
   */
  @Test
  void oneCertificateHoldsAtMostFourConnectionsAndTheOthersGetIn(@TempDir Path dir) throws Exception {
    Path certs = dir.resolve("certs");
    Certificates.create(certs, List.of("localhost", "127.0.0.1"), 2, Duration.ofDays(1));
    SessionConfig config = Loopback.config(DIGITS, 2, 2, 1e6).build();
    Coordinator.Settings s = Loopback.settings(config, dir, Tls.Files.in(certs, "coordinator"), 1e7)
        .withConnections(new Coordinator.ConnectionLimits(40, 8, 5));
    assertEquals(4, s.connections().maxConnectionsPerCertificate());
    List<ManagedChannel> held = new ArrayList<>();
    try (Coordinator c = Coordinator.start(s)) {
      int served = 0;
      for (int i = 0; i < 40; i++) {
        ManagedChannel ch = channel(c.port(), Tls.Files.in(certs, "participant-1"));
        held.add(ch);
        served += getSession(ch) ? 1 : 0;
      }
      assertEquals(4, served, "participant-1's certificate is served on 4 connections");
      awaitCount(c.connections::refusedOverCertificate, 36, "connections past the certificate's cap closed");
      String p1 = sha(certs, "participant-1");
      assertEquals(4, c.connections.openUnder(p1));
      assertEquals(0, c.connections.refusedOverAddress() + c.connections.refusedOverTotal());

      for (int t = 0; t < 5; t++) {
        ManagedChannel honest = channel(c.port(), Tls.Files.in(certs, "participant-2"));
        try {
          assertTrue(getSession(honest), "participant-2 gets in while participant-1 holds its cap (try " + t + ")");
        } finally {
          honest.shutdownNow();
          honest.awaitTermination(5, TimeUnit.SECONDS);
        }
      }
      // The refused channels stop retrying in the background (they would take a freed slot), and one
      // of participant-1's connections closes (a dropped party): a reconnection gets its slot.
      List<ManagedChannel> served4 = new ArrayList<>();
      for (ManagedChannel ch : held) {
        if (ch.getState(false) == io.grpc.ConnectivityState.READY) {
          served4.add(ch);
        } else {
          ch.shutdownNow().awaitTermination(5, TimeUnit.SECONDS);
        }
      }
      assertEquals(4, served4.size());
      held.retainAll(served4);
      held.remove(0).shutdownNow().awaitTermination(5, TimeUnit.SECONDS);
      awaitCount(() -> 4 - c.connections.openUnder(p1), 1, "the closed connection's slot goes back");
      ManagedChannel again = channel(c.port(), Tls.Files.in(certs, "participant-1"));
      held.add(again);
      assertTrue(getSession(again), "participant-1 reconnects once one of its connections closed");
    } finally {
      held.forEach(ManagedChannel::shutdownNow);
    }
  }

  /**
   * Honest parties are not refused by the certificate cap: twelve parties from one address each on
   * three connections (each its own certificate) are all served, and a session runs while one
   * party still holds two earlier connections (a reconnection whose old connections are closing).
   */
  @Test
  void partiesBehindOneAddressAndAPartyThatReconnectsAreNotRefused(@TempDir Path dir) throws Exception {
    Path certs = dir.resolve("certs");
    Certificates.create(certs, List.of("localhost", "127.0.0.1"), 12, Duration.ofDays(1));
    SessionConfig config = Loopback.config(DIGITS, 2, 2, 1e6).build();
    Coordinator.Settings s = Loopback.settings(config, dir, Tls.Files.in(certs, "coordinator"), 1e7)
        .withConnections(new Coordinator.ConnectionLimits(40, 8, 5));
    List<ManagedChannel> held = new ArrayList<>();
    try (Coordinator c = Coordinator.start(s)) {
      for (int k = 0; k < 3; k++) {
        for (int p = 1; p <= 12; p++) {
          ManagedChannel ch = channel(c.port(), Tls.Files.in(certs, "participant-" + p));
          held.add(ch);
          assertTrue(getSession(ch), "participant-" + p + "'s connection " + (k + 1));
        }
      }
      assertEquals(0, c.connections.refusedOverCertificate() + c.connections.refusedOverAddress()
          + c.connections.refusedOverTotal());
      // Keep participant-1's first two connections open; close the rest.
      for (ManagedChannel ch : held.subList(2, held.size())) {
        ch.shutdownNow();
      }
      awaitCount(() -> 40 - c.connections.open(), 38, "the other connections closed");
      List<Loopback.Outcome> outs = Loopback.participants(c.port(), Loopback.shards(DIGITS, 2, 50, 4), null,
          i -> Tls.Files.in(certs, "participant-" + (i + 1)), ParticipantPolicy.upTo(1e7),
          i -> Participant.Hook.NONE, i -> null, 60);
      Coordinator.Result r = c.await(90, TimeUnit.SECONDS);
      assertTrue(r.completed(), r.reason());
      for (Loopback.Outcome o : outs) {
        assertNull(o.error(), () -> String.valueOf(o.error()));
        assertTrue(o.result().completed());
      }
      assertEquals(0, c.connections.refusedOverCertificate());
    } finally {
      held.forEach(ManagedChannel::shutdownNow);
    }
  }

  private static ManagedChannel channel(int port, Tls.Files f) {
    return NettyChannelBuilder.forTarget("127.0.0.1:" + port, Tls.client(f)).build();
  }

  /** Whether a GetSession on {@code ch} is answered (false: its connection was closed, UNAVAILABLE). */
  private static boolean getSession(ManagedChannel ch) {
    try {
      CoordinatorGrpc.newBlockingStub(ch).withDeadlineAfter(10, TimeUnit.SECONDS)
          .getSession(GetSessionRequest.getDefaultInstance());
      return true;
    } catch (StatusRuntimeException e) {
      assertEquals(io.grpc.Status.Code.UNAVAILABLE, e.getStatus().getCode(), e.getStatus().toString());
      return false;
    }
  }

  /** The key under which the guard counts a holder's connections: its public key's SHA-256. */
  private static String sha(Path certs, String who) throws Exception {
    java.security.cert.X509Certificate cert = (java.security.cert.X509Certificate)
        java.security.cert.CertificateFactory.getInstance("X.509").generateCertificate(
            new java.io.ByteArrayInputStream(IdentityBinding.certificate(Tls.Files.in(certs, who))));
    return HexFormat.of().formatHex(IdentityBinding.fingerprint(cert.getPublicKey().getEncoded()));
  }

  /** {@code n} TCP connections from {@code source} that send nothing. */
  private static List<Socket> open(String source, int port, int n) throws IOException {
    List<Socket> out = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      Socket k = new Socket();
      try {
        k.bind(new InetSocketAddress(source, 0));
      } catch (IOException e) {
        k.close();
        Assumptions.abort("cannot bind " + source + " (Linux routes 127/8 to loopback; this host does not): " + e);
      }
      k.connect(new InetSocketAddress("127.0.0.1", port), 10_000);
      out.add(k);
    }
    return out;
  }

  /** Whether the server closes {@code k} (end of stream or reset) within {@code millis}. */
  private static boolean closedWithin(Socket k, int millis) throws IOException {
    k.setSoTimeout(Math.max(1, millis));
    try {
      return k.getInputStream().read() == -1;
    } catch (SocketTimeoutException e) {
      return false;
    } catch (IOException e) {
      return true; // reset
    }
  }

  /** Waits (up to 30 s) until {@code count} reaches {@code expected}, and fails if it does not. */
  private static void awaitCount(LongSupplier count, long expected, String what) throws InterruptedException {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
    while (count.getAsLong() < expected && System.nanoTime() < deadline) {
      Thread.sleep(20);
    }
    assertTrue(count.getAsLong() >= expected, what + ": " + count.getAsLong() + ", expected " + expected);
  }

  /**
   * The attacker's third read: an ECDSA signature (r, s) re-encoded as (r, n - s) is another valid
   * encoding of one issued certificate, and the per-certificate cap keyed on the certificate's bytes
   * let one holder keep 8 connections against a cap of 4. It is keyed on the public key now.
   */
  @Test
  void aReEncodedCertificateOfOneHolderSharesItsConnectionCap(@TempDir Path dir) throws Exception {
    Path certs = dir.resolve("certs");
    Certificates.create(certs, List.of("localhost", "127.0.0.1"), 2, Duration.ofDays(1));
    byte[] der = IdentityBinding.certificate(Tls.Files.in(certs, "participant-1"));
    org.bouncycastle.asn1.x509.Certificate parsed = org.bouncycastle.asn1.x509.Certificate.getInstance(der);
    org.bouncycastle.asn1.ASN1Sequence signature = org.bouncycastle.asn1.ASN1Sequence.getInstance(
        parsed.getSignature().getBytes());
    java.math.BigInteger r = org.bouncycastle.asn1.ASN1Integer.getInstance(signature.getObjectAt(0)).getValue();
    java.math.BigInteger sig = org.bouncycastle.asn1.ASN1Integer.getInstance(signature.getObjectAt(1)).getValue();
    java.security.cert.X509Certificate ca;
    try (var in = java.nio.file.Files.newInputStream(certs.resolve("ca.pem"))) {
      ca = (java.security.cert.X509Certificate) java.security.cert.CertificateFactory.getInstance("X.509")
          .generateCertificate(in);
    }
    java.math.BigInteger order = ((java.security.interfaces.ECPublicKey) ca.getPublicKey()).getParams().getOrder();
    org.bouncycastle.asn1.ASN1EncodableVector flipped = new org.bouncycastle.asn1.ASN1EncodableVector();
    flipped.add(new org.bouncycastle.asn1.ASN1Integer(r));
    flipped.add(new org.bouncycastle.asn1.ASN1Integer(order.subtract(sig)));
    org.bouncycastle.asn1.ASN1EncodableVector whole = new org.bouncycastle.asn1.ASN1EncodableVector();
    whole.add(parsed.getTBSCertificate());
    whole.add(parsed.getSignatureAlgorithm());
    whole.add(new org.bouncycastle.asn1.DERBitString(new org.bouncycastle.asn1.DERSequence(flipped).getEncoded("DER")));
    java.security.cert.X509Certificate twin = (java.security.cert.X509Certificate)
        java.security.cert.CertificateFactory.getInstance("X.509").generateCertificate(new java.io.ByteArrayInputStream(
            new org.bouncycastle.asn1.DERSequence(whole).getEncoded("DER")));
    twin.verify(ca.getPublicKey()); // still signed by the CA
    Certificates.write(certs.resolve("twin.pem"), twin);
    java.nio.file.Files.copy(certs.resolve("participant-1-key.pem"), certs.resolve("twin-key.pem"));

    SessionConfig config = Loopback.config(DIGITS, 2, 2, 1e6).build();
    Coordinator.Settings settings = Loopback.settings(config, dir, Tls.Files.in(certs, "coordinator"), 1e7)
        .withConnections(new Coordinator.ConnectionLimits(40, 8, 5));
    List<ManagedChannel> held = new ArrayList<>();
    try (Coordinator c = Coordinator.start(settings)) {
      int served = 0;
      for (String who : new String[] {"participant-1", "twin"}) {
        for (int i = 0; i < 6; i++) {
          ManagedChannel ch = NettyChannelBuilder.forTarget("127.0.0.1:" + c.port(),
              Tls.client(Tls.Files.in(certs, who))).build();
          held.add(ch);
          try {
            CoordinatorGrpc.newBlockingStub(ch).withDeadlineAfter(10, TimeUnit.SECONDS)
                .getSession(GetSessionRequest.getDefaultInstance());
            served++;
          } catch (StatusRuntimeException e) {
            // closed over the cap
          }
        }
      }
      assertEquals(settings.connections().maxConnectionsPerCertificate(), served,
          "one holder's connections, under either encoding of its certificate");
    } finally {
      held.forEach(ManagedChannel::shutdownNow);
    }
  }
}
