package dev.helmet.transport;

import io.grpc.Attributes;
import io.grpc.CallOptions;
import io.grpc.Channel;
import io.grpc.ChannelCredentials;
import io.grpc.ClientCall;
import io.grpc.ClientInterceptor;
import io.grpc.ForwardingClientCall;
import io.grpc.ForwardingServerBuilder;
import io.grpc.ForwardingServerCall;
import io.grpc.Grpc;
import io.grpc.InsecureChannelCredentials;
import io.grpc.InsecureServerCredentials;
import io.grpc.ManagedChannelBuilder;
import io.grpc.Metadata;
import io.grpc.MethodDescriptor;
import io.grpc.Server;
import io.grpc.ServerBuilder;
import io.grpc.ServerCall;
import io.grpc.ServerCallHandler;
import io.grpc.ServerCredentials;
import io.grpc.ServerInterceptor;
import io.grpc.ServerServiceDefinition;
import io.grpc.Status;
import io.grpc.TlsChannelCredentials;
import io.grpc.TlsServerCredentials;
import io.grpc.inprocess.InProcessChannelBuilder;
import io.grpc.inprocess.InProcessServerBuilder;
import io.grpc.netty.shaded.io.grpc.netty.NettyServerBuilder;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.security.Principal;
import java.security.cert.Certificate;
import java.security.cert.CertificateEncodingException;
import java.security.cert.CertificateException;
import java.security.cert.CertificateFactory;
import java.security.cert.X509Certificate;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.UnaryOperator;
import javax.net.ssl.SSLHandshakeException;
import javax.net.ssl.SSLPeerUnverifiedException;
import javax.net.ssl.SSLSession;
import javax.net.ssl.SSLSessionContext;
import javax.net.ssl.TrustManager;
import javax.net.ssl.X509TrustManager;

/**
 * The tests' in-process network: gRPC's in-process transport in place of TCP, for the tests that do
 * not test sockets, TLS, handshakes, connection limits, ports or process boundaries themselves. A
 * server "listens" on host:port as a name (port 0: a number no server of this network holds), and
 * {@link Server#getPort} says that number, so tests address coordinators and compute nodes as they
 * do over loopback.
 *
 * <p>Identities are those of mutual TLS, without TLS: the credentials the coordinator, the
 * participants and the nodes build are the same ({@link Tls}, {@link NodeTls}), and their own
 * trust managers decide. A client presents its certificate chain in a header of each call; the
 * server runs its trust manager's client check on it (the deployment's CA, the refusal report),
 * fails the call as a refused handshake fails it (UNAVAILABLE) or hands the call on with a TLS
 * session that names the chain, so {@link Tls.PeerInterceptor} and everything behind it (the
 * roster, identity bindings, per-holder limits, the nodes' control gate) run unchanged. The client
 * runs its trust manager's server check on the server's certificate (the CA, a node's pin and
 * holder checks, the refusal of a node's certificate as the coordinator's) and the host name check
 * on the target, and gives its call a TLS session naming the server's chain, which
 * {@link CoordinatorCertificate} reads. What this does not do: prove possession of a key (a header
 * is not a handshake), bound connections ({@link ConnectionGuard}), enforce message size caps (the
 * in-process transport does not), and serialise messages (it hands them over whole) — tests of
 * those stay on sockets.
 *
 * <p>Test sources only: production code has no transport but {@link Transport#NETTY}, and no path
 * that reads an identity from a header.
 */
final class InProcessNetwork extends Transport {
  /** The one network of this JVM's tests (gRPC's in-process names are global too). */
  static final InProcessNetwork NETWORK = new InProcessNetwork();

  /** A client's certificate chain (DER, leaf first), one value per certificate. */
  private static final Metadata.Key<byte[]> CHAIN = Metadata.Key.of("helmet-in-process-certificate-bin",
      Metadata.BINARY_BYTE_MARSHALLER);

  /** Delivers the failure of a call whose emulated handshake failed (never inside its start). */
  private static final ExecutorService FAILURES = Executors.newCachedThreadPool(r -> {
    Thread t = new Thread(r, "helmet-in-process-handshake");
    t.setDaemon(true);
    return t;
  });

