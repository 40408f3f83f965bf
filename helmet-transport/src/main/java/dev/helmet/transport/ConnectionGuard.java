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
import io.grpc.netty.shaded.io.netty.util.ReferenceCountUtil;
import io.grpc.netty.shaded.io.netty.util.concurrent.DefaultThreadFactory;
import java.lang.System.Logger.Level;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.security.cert.Certificate;
import java.security.cert.CertificateEncodingException;
import java.security.cert.X509Certificate;
import java.util.HexFormat;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.ToIntFunction;
import javax.net.ssl.SSLEngine;
import javax.net.ssl.SSLPeerUnverifiedException;

/**
 * What the coordinator's port lets a peer hold open, before it has shown a certificate and under
 * each certificate after (security review turn 3, T3-5). gRPC's own bounds are per connection
 * (calls, header size, a handshake timeout, {@link Coordinator#HANDSHAKE_TIMEOUT_SECONDS}); without
 * this, a peer with no certificate held one file descriptor and about 68 KB per TCP connection that
 * never sent a byte, as many as it opened, up to the open-file limit, where {@code accept()} fails
 * for everyone. Three bounds apply before TLS, so they cost an attacker's connection nothing but the
 * accept, and one after:
 *
 * <ul>
 *   <li>at most {@link Coordinator.ConnectionLimits#maxConnections} connections are open at once;
 *       one more is closed as soon as it is accepted (memory and descriptors stay bounded);
 *   <li>at most {@link Coordinator.ConnectionLimits#maxHandshakesPerAddress} connections of one
 *       remote address may be open without a completed TLS handshake (one source cannot take the
 *       whole total with connections that never finish TLS; a connection leaves this count once its
 *       handshake succeeds, so parties behind one address, a NAT or a loopback benchmark, are not
 *       bounded by it);
 *   <li>a connection that sends nothing (no ClientHello) within
 *       {@link Coordinator.ConnectionLimits#handshakeStartSeconds} is closed; one that started its
 *       handshake has the handshake timeout to finish it;
 *   <li>at most {@link Coordinator.ConnectionLimits#maxConnectionsPerCertificate} connections (or
 *       what the owner's rule gives that certificate: a compute node's port lets the coordinator's
 *       hold more) are open at once under one client certificate, counted by its SHA-256: one more
 *       is closed right after its handshake, before gRPC learns that the handshake completed or
 *       gets a byte that followed it, so nothing is served on it.
 *       Without this, the per-address count let one certified peer (any certificate of the CA,
 *       enrolled or not) from one address hold every slot of the total, since its handshakes
 *       succeed and leave that count, and honest parties were closed at accept for as long as it
 *       kept them. A certificate is what an attacker cannot multiply at will (the CA issues them);
 *       honest parties each have their own, so a thousand parties from one address are not refused.
 * </ul>
 *
 * <p>Refused and closed connections are counted and reported in one log line at most every
 * {@link #REPORT_EVERY_SECONDS} s, not one per connection (a flood would flood the log too); the
 * line names the last refused certificate by the start of its SHA-256 (hex, never its subject, which
 * its holder chose). Many sources or many certificates can still fill the total: the port belongs
 * behind a firewall or TCP proxy with per-source limits (docs/deployment.md); what this bounds is the
 * coordinator's memory and descriptors, what one address can take before TLS, and what one
 * certificate can take after.
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
  /** How many connections each client certificate may hold open: the owner's rule. */
  private final ToIntFunction<X509Certificate> perCertificate;
  /** Per client certificate (hex SHA-256): its open connections whose TLS handshake succeeded. */
  private final ConcurrentHashMap<String, Integer> certified = new ConcurrentHashMap<>();
  private final AtomicLong refusedOverTotal = new AtomicLong();
  private final AtomicLong refusedOverAddress = new AtomicLong();
  private final AtomicLong closedSilent = new AtomicLong();
  private final AtomicLong refusedOverCertificate = new AtomicLong();
  /** The hex SHA-256 of the last certificate refused for holding its cap (for the log line). */
  private final AtomicReference<String> lastRefusedCertificate = new AtomicReference<>();
  private final AtomicLong nextReport = new AtomicLong(System.nanoTime());

  /**
   * @param limits the bounds
   * @param name what the log calls the port's owner ("session 1a2b...")
   */
  ConnectionGuard(Coordinator.ConnectionLimits limits, String name) {
    this(limits, name, cert -> limits.maxConnectionsPerCertificate());
  }

  /**
   * @param limits the bounds
   * @param name what the log calls the port's owner ("compute node compute-node-1")
   * @param perCertificate how many connections a client certificate may hold open at once (a
   *     compute node lets the coordinator's certificate hold one per session it serves)
   */
  ConnectionGuard(Coordinator.ConnectionLimits limits, String name, ToIntFunction<X509Certificate> perCertificate) {
    this.limits = limits;
    this.name = name;
    this.perCertificate = perCertificate;
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

  /** Connections closed after their TLS handshake because their certificate held its cap. */
  long refusedOverCertificate() {
    return refusedOverCertificate.get();
  }

  /** Open connections whose handshake succeeded under the certificate with SHA-256 {@code sha256} (hex). */
  int openUnder(String sha256) {
    return certified.getOrDefault(sha256, 0);
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

  private boolean takeCertificate(String holder, int cap) {
    boolean[] taken = {false};
    certified.compute(holder, (k, n) -> {
      int held = n == null ? 0 : n;
      if (held >= cap) {
        return n;
      }
      taken[0] = true;
      return held + 1;
    });
    return taken[0];
  }

  private void releaseCertificate(String holder) {
    certified.computeIfPresent(holder, (k, n) -> n <= 1 ? null : n - 1);
  }

  /** The client's leaf certificate of a completed handshake, or null (none, or not X.509). */
  private static X509Certificate peerCertificate(SSLEngine engine) {
    try {
      Certificate[] chain = engine.getSession().getPeerCertificates();
      return chain.length > 0 && chain[0] instanceof X509Certificate x ? x : null;
    } catch (SSLPeerUnverifiedException e) {
      return null;
    }
  }

  /** One log line per {@link #REPORT_EVERY_SECONDS} s at most, with the totals so far. */
  private void report() {
    long now = System.nanoTime();
    long due = nextReport.get();
    if (now - due < 0 || !nextReport.compareAndSet(due, now + TimeUnit.SECONDS.toNanos(REPORT_EVERY_SECONDS))) {
      return;
    }
    String last = lastRefusedCertificate.get();
    Coordinator.LOG.log(Level.WARNING, "{0}: connections held back so far: {1} closed at accept with {2} open (the "
        + "cap), {3} closed at accept with {4} handshakes open from their address, {5} closed after sending nothing "
        + "for {6} s, {7} closed after their TLS handshake with their certificate''s cap of connections open ({8} per "
        + "certificate{9}); {10} open now (at most one such line per {11} s; see docs/deployment.md)", name,
        refusedOverTotal.get(), limits.maxConnections(), refusedOverAddress.get(), limits.maxHandshakesPerAddress(),
        closedSilent.get(), limits.handshakeStartSeconds(), refusedOverCertificate.get(),
        limits.maxConnectionsPerCertificate(), last == null ? "" : "; the last one's SHA-256 begins " + last,
        open.get(), REPORT_EVERY_SECONDS);
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
        watch.closed();
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
   * nothing in time, then gives its address's handshake slot back and takes one of its
   * certificate's, or closes it if its certificate holds its cap. Its close gives back what it held.
   */
  private final class Watch extends ChannelInboundHandlerAdapter {
    private final InetSocketAddress peer;
    private final AtomicBoolean released = new AtomicBoolean();
    private boolean started;
    private ScheduledFuture<?> silence;
    private SSLEngine engine;
    /** The certificate (hex SHA-256) whose slot this connection holds, or null. On the channel's event loop. */
    private String holder;

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
            certified(ctx, ssl);
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

    /**
     * Right after a successful handshake: the connection takes a slot of its client certificate, or
     * is closed if that certificate holds its cap. This runs on the event loop inside the TLS
     * handler, as it completes the handshake's promise and before it tells the handlers behind it
     * (gRPC's) that the handshake is done or passes on any byte that followed; a refused
     * connection gets {@link Refused} behind the TLS handler first, so gRPC never sets up its
     * transport on it nor reads a request from it.
     */
    private void certified(ChannelHandlerContext ctx, SslHandler ssl) {
      X509Certificate cert = peerCertificate(engine);
      if (cert == null || !ctx.channel().isOpen()) {
        return; // no client certificate (the ports require one), or already closed and counted out
      }
      // Counted by holder (its public key), not by the certificate's bytes: an ECDSA signature
      // re-encoded as (r, n - s) is another valid encoding of one issued certificate (the attacker's
      // third read: 8 connections under one certificate against a cap of 4).
      String sha = HexFormat.of().formatHex(IdentityBinding.fingerprint(cert.getPublicKey().getEncoded()));
      if (takeCertificate(sha, Math.max(1, perCertificate.applyAsInt(cert)))) {
        holder = sha;
        return;
      }
      refusedOverCertificate.incrementAndGet();
      lastRefusedCertificate.set(sha.substring(0, 16));
      ChannelHandlerContext tls = ctx.pipeline().context(ssl);
      if (tls != null) {
        ctx.pipeline().addAfter(tls.name(), "helmet-refused-certificate", new Refused());
      }
      ctx.channel().close();
      report();
    }

    /** The connection closed: its address's handshake slot (if still held) and its certificate's slot go back. */
    void closed() {
      verified();
      if (holder != null) {
        releaseCertificate(holder);
        holder = null;
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

  /**
   * Behind the TLS handler of a connection refused after its handshake, until it is closed: drops
   * what the handler decrypts and the handshake's completion event, so gRPC's handlers see the
   * connection close during TLS negotiation and serve nothing on it.
   */
  private static final class Refused extends ChannelInboundHandlerAdapter {
    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
      ReferenceCountUtil.release(msg);
    }

    @Override
    public void userEventTriggered(ChannelHandlerContext ctx, Object evt) {
      ReferenceCountUtil.release(evt);
    }
  }
}
