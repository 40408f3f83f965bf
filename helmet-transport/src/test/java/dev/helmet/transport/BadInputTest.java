package dev.helmet.transport;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.google.protobuf.ByteString;
import dev.helmet.core.data.Dataset;
import dev.helmet.core.testdata.TestData;
import dev.helmet.transport.wire.CoordinatorGrpc;
import dev.helmet.transport.wire.GetSessionRequest;
import dev.helmet.transport.wire.MaskedInput;
import dev.helmet.transport.wire.ParticipantMessage;
import dev.helmet.transport.wire.SessionConfig;
import io.grpc.CallOptions;
import io.grpc.ClientCall;
import io.grpc.ManagedChannel;
import io.grpc.Metadata;
import io.grpc.MethodDescriptor;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.netty.shaded.io.grpc.netty.NettyChannelBuilder;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.UnaryOperator;
import java.util.stream.LongStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Bad input from a participant is rejected with a recorded reason while the round goes on for
 * everyone else: 8 honest parties and one misbehaving one per session (min contributors 8). On the
 * in-process network, but for the test of peers refused in the TLS handshake, which runs on a TCP
 * port with real TLS, and the fuzzing test, whose outcome depends on timing.
 */
@org.junit.jupiter.api.Tag("integration")
class BadInputTest {
  private static final Dataset DIGITS = TestData.digits();
  private static final int W = 9;

  /** Runs a session where participant 0 rewrites what it sends; returns the result and the events. */
  private static Coordinator.Result session(Path dir, UnaryOperator<List<ParticipantMessage>> misbehave,
      List<Map<String, Object>> events, Loopback.Outcome[] bad) throws Exception {
    return session(dir, misbehave, events, bad, 60);
  }

  private static Coordinator.Result session(Path dir, UnaryOperator<List<ParticipantMessage>> misbehave,
      List<Map<String, Object>> events, Loopback.Outcome[] bad, int enrolmentSeconds) throws Exception {
    return session(dir, misbehave, events, bad, enrolmentSeconds, Loopback.IN_PROCESS);
  }

  /** As above, over {@code transport}. */
  private static Coordinator.Result session(Path dir, UnaryOperator<List<ParticipantMessage>> misbehave,
      List<Map<String, Object>> events, Loopback.Outcome[] bad, int enrolmentSeconds, Transport transport)
      throws Exception {
    SessionConfig config = Loopback.config(DIGITS, W, W - 1, 1e6).setDeadlines(dev.helmet.transport.wire.Deadlines
        .newBuilder().setEnrolmentSeconds(enrolmentSeconds).setRoundSeconds(30)).build();
    Participant.Hook hook = new Participant.Hook() {
      @Override
      public List<ParticipantMessage> sending(ParticipantMessage m) {
        return misbehave.apply(List.of(m));
      }
    };
    try (Coordinator c = Coordinator.start(Loopback.settings(config, dir, null, 1e7).withTransport(transport))) {
      List<Loopback.Outcome> outs = Loopback.participants(c, Loopback.shards(DIGITS, W, 50, 2),
          LongStream.range(0, W).boxed().toList(), i -> null, ParticipantPolicy.upTo(1e7),
          i -> i == 0 ? hook : Participant.Hook.NONE);
      Coordinator.Result r = c.await(60, TimeUnit.SECONDS);
      for (int i = 1; i < W; i++) {
        assertNull(outs.get(i).error(), String.valueOf(outs.get(i).error()));
        assertTrue(outs.get(i).result().completed(), "honest participant " + i + " sees the release");
      }
      bad[0] = outs.get(0);
      events.addAll(c.store().events(c.sessionId()));
      return r;
    }
  }

  private static boolean has(List<Map<String, Object>> events, String kind, String reason) {
    return events.stream().anyMatch(e -> kind.equals(e.get("KIND")) && reason.equals(e.get("REASON")));
  }