  /** What a listening server shows and checks: its chain and client check (both null over plaintext). */
  private record Endpoint(X509Certificate[] chain, X509TrustManager clients, boolean clientAuthRequired) {
    boolean tls() {
      return chain != null;
    }
  }

  /** Listening servers by name (host:port). */
  private final Map<String, Endpoint> listening = new ConcurrentHashMap<>();
  /** The next port number handed to a server that asks for any (0). */
  private final AtomicInteger nextPort = new AtomicInteger(20_000);

  private InProcessNetwork() {}

  @Override
  public String toString() {
    return "in-process";
  }

  /** host:port of a server or target, with "localhost" as 127.0.0.1. */
  private static String name(String host, int port) {
    return (host.equalsIgnoreCase("localhost") ? "127.0.0.1" : host) + ":" + port;
  }

  private static String name(String target) {
    int colon = target.lastIndexOf(':');
    if (colon < 0) {
      throw new IllegalArgumentException("an in-process target is host:port. Provided value: " + target);
    }
    String host = target.substring(0, colon);
    if (host.startsWith("[") && host.endsWith("]")) {
      host = host.substring(1, host.length() - 1);
    }
    return name(host, Integer.parseInt(target.substring(colon + 1)));
  }

  /** Whether a server of this network listens at {@code target} (host:port). */
  boolean listens(String target) {
    return listening.containsKey(name(target));
  }

  @Override
  ServerBuilder<?> server(InetSocketAddress address, ServerCredentials credentials,
      UnaryOperator<NettyServerBuilder> tcp) {
    String host = address.getAddress().getHostAddress();
    int port = address.getPort();
    if (port == 0) {
      do {
        port = nextPort.getAndUpdate(p -> p >= 65_535 ? 20_000 : p + 1);
      } while (listening.containsKey(name(host, port)));
    }
    Endpoint endpoint = endpoint(credentials);
    InProcessServerBuilder b = InProcessServerBuilder.forName(name(host, port));
    if (endpoint.tls()) {
      b.intercept(new ServerHandshake(endpoint));
    }
    return new Builder(b, name(host, port), port, endpoint);
  }

  @Override
  ManagedChannelBuilder<?> channel(String target, ChannelCredentials credentials) {
    String name = name(target);
    return InProcessChannelBuilder.forName(name).intercept(new ClientHandshake(name, target, client(credentials)));
  }

  private static Endpoint endpoint(ServerCredentials credentials) {
    if (credentials instanceof InsecureServerCredentials) {
      return new Endpoint(null, null, false);
    }
    if (credentials instanceof TlsServerCredentials t) {
      if (t.getCertificateChain() == null || t.getTrustManagers() == null) {
        throw new IllegalArgumentException("the in-process network takes TLS credentials with a certificate chain and "
            + "trust managers, as Tls and NodeTls build them");
      }
      return new Endpoint(parse(t.getCertificateChain()), x509(t.getTrustManagers()),
          t.getClientAuth() == TlsServerCredentials.ClientAuth.REQUIRE);
    }
    throw new IllegalArgumentException("the in-process network takes plaintext or TLS credentials, not " + credentials);
  }

  /** A client's side: its chain (null: none, or plaintext) and its server check (null: plaintext). */
  private record Client(X509Certificate[] chain, X509TrustManager servers) {
    boolean tls() {
      return servers != null;
    }
  }

  private static Client client(ChannelCredentials credentials) {
    if (credentials instanceof InsecureChannelCredentials) {
      return new Client(null, null);
    }
    if (credentials instanceof TlsChannelCredentials t) {
      X509TrustManager servers;
      if (t.getTrustManagers() != null) {
        servers = x509(t.getTrustManagers());
      } else if (t.getRootCertificates() != null) {
        servers = trusting(parse(t.getRootCertificates()));
      } else {
        throw new IllegalArgumentException("the in-process network takes TLS credentials that name whom they trust");
      }
      return new Client(t.getCertificateChain() == null ? null : parse(t.getCertificateChain()), servers);
    }
    throw new IllegalArgumentException("the in-process network takes plaintext or TLS credentials, not " + credentials);
  }

