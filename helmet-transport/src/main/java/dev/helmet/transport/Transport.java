package dev.helmet.transport;

import io.grpc.ChannelCredentials;
import io.grpc.ManagedChannelBuilder;
import io.grpc.ServerBuilder;
import io.grpc.ServerCredentials;
import io.grpc.netty.shaded.io.grpc.netty.NettyChannelBuilder;
import io.grpc.netty.shaded.io.grpc.netty.NettyServerBuilder;
import java.net.InetSocketAddress;
import java.util.function.UnaryOperator;

/**
 * Where the coordinator, the participants and the compute nodes get their gRPC server and channel
 * builders from (the builder injection of grpc-java's examples): {@link #NETTY}, TCP through Netty
 * with the credentials given, is the only one there is outside this package and the default of
 * every {@code Settings} ({@link Coordinator.Settings}, {@link Participant.Settings},
 * {@link ComputeNodeServer.Settings}).
 *
 * <p>Why this seam is safe: it is chosen only through the Java API, by a {@code Settings} record's
 * {@code transport} (never by a session file, a command-line flag or an environment variable:
 * {@link SessionFile} and the command line build their settings without one, so they get
 * {@link #NETTY}); its constructor is package-private, so code outside {@code dev.helmet.transport}
 * cannot make another one; and the only other one is the tests' in-process network, which lives in
 * the test sources and is on no deployed class path. Everything security rests on stays where it
 * was, in front of and behind this seam: the coordinator still refuses plaintext off loopback and
 * the participant a plaintext target that is not a loopback address before a builder is asked
 * for; the credentials are built as before and handed over whole; identities still come only from
 * the TLS session of each call ({@link Tls.PeerInterceptor}, {@link CoordinatorCertificate}),
 * whose absence is refused as before; and no code path here reads an identity from a header.
 */
public abstract class Transport {
  /** TCP through Netty: what every deployment runs. */
  public static final Transport NETTY = new Transport() {
    @Override
    ServerBuilder<?> server(InetSocketAddress address, ServerCredentials credentials,
        UnaryOperator<NettyServerBuilder> tcp) {
      return tcp.apply(NettyServerBuilder.forAddress(address, credentials));
    }

    @Override
    ManagedChannelBuilder<?> channel(String target, ChannelCredentials credentials) {
      return NettyChannelBuilder.forTarget(target, credentials);
    }

    @Override
    public String toString() {
      return "netty";
    }
  };

  /** Only this package makes transports: {@link #NETTY}, and its tests' in-process network. */
  Transport() {}

  /**
   * A server builder listening on {@code address} with {@code credentials}. {@code tcp} sets what
   * only a TCP port has (its connection guard, HTTP/2 flow control, keep-alive, per-connection call
   * and reset bounds, the handshake's timeout, idle connections) on Netty's builder; a transport
   * without sockets does not call it. The caller adds services and every other option.
   */
  abstract ServerBuilder<?> server(InetSocketAddress address, ServerCredentials credentials,
      UnaryOperator<NettyServerBuilder> tcp);

  /** A channel builder to {@code target} (host:port) with {@code credentials}. */
  abstract ManagedChannelBuilder<?> channel(String target, ChannelCredentials credentials);
}