  @Test
  void aReplayedMessageIsRejectedAndTheRoundGoesOn(@TempDir Path dir) throws Exception {
    List<Map<String, Object>> events = new java.util.ArrayList<>();
    Coordinator.Result r = session(dir, ms -> ms.get(0).hasAdvertiseKeys() || ms.get(0).hasConsistencySignature()
        ? List.of(ms.get(0), ms.get(0)) : ms, events, new Loopback.Outcome[1]);
    assertTrue(r.completed(), r.reason());
    assertEquals(W, r.contributors().size(), "the replay is ignored, the original counts");
    assertTrue(has(events, "REJECT", "REPLAYED"), String.valueOf(events));
  }

  @Test
  void aMaskedInputOfTheWrongLengthIsRejected(@TempDir Path dir) throws Exception {
    List<Map<String, Object>> events = new java.util.ArrayList<>();
    Coordinator.Result r = session(dir, ms -> {
      ParticipantMessage m = ms.get(0);
      if (!m.hasMaskedInput()) {
        return ms;
      }
      MaskedInput mi = m.getMaskedInput();
      return List.of(m.toBuilder().setMaskedInput(mi.toBuilder().setValues(mi.getValues().substring(0, 12))).build());
    }, events, new Loopback.Outcome[1]);
    assertTrue(r.completed(), r.reason());
    assertEquals(W - 1, r.contributors().size());
    assertTrue(has(events, "REJECT", "MALFORMED"), String.valueOf(events));
    assertTrue(events.stream().anyMatch(e -> String.valueOf(e.get("DETAIL")).contains("expected")));
  }

  @Test
  void aMessageClaimingAnotherSenderIsRejected(@TempDir Path dir) throws Exception {
    List<Map<String, Object>> events = new java.util.ArrayList<>();
    Coordinator.Result r = session(dir, ms -> {
      ParticipantMessage m = ms.get(0);
      if (!m.hasShareKeys()) {
        return ms;
      }
      int other = (m.getShareKeys().getSender() + 1) % W;
      return List.of(m.toBuilder().setShareKeys(m.getShareKeys().toBuilder().setSender(other)).build(), m);
    }, events, new Loopback.Outcome[1]);
    assertTrue(r.completed(), r.reason());
    assertEquals(W, r.contributors().size());
    assertTrue(has(events, "REJECT", "IMPERSONATION"), String.valueOf(events));
  }

  @Test
  void anUnknownSessionAndAMismatchedConfigurationAreRefused(@TempDir Path dir) throws Exception {
    List<Map<String, Object>> events = new java.util.ArrayList<>();
    Loopback.Outcome[] bad = new Loopback.Outcome[1];
    Coordinator.Result r = session(dir.resolve("a"), ms -> ms.get(0).hasJoin()
        ? List.of(ms.get(0).toBuilder().setJoin(ms.get(0).getJoin().toBuilder()
            .setSessionId(ByteString.copyFrom(new byte[16]))).build()) : ms, events, bad, 5);
    assertTrue(r.completed(), r.reason());
    assertEquals(W - 1, r.contributors().size());
    assertNotNull(bad[0].error());
    assertTrue(bad[0].error().getMessage().contains("unknown session"), bad[0].error().getMessage());
    assertTrue(has(events, "REJECT", "REFUSED"));

    events.clear();
    r = session(dir.resolve("b"), ms -> ms.get(0).hasJoin()
        ? List.of(ms.get(0).toBuilder().setJoin(ms.get(0).getJoin().toBuilder()
            .setConfigDigest(ByteString.copyFrom(new byte[32]))).build()) : ms, events, bad, 5);
    assertTrue(r.completed(), r.reason());
    assertTrue(bad[0].error().getMessage().contains("configuration mismatch"), bad[0].error().getMessage());
  }

