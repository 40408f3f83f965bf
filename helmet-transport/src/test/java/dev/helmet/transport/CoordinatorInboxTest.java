package dev.helmet.transport;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.helmet.transport.wire.CoordinatorGrpc;
import dev.helmet.transport.wire.CoordinatorMessage;
import dev.helmet.transport.wire.Enrolled;
import dev.helmet.transport.wire.ParticipantMessage;
import io.grpc.ManagedChannel;
import io.grpc.Server;
import io.grpc.netty.shaded.io.grpc.netty.NettyChannelBuilder;
import io.grpc.netty.shaded.io.grpc.netty.NettyServerBuilder;
import io.grpc.stub.ClientCallStreamObserver;
import io.grpc.stub.StreamObserver;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * The participant's inbox holds at most {@link CoordinatorInbox#CAPACITY} of the coordinator's
 * messages however many it sends while the participant's thread is busy (security review turn 3,
 * T3-7: every message used to be read off the network at once into an unbounded queue).
 */
class CoordinatorInboxTest {
  private static final int K = CoordinatorInbox.CAPACITY;

  private static CoordinatorMessage message(int i) {
    return CoordinatorMessage.newBuilder().setEnrolled(Enrolled.newBuilder().setEnrolled(i)).build();
  }

  /** The client call as gRPC gives it to the inbox, counting what the inbox requests. */
  private static final class Call extends ClientCallStreamObserver<ParticipantMessage> {
    int initial = -1;
    long requested;

    @Override
    public void disableAutoRequestWithInitial(int request) {
      initial = request;
      requested += request;
    }

    @Override
    public void request(int count) {
      requested += count;
    }

    @Override
    public void cancel(String message, Throwable cause) {}

    @Override
    public boolean isReady() {
      return true;
    }

    @Override
    public void setOnReadyHandler(Runnable onReadyHandler) {}

    @Override
    public void disableAutoInboundFlowControl() {
      throw new AssertionError("the inbox sets its initial request itself");
    }

    @Override
    public void setMessageCompression(boolean enable) {}

    @Override
    public void onNext(ParticipantMessage value) {}

    @Override
    public void onError(Throwable t) {}

    @Override
    public void onCompleted() {}
  }

  /** A coordinator with {@code total} messages to send, delivered as gRPC does: only as requested. */
  private static final class Transport {
    final CoordinatorInbox inbox;
    final Call call;
    final int total;
    int delivered;

    Transport(CoordinatorInbox inbox, Call call, int total) {
      this.inbox = inbox;
      this.call = call;
      this.total = total;
    }

    void deliver() {
      while (delivered < total && delivered < call.requested) {
        inbox.onNext(message(delivered++));
      }
    }
  }

  @Test
  void withTheConsumerBusyAtMostCapacityMessagesAreRequested() throws InterruptedException {
    CoordinatorInbox inbox = new CoordinatorInbox();
    Call call = new Call();
    inbox.beforeStart(call);
    assertEquals(K, call.initial, "manual flow control with the capacity as the initial request");
    Transport coordinator = new Transport(inbox, call, 100);
    coordinator.deliver();
    // The participant's thread is busy: 100 messages are ready, K were requested and delivered.
    assertEquals(K, coordinator.delivered);
    assertEquals(K, inbox.waiting());
    coordinator.deliver();
    assertEquals(K, call.requested, "nothing more is requested while nothing is taken");
    for (int taken = 0; taken < 100; taken++) {
      Object next = inbox.poll(1, TimeUnit.SECONDS);
      assertEquals(message(taken), next, "in order");
      assertEquals(K + taken + 1, call.requested, "one more requested for each taken");
      coordinator.deliver();
      assertTrue(inbox.waiting() <= K, inbox.waiting() + " waiting");
    }
    assertEquals(K, inbox.mostWaiting());
    // The end of the stream needs no request.
    inbox.onCompleted();
    assertSame(CoordinatorInbox.END, inbox.poll(1, TimeUnit.SECONDS));
  }

  @Test
  void aFailureComesAfterTheMessagesDeliveredBeforeIt() throws InterruptedException {
    CoordinatorInbox inbox = new CoordinatorInbox();
    Call call = new Call();
    inbox.beforeStart(call);
    Transport coordinator = new Transport(inbox, call, 100);
    coordinator.deliver();
    RuntimeException lost = new RuntimeException("lost");
    inbox.onError(lost);
    for (int i = 0; i < K; i++) {
      assertEquals(message(i), inbox.poll(1, TimeUnit.SECONDS));
    }
    assertSame(lost, inbox.poll(1, TimeUnit.SECONDS));
  }

  /**
   * Over gRPC on loopback: a coordinator writes 2,000 messages and ends the stream before the
   * participant takes any; the inbox never holds more than K of them, and every one arrives, in
   * order, then the end.
   */
  @Test
  void overGrpcACoordinatorsBurstWaitsInTheTransportNotInTheInbox() throws Exception {
    int total = 2_000;
    CountDownLatch written = new CountDownLatch(1);
    Server server = NettyServerBuilder.forAddress(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0))
        .addService(new CoordinatorGrpc.CoordinatorImplBase() {
          @Override
          public StreamObserver<ParticipantMessage> participate(StreamObserver<CoordinatorMessage> out) {
            for (int i = 0; i < total; i++) {
              out.onNext(message(i));
            }
            out.onCompleted();
            written.countDown();
            return new StreamObserver<>() {
              @Override
              public void onNext(ParticipantMessage m) {}

              @Override
              public void onError(Throwable t) {}

              @Override
              public void onCompleted() {}
            };
          }
        }).build().start();
    ManagedChannel channel = NettyChannelBuilder.forAddress("127.0.0.1", server.getPort()).usePlaintext().build();
    try {
      CoordinatorInbox inbox = new CoordinatorInbox();
      StreamObserver<ParticipantMessage> out = CoordinatorGrpc.newStub(channel).participate(inbox);
      assertTrue(written.await(30, TimeUnit.SECONDS), "the coordinator wrote its messages");
      for (int i = 0; i < total; i++) {
        assertEquals(message(i), inbox.poll(30, TimeUnit.SECONDS), "message " + i);
      }
      assertSame(CoordinatorInbox.END, inbox.poll(30, TimeUnit.SECONDS));
      assertTrue(inbox.mostWaiting() <= K, inbox.mostWaiting() + " messages waited at once");
      out.onCompleted();
    } finally {
      channel.shutdownNow().awaitTermination(5, TimeUnit.SECONDS);
      server.shutdownNow().awaitTermination(5, TimeUnit.SECONDS);
    }
  }
}
