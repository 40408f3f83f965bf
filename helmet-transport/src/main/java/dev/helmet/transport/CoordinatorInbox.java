package dev.helmet.transport;

import dev.helmet.transport.wire.CoordinatorMessage;
import dev.helmet.transport.wire.ParticipantMessage;
import io.grpc.stub.ClientCallStreamObserver;
import io.grpc.stub.ClientResponseObserver;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * What a participant's stream from the coordinator delivered and its one thread has not taken
 * yet: at most {@link #CAPACITY} messages, by manual inbound flow control (as the coordinator reads
 * each participant's stream).
 *
 * <p>Why (security review turn 3, T3-7): with gRPC's automatic flow control every message the
 * coordinator sends is read off the network at once and queued, however busy the participant's
 * thread is (mixing, computing a round's input), so a coordinator could fill the participant's
 * memory with up to 64 MiB messages faster than it handles them. Here gRPC is asked for
 * {@code CAPACITY} messages when the stream starts and for one more each time the thread takes
 * one, so delivered-but-untaken plus requested-but-undelivered never exceed {@code CAPACITY};
 * what the coordinator sends beyond that waits in the HTTP/2 flow-control window (bytes the
 * transport does not acknowledge until a message is requested), and then on the coordinator's
 * side, within its outbound budget (a participant that takes nothing for longer than a round's
 * deadline while that budget is used up is cut off as a stalled reader). Nothing the participant does while it handles one message waits for a later one, so
 * taking them one at a time cannot deadlock the protocol. The stream's end (completion or
 * failure) is not flow-controlled and is always queued.
 */
final class CoordinatorInbox implements ClientResponseObserver<ParticipantMessage, CoordinatorMessage> {
  /** The most messages requested from gRPC and not yet taken by the participant's thread. */
  static final int CAPACITY = 4;

  /** What {@link #poll} returns once the coordinator has closed the stream. */
  static final Object END = new Object();

  private final int capacity;
  private final BlockingQueue<Object> queue = new LinkedBlockingQueue<>();
  private volatile ClientCallStreamObserver<ParticipantMessage> call;
  /** Messages delivered and not yet taken, and the most there ever were (gRPC delivers one at a time). */
  private final AtomicInteger waiting = new AtomicInteger();
  private volatile int most;

  CoordinatorInbox() {
    this(CAPACITY);
  }

  CoordinatorInbox(int capacity) {
    if (capacity < 1) {
      throw new IllegalArgumentException("an inbox holds at least 1 message. Provided value: " + capacity);
    }
    this.capacity = capacity;
  }

  @Override
  public void beforeStart(ClientCallStreamObserver<ParticipantMessage> requestStream) {
    call = requestStream;
    requestStream.disableAutoRequestWithInitial(capacity);
  }

  @Override
  public void onNext(CoordinatorMessage m) {
    int now = waiting.incrementAndGet();
    if (now > most) {
      most = now;
    }
    queue.add(m);
  }

  @Override
  public void onError(Throwable t) {
    queue.add(t);
  }

  @Override
  public void onCompleted() {
    queue.add(END);
  }

  /**
   * The next message, a {@link Throwable} (the stream failed) or {@link #END}, waiting at most
   * {@code timeout}; null if none came. Taking a message asks gRPC for the next one.
   */
  Object poll(long timeout, TimeUnit unit) throws InterruptedException {
    Object next = queue.poll(timeout, unit);
    if (next instanceof CoordinatorMessage) {
      waiting.decrementAndGet();
      call.request(1);
    }
    return next;
  }

  /** Messages delivered and not yet taken. */
  int waiting() {
    return waiting.get();
  }

  /** The most messages that were ever delivered and not yet taken at once. */
  int mostWaiting() {
    return most;
  }
}
