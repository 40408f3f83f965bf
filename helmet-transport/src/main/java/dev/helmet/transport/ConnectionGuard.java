package dev.helmet.transport;

import io.grpc.netty.shaded.io.grpc.netty.NettyServerBuilder;
import io.grpc.netty.shaded.io.netty.channel.Channel;
import io.grpc.netty.shaded.io.netty.channel.ChannelHandlerContext;
import io.grpc.netty.shaded.io.netty.channel.ChannelInboundHandlerAdapter;
import io.grpc.netty.shaded.io.netty.channel.EventLoopGroup;
import io.grpc.netty.shaded.io.netty.channel.IoHandlerFactory;
import io.grpc.netty.shaded.io.netty.channel.MultiThreadIoEventLoopGroup;
import io.grpc.netty.shaded.io.netty.channel.ServerChannel;
import io.grpc.netty.shaded.io.netty.channel.epoll.Epoll;
import io.grpc.netty.shaded.io.netty.channel.epoll.EpollIoHandler;
import io.grpc.netty.shaded.io.netty.channel.epoll.EpollServerSocketChannel;
import io.grpc.netty.shaded.io.netty.channel.nio.NioIoHandler;
import io.grpc.netty.shaded.io.netty.channel.socket.nio.NioServerSocketChannel;
import io.grpc.netty.shaded.io.netty.handler.ssl.SslHandler;
import io.grpc.netty.shaded.io.netty.util.concurrent.DefaultThreadFactory;
import java.lang.System.Logger.Level;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import javax.net.ssl.SSLEngine;

/**
 * What the coordinator's port lets a peer hold open before it has shown a certificate (security
 * review turn 3, T3-5). gRPC's own bounds are per connection (calls, header size, a handshake
 * timeout, {@link Coordinator#HANDSHAKE_TIMEOUT_SECONDS}); without this, a peer with no certificate
 * held one file descriptor and about 68 KB per TCP connection that never sent a byte, as many as it
 * opened, up to the open-file limit, where {@code accept()} fails for everyone. Three bounds, all
 * applied before TLS, so they cost an attacker's connection nothing but the accept:
 *
 * <ul>
 *   <li>at most {@link Coordinator.ConnectionLimits#maxConnections} connections are open at once;
 *       one more is closed as soon as it is accepted (memory and descriptors stay bounded);
 *   <li>at most {@link Coordinator.ConnectionLimits#maxHandshakesPerAddress} connections of one
 *       remote address may be open without a completed TLS handshake (one source cannot take the
 *       whole total; a certified party's connection leaves this count once its handshake succeeds,
 *       so parties behind one address are bounded by the total only);
 *   <li>a connection that sends nothing (no ClientHello) within
 *       {@link Coordinator.ConnectionLimits#handshakeStartSeconds} is closed; one that started its
 *       handshake has the handshake timeout to finish it.
 * </ul>
 *
 * <p>Refused and closed connections are counted and reported in one log line at most every
 * {@link #REPORT_EVERY_SECONDS} s, not one per connection (a flood would flood the log too). Many
 * sources can still fill the total: the port belongs behind a firewall or TCP proxy with per-source
 * limits (docs/deployment.md); what this bounds is the coordinator's memory and descriptors, and
 * what one address can take.
 *
 * <p>Installed through {@link NettyServerBuilder#channelFactory}, the builder's public hook: the
 * listening channel's pipeline gets a handler ahead of Netty's acceptor, which sees each accepted
 * connection before gRPC sets it up. The builder then needs its own event loop groups, which
 * {@link #close} shuts down.
 */
final class ConnectionGuard implements AutoCloseable {
  /** Seconds between two log lines about refused or closed connections. */
  static final long REPORT_EVERY_SECONDS = 10;