  /** Bytes that are not a ParticipantMessage end that one call; the session goes on. */
  @Test
  void malformedProtobufEndsOnlyItsOwnCall(@TempDir Path dir) throws Exception {
    SessionConfig config = Loopback.config(DIGITS, W - 1, W - 1, 1e6).build();
    try (Coordinator c = Coordinator.start(Loopback.inProcess(config, dir, null, 1e7))) {
      ManagedChannel ch = Loopback.IN_PROCESS.channel("127.0.0.1:" + c.port(), Tls.plaintextClient()).build();
      try {
        MethodDescriptor<byte[], byte[]> raw = MethodDescriptor.<byte[], byte[]>newBuilder()
            .setType(MethodDescriptor.MethodType.BIDI_STREAMING)
            .setFullMethodName(CoordinatorGrpc.getParticipateMethod().getFullMethodName())
            .setRequestMarshaller(new Bytes()).setResponseMarshaller(new Bytes()).build();
        ClientCall<byte[], byte[]> call = ch.newCall(raw, CallOptions.DEFAULT);
        CompletableFuture<Status> closed = new CompletableFuture<>();
        call.start(new ClientCall.Listener<>() {
          @Override
          public void onClose(Status status, Metadata trailers) {
            closed.complete(status);
          }
        }, new Metadata());
        call.request(1);
        call.sendMessage(new byte[] {(byte) 0xFF, (byte) 0xFF, (byte) 0xFF, 0x07, 0x01});
        call.halfClose();
        Status s = closed.get(10, TimeUnit.SECONDS);
        assertTrue(!s.isOk(), "a malformed message fails its call: " + s);
      } finally {
        ch.shutdownNow();
      }
      List<Loopback.Outcome> outs = Loopback.participants(c, Loopback.shards(DIGITS, W - 1, 50, 3),
          LongStream.range(0, W - 1).boxed().toList(), i -> null, ParticipantPolicy.upTo(1e7));
      assertTrue(c.await(60, TimeUnit.SECONDS).completed());
      outs.forEach(o -> assertNull(o.error()));
    }
  }

  private static final class Bytes implements MethodDescriptor.Marshaller<byte[]> {
    @Override
    public InputStream stream(byte[] value) {
      return new ByteArrayInputStream(value);
    }

    @Override
    public byte[] parse(InputStream stream) {
      try {
        return stream.readAllBytes();
      } catch (IOException e) {
        throw new IllegalStateException(e);
      }
    }
  }

  /**
   * Mutual TLS: a client without a certificate, and one with a certificate from another CA, are
   * rejected during the handshake; participants with the deployment's certificates complete.
   */
  @Test
  void unauthenticatedPeersAreRejectedAndTheSessionGoesOn(@TempDir Path dir) throws Exception {
    Path certs = dir.resolve("certs");
    Path other = dir.resolve("other");
    Certificates.create(certs, List.of("localhost", "127.0.0.1"), 4, Duration.ofDays(1));
    Certificates.create(other, List.of("localhost", "127.0.0.1"), 1, Duration.ofDays(1));
    SessionConfig config = Loopback.config(DIGITS, 4, 4, 1e6).build();
    try (Coordinator c = Coordinator.start(Loopback.settings(config, dir, Tls.Files.in(certs, "coordinator"), 1e7))) {
      String target = "127.0.0.1:" + c.port();
      // No client certificate: trusts the server but cannot prove who it is.
      ManagedChannel anonymous = NettyChannelBuilder.forTarget(target, io.grpc.TlsChannelCredentials.newBuilder()
          .trustManager(certs.resolve("ca.pem").toFile()).build()).build();
      // A certificate from another CA (and trusting that CA, so it also rejects the server).
      ManagedChannel stranger = NettyChannelBuilder.forTarget(target,
          Tls.client(new Tls.Files(other.resolve("participant-1.pem"), other.resolve("participant-1-key.pem"),
              certs.resolve("ca.pem")))).build();
      // Plaintext to a TLS port.
      ManagedChannel plain = NettyChannelBuilder.forTarget(target).usePlaintext().build();
      try {
        for (ManagedChannel ch : List.of(anonymous, stranger, plain)) {
          StatusRuntimeException e = assertThrows(StatusRuntimeException.class, () -> CoordinatorGrpc
              .newBlockingStub(ch).withDeadlineAfter(10, TimeUnit.SECONDS).getSession(GetSessionRequest.getDefaultInstance()));
          assertTrue(e.getStatus().getCode() == Status.Code.UNAVAILABLE
              || e.getStatus().getCode() == Status.Code.INTERNAL, String.valueOf(e.getStatus()));
        }
      } finally {
        anonymous.shutdownNow();
        stranger.shutdownNow();
        plain.shutdownNow();
      }
      List<Loopback.Outcome> outs = Loopback.participants(c, Loopback.shards(DIGITS, 4, 50, 4), null,
          i -> Tls.Files.in(certs, "participant-" + (i + 1)), ParticipantPolicy.upTo(1e7));
      Coordinator.Result r = c.await(60, TimeUnit.SECONDS);
      assertTrue(r.completed(), r.reason());
      outs.forEach(o -> assertNull(o.error()));
      assertTrue(String.valueOf(c.store().sessions()).length() > 0);
    }
  }