  /** The JDK's PKIX trust manager over {@code roots}. */
  private static X509TrustManager trusting(X509Certificate[] roots) {
    try {
      java.security.KeyStore store = java.security.KeyStore.getInstance("PKCS12");
      store.load(null, null);
      for (int i = 0; i < roots.length; i++) {
        store.setCertificateEntry("root-" + i, roots[i]);
      }
      javax.net.ssl.TrustManagerFactory f = javax.net.ssl.TrustManagerFactory.getInstance("PKIX");
      f.init(store);
      return x509(List.of(f.getTrustManagers()));
    } catch (IOException | java.security.GeneralSecurityException e) {
      throw new IllegalArgumentException("cannot trust the credentials' root certificates: " + e.getMessage(), e);
    }
  }

  private static X509TrustManager x509(List<TrustManager> managers) {
    for (TrustManager m : managers) {
      if (m instanceof X509TrustManager x) {
        return x;
      }
    }
    throw new IllegalArgumentException("no X.509 trust manager in " + managers);
  }

  private static X509Certificate[] parse(byte[] pem) {
    try {
      List<X509Certificate> out = new ArrayList<>();
      for (Certificate c : CertificateFactory.getInstance("X.509").generateCertificates(new ByteArrayInputStream(pem))) {
        out.add((X509Certificate) c);
      }
      if (out.isEmpty()) {
        throw new IllegalArgumentException("no certificate in the credentials' chain");
      }
      return out.toArray(new X509Certificate[0]);
    } catch (CertificateException e) {
      throw new IllegalArgumentException("cannot read the credentials' certificate chain: " + e.getMessage(), e);
    }
  }

  /**
   * The host name check of TLS (RFC 2818, as the JDK makes it for gRPC's channels): an address
   * target must be an IP address the certificate lists, a name one of its DNS names.
   */
  private static void checkHost(String target, X509Certificate server) throws CertificateException {
    String host = target.substring(0, target.lastIndexOf(':'));
    if (host.startsWith("[") && host.endsWith("]")) {
      host = host.substring(1, host.length() - 1);
    }
    boolean address = host.matches("[0-9.]+|[0-9a-fA-F:]+");
    var names = server.getSubjectAlternativeNames();
    if (names != null) {
      for (List<?> n : names) {
        int type = (Integer) n.get(0);
        String value = String.valueOf(n.get(1));
        try {
          if (address && type == 7 && InetAddress.getByName(value).equals(InetAddress.getByName(host))) {
            return;
          }
        } catch (java.net.UnknownHostException e) {
          // not an address
        }
        if (!address && type == 2 && value.equalsIgnoreCase(host)) {
          return;
        }
      }
    }
    throw new CertificateException(address ? "No subject alternative names matching IP address " + host + " found"
        : "No name matching " + host + " found");
  }

  /** Emulates the client's side of a handshake on every call: checks the server, presents its chain. */
  private final class ClientHandshake implements ClientInterceptor {
    private final String name;
    private final String target;
    private final Client client;

    ClientHandshake(String name, String target, Client client) {
      this.name = name;
      this.target = target;
      this.client = client;
    }

    @Override
    public <Q, R> ClientCall<Q, R> interceptCall(MethodDescriptor<Q, R> method, CallOptions options, Channel next) {
      Endpoint server = listening.get(name);
      if (server == null) {
        return next.newCall(method, options); // nobody listens: the transport says so (UNAVAILABLE)
      }
      if (client.tls() != server.tls()) {
        if (client.tls()) {
          return failed(Status.UNAVAILABLE.withDescription("in-process handshake: " + target + " does not speak TLS")
              .withCause(new SSLHandshakeException("the server at " + target + " does not speak TLS")), options);
        }
        return next.newCall(method, options); // plaintext to a TLS port: the server refuses it
      }
      if (!client.tls()) {
        return next.newCall(method, options);
      }
      try {
        client.servers().checkServerTrusted(server.chain().clone(), "UNKNOWN");
        checkHost(target, server.chain()[0]);
      } catch (CertificateException | RuntimeException e) {
        SSLHandshakeException h = new SSLHandshakeException("in-process handshake with " + target + ": " + e.getMessage());
        h.initCause(e);
        return failed(Status.UNAVAILABLE.withDescription(h.getMessage()).withCause(h), options);
      }
      SSLSession session = new Session(server.chain(), client.chain(), target);
      return new ForwardingClientCall.SimpleForwardingClientCall<>(next.newCall(method, options)) {
        @Override
        public void start(Listener<R> listener, Metadata headers) {
          if (client.chain() != null) {
            for (X509Certificate c : client.chain()) {
              headers.put(CHAIN, encoded(c));
            }
          }
          super.start(listener, headers);
        }

        @Override
        public Attributes getAttributes() {
          return super.getAttributes().toBuilder().set(Grpc.TRANSPORT_ATTR_SSL_SESSION, session).build();
        }
      };
    }
  }