  private final Coordinator.ConnectionLimits limits;
  private final String name;
  private final boolean epoll = Epoll.isAvailable();
  private final EventLoopGroup boss;
  private final EventLoopGroup worker;
  private final AtomicInteger open = new AtomicInteger();
  /** Per remote address: its open connections that have not completed the TLS handshake. */
  private final ConcurrentHashMap<InetAddress, Integer> handshaking = new ConcurrentHashMap<>();
  /** The TLS engine of each connection in its handshake, and its peer's address (identity keys). */
  private final Map<SSLEngine, InetSocketAddress> engines = new ConcurrentHashMap<>();
  private final AtomicLong refusedOverTotal = new AtomicLong();
  private final AtomicLong refusedOverAddress = new AtomicLong();
  private final AtomicLong closedSilent = new AtomicLong();
  private final AtomicLong nextReport = new AtomicLong(System.nanoTime());

  /**
   * @param limits the bounds
   * @param name what the log calls the port's owner ("session 1a2b...")
   */
  ConnectionGuard(Coordinator.ConnectionLimits limits, String name) {
    this.limits = limits;
    this.name = name;
    IoHandlerFactory io = epoll ? EpollIoHandler.newFactory() : NioIoHandler.newFactory();
    this.boss = new MultiThreadIoEventLoopGroup(1, new DefaultThreadFactory("helmet-coordinator-accept", true), io);
    // 0: Netty's default (twice the processors), as gRPC's own worker group.
    this.worker = new MultiThreadIoEventLoopGroup(0, new DefaultThreadFactory("helmet-coordinator-io", true), io);
  }

  /** Makes {@code b}'s listening channel go through this guard. */
  NettyServerBuilder install(NettyServerBuilder b) {
    return b.channelFactory(this::listeningChannel).bossEventLoopGroup(boss).workerEventLoopGroup(worker);
  }

  private ServerChannel listeningChannel() {
    ServerChannel ch = epoll ? new EpollServerSocketChannel() : new NioServerSocketChannel();
    ch.pipeline().addLast("helmet-connection-guard", new Admission());
    return ch;
  }

  /** Open connections now. */
  int open() {
    return open.get();
  }

  /** Connections closed at accept because {@code maxConnections} were open. */
  long refusedOverTotal() {
    return refusedOverTotal.get();
  }

  /** Connections closed at accept because their address held {@code maxHandshakesPerAddress} handshakes. */
  long refusedOverAddress() {
    return refusedOverAddress.get();
  }

  /** Connections closed because they sent nothing within {@code handshakeStartSeconds}. */
  long closedSilent() {
    return closedSilent.get();
  }

  /**
   * The remote address of the connection whose TLS handshake runs on {@code engine}, or null if it
   * is not one of this port's handshakes in progress (the CA check names the peer by it).
   */
  InetSocketAddress peerOf(SSLEngine engine) {
    return engine == null ? null : engines.get(engine);
  }

  /** Shuts the event loops down (after the server has terminated). */
  @Override
  public void close() {
    boss.shutdownGracefully(0, 5, TimeUnit.SECONDS);
    worker.shutdownGracefully(0, 5, TimeUnit.SECONDS);
    boss.terminationFuture().awaitUninterruptibly(10, TimeUnit.SECONDS);
    worker.terminationFuture().awaitUninterruptibly(10, TimeUnit.SECONDS);
  }

  private boolean takeHandshake(InetAddress a) {
    boolean[] taken = {false};
    handshaking.compute(a, (k, n) -> {
      int held = n == null ? 0 : n;
      if (held >= limits.maxHandshakesPerAddress()) {
        return n;
      }
      taken[0] = true;
      return held + 1;
    });
    return taken[0];
  }

  private void releaseHandshake(InetAddress a) {
    handshaking.computeIfPresent(a, (k, n) -> n <= 1 ? null : n - 1);
  }