  /** A participant's own policy refuses a session that spends more than it accepts, and says why. */
  @Test
  void aParticipantRefusesASessionItsPolicyForbids(@TempDir Path dir) throws Exception {
    SessionConfig config = Loopback.config(DIGITS, 2, 2, 3).build();
    try (Coordinator c = Coordinator.start(Loopback.inProcess(config, dir, null, 10))) {
      Participant.ParticipantException e = assertThrows(Participant.ParticipantException.class,
          () -> Participant.run(Loopback.at(c, new Participant.Settings("127.0.0.1:" + c.port(), null,
              ParticipantPolicy.upTo(1), Loopback.shards(DIGITS, 1, 50, 1).get(0), null, 30))));
      assertTrue(e.getMessage().contains("spends eps = 3.0; this participant accepts at most 1.0"), e.getMessage());
      var learners = new ParticipantPolicy(10, 2, java.util.Set.of("svm"), 1);
      e = assertThrows(Participant.ParticipantException.class, () -> Participant.run(Loopback.at(c,
          new Participant.Settings("127.0.0.1:" + c.port(), null, learners, Loopback.shards(DIGITS, 1, 50, 1).get(0),
              null, 30))));
      assertTrue(e.getMessage().contains("trains softmax") && e.getMessage().contains("--learners softmax"),
          e.getMessage());
      // issue 47: the coordinator learns of each refusal, with the parameter and the participant's words
      c.events.flushEvents();
      List<java.util.Map<String, Object>> declined = c.store().events(c.sessionId()).stream()
          .filter(ev -> "DECLINED".equals(ev.get("KIND"))).toList();
      assertEquals(1, declined.size(), "one stored refusal per certificate (both runs are plaintext): " + declined);
      assertEquals("privacy.epsilon", declined.get(0).get("REASON"));
      assertTrue(String.valueOf(declined.get(0).get("DETAIL")).contains("--max-epsilon 3.0 would allow it"),
          String.valueOf(declined.get(0).get("DETAIL")));
    }
  }

  /**
   * Fuzzing: after each real message, one participant sends up to 120 random bit-flip mutations of
   * its body (those that still parse as that kind of message) in every round; bounded by count. The
   * session completes for everyone else. Over TCP: whether the fuzzing party is still there to send
   * its unmasking shares depends on timing (one run in 8 failed so on TCP, three in 8 on the
   * in-process network, where its mutations reach the coordinator faster).
   */
  private static final int MUTATIONS = 120;