  /**
   * A call that fails at its start, as one over a refused handshake does: its listener is told on
   * the call's executor (a blocking stub's waits for it there), never inside its start.
   */
  private static <Q, R> ClientCall<Q, R> failed(Status status, CallOptions options) {
    java.util.concurrent.Executor executor = options.getExecutor() != null ? options.getExecutor() : FAILURES;
    return new ClientCall<>() {
      private volatile boolean cancelled;

      @Override
      public void start(Listener<R> listener, Metadata headers) {
        executor.execute(() -> listener.onClose(cancelled ? Status.CANCELLED : status, new Metadata()));
      }

      @Override
      public void request(int numMessages) {}

      @Override
      public void cancel(String message, Throwable cause) {
        cancelled = true;
      }

      @Override
      public void halfClose() {}

      @Override
      public void sendMessage(Q message) {}
    };
  }

  /**
   * Emulates the server's side of a handshake on every call: the client's chain through the
   * server's own client check, then a TLS session naming it for the interceptors behind.
   */
  private static final class ServerHandshake implements ServerInterceptor {
    private final Endpoint endpoint;

    ServerHandshake(Endpoint endpoint) {
      this.endpoint = endpoint;
    }

    @Override
    public <Q, R> ServerCall.Listener<Q> interceptCall(ServerCall<Q, R> call, Metadata headers,
        ServerCallHandler<Q, R> next) {
      // removeAll answers what it removed (getAll's view would be empty after it)
      Iterable<byte[]> presented = headers.containsKey(CHAIN) ? headers.removeAll(CHAIN) : null;
      X509Certificate[] chain = null;
      String refusal = null;
      if (presented != null) {
        try {
          List<X509Certificate> certs = new ArrayList<>();
          CertificateFactory f = CertificateFactory.getInstance("X.509");
          for (byte[] der : presented) {
            certs.add((X509Certificate) f.generateCertificate(new ByteArrayInputStream(der)));
          }
          chain = certs.toArray(new X509Certificate[0]);
          endpoint.clients().checkClientTrusted(chain.clone(), chain[0].getPublicKey().getAlgorithm());
        } catch (CertificateException | RuntimeException e) {
          refusal = "certificate_unknown: " + e.getMessage();
        }
      } else if (endpoint.clientAuthRequired()) {
        refusal = "certificate_required: the client presented no certificate";
      }
      if (refusal != null) {
        call.close(Status.UNAVAILABLE.withDescription("in-process handshake refused (" + refusal + ")"), new Metadata());
        return new ServerCall.Listener<>() { };
      }
      SSLSession session = new Session(chain, endpoint.chain(), null);
      return next.startCall(new ForwardingServerCall.SimpleForwardingServerCall<>(call) {
        @Override
        public Attributes getAttributes() {
          return super.getAttributes().toBuilder().set(Grpc.TRANSPORT_ATTR_SSL_SESSION, session).build();
        }
      }, headers);
    }
  }

  private static byte[] encoded(X509Certificate c) {
    try {
      return c.getEncoded();
    } catch (CertificateEncodingException e) {
      throw new IllegalStateException(e);
    }
  }

  /** The server builder: in-process, named host:port, and registered with this network once started. */
  private final class Builder extends ForwardingServerBuilder<Builder> {
    private final InProcessServerBuilder delegate;
    private final String name;
    private final int port;
    private final Endpoint endpoint;

    Builder(InProcessServerBuilder delegate, String name, int port, Endpoint endpoint) {
      this.delegate = delegate;
      this.name = name;
      this.port = port;
      this.endpoint = endpoint;
    }

    @Override
    protected ServerBuilder<?> delegate() {
      return delegate;
    }

    @Override
    public Server build() {
      return new Named(delegate.build(), name, port, endpoint);
    }
  }