  /** One log line per {@link #REPORT_EVERY_SECONDS} s at most, with the totals so far. */
  private void report() {
    long now = System.nanoTime();
    long due = nextReport.get();
    if (now - due < 0 || !nextReport.compareAndSet(due, now + TimeUnit.SECONDS.toNanos(REPORT_EVERY_SECONDS))) {
      return;
    }
    Coordinator.LOG.log(Level.WARNING, "{0}: connections without a certificate held back so far: {1} closed at accept "
        + "with {2} open (the cap), {3} closed at accept with {4} handshakes open from their address, {5} closed after "
        + "sending nothing for {6} s; {7} open now (at most one such line per {8} s; see docs/deployment.md)", name,
        refusedOverTotal.get(), limits.maxConnections(), refusedOverAddress.get(), limits.maxHandshakesPerAddress(),
        closedSilent.get(), limits.handshakeStartSeconds(), open.get(), REPORT_EVERY_SECONDS);
  }

  /** On the listening channel, ahead of the acceptor: admits or closes each accepted connection. */
  private final class Admission extends ChannelInboundHandlerAdapter {
    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
      if (!(msg instanceof Channel child)) {
        ctx.fireChannelRead(msg);
        return;
      }
      SocketAddress remote = child.remoteAddress();
      InetSocketAddress peer = remote instanceof InetSocketAddress i ? i : null;
      InetAddress address = peer == null ? null : peer.getAddress();
      if (open.incrementAndGet() > limits.maxConnections()) {
        open.decrementAndGet();
        refusedOverTotal.incrementAndGet();
        refuse(child);
        return;
      }
      if (address != null && !takeHandshake(address)) {
        open.decrementAndGet();
        refusedOverAddress.incrementAndGet();
        refuse(child);
        return;
      }
      Watch watch = new Watch(peer);
      child.closeFuture().addListener(f -> {
        watch.verified();
        open.decrementAndGet();
      });
      child.pipeline().addFirst("helmet-handshake-watch", watch);
      ctx.fireChannelRead(child);
    }

    private void refuse(Channel child) {
      // Not registered with an event loop yet: closing the socket is all there is to undo.
      child.unsafe().closeForcibly();
      report();
    }
  }

  /**
   * First on each admitted connection until its TLS handshake is done: closes it if it sends
   * nothing in time, and then gives its address's handshake slot back.
   */
  private final class Watch extends ChannelInboundHandlerAdapter {
    private final InetSocketAddress peer;
    private final AtomicBoolean released = new AtomicBoolean();
    private boolean started;
    private ScheduledFuture<?> silence;
    private SSLEngine engine;

    Watch(InetSocketAddress peer) {
      this.peer = peer;
    }

    @Override
    public void channelActive(ChannelHandlerContext ctx) {
      silence = ctx.executor().schedule(() -> {
        if (!started && ctx.channel().isOpen()) {
          closedSilent.incrementAndGet();
          ctx.close();
          report();
        }
      }, limits.handshakeStartSeconds(), TimeUnit.SECONDS);
      ctx.fireChannelActive();
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
      if (started) {
        ctx.fireChannelRead(msg);
        return;
      }
      started = true;
      if (silence != null) {
        silence.cancel(false);
      }
      // gRPC has put its TLS handler behind this one by the time bytes arrive (it adds it when the
      // connection becomes active); plaintext (loopback tests) has none, and its first bytes end the watch.
      SslHandler ssl = ctx.pipeline().get(SslHandler.class);
      if (ssl != null) {
        engine = ssl.engine();
        if (peer != null) {
          engines.put(engine, peer);
        }
        ssl.handshakeFuture().addListener(f -> {
          if (f.isSuccess()) {
            done(ctx);
          }
        });
      }
      ctx.fireChannelRead(msg);
      if (ssl == null) {
        done(ctx);
      }
    }

    private void done(ChannelHandlerContext ctx) {
      verified();
      if (ctx.pipeline().context(this) != null) {
        ctx.pipeline().remove(this);
      }
    }

    /** The handshake succeeded or the connection closed: its address's slot goes back (once). */
    void verified() {
      if (released.compareAndSet(false, true)) {
        if (engine != null) {
          engines.remove(engine);
        }
        if (peer != null && peer.getAddress() != null) {
          releaseHandshake(peer.getAddress());
        }
      }
    }
  }
}