  @Test
  void fuzzedMessagesNeverStopTheSession(@TempDir Path dir) throws Exception {
    assertTrue(MUTATIONS * 7 < Coordinator.MAX_REJECTIONS_PER_PEER, "the fuzzing stays below the rejection cap");
    SplittableRandom rng = new SplittableRandom(42);
    int[] sent = new int[1];
    java.util.Set<ParticipantMessage.BodyCase> kinds = java.util.EnumSet.noneOf(ParticipantMessage.BodyCase.class);
    List<Map<String, Object>> events = new java.util.ArrayList<>();
    Coordinator.Result r = session(dir, ms -> {
      ParticipantMessage m = ms.get(0);
      if (m.hasJoin()) {
        return ms;
      }
      // The real message first, so the party stays in the session and is fuzzed in every round.
      List<ParticipantMessage> out = new java.util.ArrayList<>(List.of(m));
      // Mutate the body's bytes and keep its type, so every round's handler sees garbled input of
      // its own kind (a garbled type tag is covered by malformedProtobufEndsOnlyItsOwnCall).
      var field = m.getDescriptorForType().findFieldByNumber(m.getBodyCase().getNumber());
      com.google.protobuf.Message inner = (com.google.protobuf.Message) m.getField(field);
      byte[] bytes = inner.toByteArray();
      // 120 mutations a message, 7 kinds: at most 840 rejections, below the coordinator's cap of
      // MAX_REJECTIONS_PER_PEER (1000), so the party is never cut off for them and every round's
      // handler sees its garbled input (200 a message could reach the cap before the last round and
      // end the party's session: the test then failed 1 run in 8; the cap has its own test below).
      for (int k = 0; k < MUTATIONS && bytes.length > 0; k++) {
        byte[] b = bytes.clone();
        int flips = 1 + rng.nextInt(4);
        for (int f = 0; f < flips; f++) {
          b[rng.nextInt(b.length)] ^= (byte) (1 << rng.nextInt(8));
        }
        try {
          out.add(m.toBuilder().setField(field, inner.getParserForType().parseFrom(b)).build());
        } catch (com.google.protobuf.InvalidProtocolBufferException e) {
          // not parseable as this type
        }
      }
      sent[0] += out.size() - 1;
      kinds.add(m.getBodyCase());
      return out;
    }, events, new Loopback.Outcome[1], 60, Transport.NETTY);
    assertTrue(r.completed(), r.reason());
    assertTrue(r.contributors().size() >= W - 1, "the honest parties all contribute");
    assertTrue(sent[0] > 300, "fuzzed messages sent: " + sent[0]);
    assertEquals(java.util.EnumSet.range(ParticipantMessage.BodyCase.ADVERTISE_KEYS,
        ParticipantMessage.BodyCase.NONCE_REVEAL), kinds, "every round was fuzzed; dropped " + r.dropped());
    assertTrue(events.size() > 0);
  }

  /**
   * A certified peer floods the coordinator with junk (issue 13, finding 7): it is disconnected
   * after {@link Coordinator#MAX_REJECTIONS_PER_PEER} rejected messages, no more than that many
   * events are stored, and the honest parties finish on time.
   */
  @Test
  void aFloodOfJunkIsCappedAndTheHonestPartiesFinish(@TempDir Path dir) throws Exception {
    List<Map<String, Object>> events = new java.util.ArrayList<>();
    Loopback.Outcome[] bad = new Loopback.Outcome[1];
    int junk = Coordinator.MAX_REJECTIONS_PER_PEER + 500;
    Coordinator.Result r = session(dir, ms -> {
      if (!ms.get(0).hasJoin()) {
        return ms;
      }
      List<ParticipantMessage> out = new java.util.ArrayList<>(ms);
      for (int i = 0; i < junk; i++) {
        out.add(ParticipantMessage.getDefaultInstance());
      }
      return out;
    }, events, bad, 15);
    assertTrue(r.completed(), r.reason());
    assertEquals(W - 1, r.contributors().size(), "every honest party contributes");
    long rejected = events.stream().filter(e -> "REJECT".equals(e.get("KIND"))).count();
    assertEquals(Coordinator.MAX_REJECTIONS_PER_PEER, rejected, "stored rejections");
    assertNotNull(bad[0].error(), "the flooding peer was disconnected");
  }
}