  /** An in-process server that says its port, and that this network knows while it listens. */
  private final class Named extends Server {
    private final Server delegate;
    private final String name;
    private final int port;
    private final Endpoint endpoint;

    Named(Server delegate, String name, int port, Endpoint endpoint) {
      this.delegate = delegate;
      this.name = name;
      this.port = port;
      this.endpoint = endpoint;
    }

    @Override
    public Server start() throws IOException {
      if (listening.putIfAbsent(name, endpoint) != null) {
        throw new IOException("in-process address " + name + " is in use");
      }
      try {
        delegate.start();
      } catch (IOException | RuntimeException e) {
        listening.remove(name, endpoint);
        throw e;
      }
      return this;
    }

    @Override
    public int getPort() {
      return port;
    }

    @Override
    public List<? extends SocketAddress> getListenSockets() {
      return List.of(InetSocketAddress.createUnresolved(name.substring(0, name.lastIndexOf(':')), port));
    }

    @Override
    public List<ServerServiceDefinition> getServices() {
      return delegate.getServices();
    }

    @Override
    public Server shutdown() {
      listening.remove(name, endpoint);
      delegate.shutdown();
      return this;
    }

    @Override
    public Server shutdownNow() {
      listening.remove(name, endpoint);
      delegate.shutdownNow();
      return this;
    }

    @Override
    public boolean isShutdown() {
      return delegate.isShutdown();
    }

    @Override
    public boolean isTerminated() {
      return delegate.isTerminated();
    }

    @Override
    public boolean awaitTermination(long timeout, TimeUnit unit) throws InterruptedException {
      return delegate.awaitTermination(timeout, unit);
    }

    @Override
    public void awaitTermination() throws InterruptedException {
      delegate.awaitTermination();
    }
  }

  /** The TLS session an emulated handshake agreed: the two sides' chains, nothing else. */
  private static final class Session implements SSLSession {
    private final X509Certificate[] peer;
    private final X509Certificate[] local;
    private final String peerHost;
    private final long created = System.currentTimeMillis();
    private final Map<String, Object> values = new ConcurrentHashMap<>();

    Session(X509Certificate[] peer, X509Certificate[] local, String target) {
      this.peer = peer;
      this.local = local;
      this.peerHost = target == null ? null : target.substring(0, target.lastIndexOf(':'));
    }

    @Override
    public byte[] getId() {
      return new byte[0];
    }

    @Override
    public SSLSessionContext getSessionContext() {
      return null;
    }

    @Override
    public long getCreationTime() {
      return created;
    }

    @Override
    public long getLastAccessedTime() {
      return created;
    }

    @Override
    public void invalidate() {}

    @Override
    public boolean isValid() {
      return true;
    }

    @Override
    public void putValue(String name, Object value) {
      values.put(name, value);
    }

    @Override
    public Object getValue(String name) {
      return values.get(name);
    }

    @Override
    public void removeValue(String name) {
      values.remove(name);
    }

    @Override
    public String[] getValueNames() {
      return values.keySet().toArray(new String[0]);
    }

    @Override
    public Certificate[] getPeerCertificates() throws SSLPeerUnverifiedException {
      if (peer == null) {
        throw new SSLPeerUnverifiedException("the peer presented no certificate");
      }
      return peer.clone();
    }

    @Override
    public Certificate[] getLocalCertificates() {
      return local == null ? null : local.clone();
    }

    @Override
    public Principal getPeerPrincipal() throws SSLPeerUnverifiedException {
      if (peer == null) {
        throw new SSLPeerUnverifiedException("the peer presented no certificate");
      }
      return peer[0].getSubjectX500Principal();
    }

    @Override
    public Principal getLocalPrincipal() {
      return local == null ? null : local[0].getSubjectX500Principal();
    }

    @Override
    public String getCipherSuite() {
      return "IN_PROCESS";
    }

    @Override
    public String getProtocol() {
      return "in-process";
    }

    @Override
    public String getPeerHost() {
      return peerHost;
    }

    @Override
    public int getPeerPort() {
      return -1;
    }

    @Override
    public int getPacketBufferSize() {
      return 16 << 10;
    }

    @Override
    public int getApplicationBufferSize() {
      return 16 << 10;
    }
  }
}
