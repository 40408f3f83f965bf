package dev.helmet.transport;

import io.grpc.Attributes;
import io.grpc.CallOptions;
import io.grpc.Channel;
import io.grpc.ClientCall;
import io.grpc.ClientInterceptor;
import io.grpc.ForwardingClientCall;
import io.grpc.ForwardingClientCallListener;
import io.grpc.Grpc;
import io.grpc.Metadata;
import io.grpc.MethodDescriptor;
import java.security.cert.Certificate;
import java.security.cert.X509Certificate;
import java.util.concurrent.atomic.AtomicReference;
import javax.net.ssl.SSLPeerUnverifiedException;
import javax.net.ssl.SSLSession;

/**
 * The certificate the coordinator presented on the connection of one participant's session
 * stream, read from that call's own TLS session when its response headers arrive (so before any
 * message of the stream is handled): the certificate of the coordinator this participant actually
 * talks to, not of some other handshake of the channel. A dca participant compares it with the
 * compute nodes' certificates ({@link DcaUploads}): a node sharing the coordinator's subject or
 * public key is the coordinator's own (security review turn 3, T3-2).
 */
final class CoordinatorCertificate implements ClientInterceptor {
  private final AtomicReference<X509Certificate> seen = new AtomicReference<>();

  /** The coordinator's certificate on the intercepted call, or null (plaintext, or no headers yet). */
  X509Certificate certificate() {
    return seen.get();
  }

  private void record(Attributes attributes) {
    SSLSession ssl = attributes == null ? null : attributes.get(Grpc.TRANSPORT_ATTR_SSL_SESSION);
    if (ssl == null) {
      return;
    }
    try {
      Certificate[] chain = ssl.getPeerCertificates();
      if (chain.length > 0 && chain[0] instanceof X509Certificate x) {
        seen.compareAndSet(null, x); // the first call's: one interceptor serves one session stream
      }
    } catch (SSLPeerUnverifiedException e) {
      // no verified peer: nothing is recorded, and a dca session then refuses to start
    }
  }

  @Override
  public <Q, R> ClientCall<Q, R> interceptCall(MethodDescriptor<Q, R> method, CallOptions options, Channel next) {
    return new ForwardingClientCall.SimpleForwardingClientCall<>(next.newCall(method, options)) {
      @Override
      public void start(Listener<R> listener, Metadata headers) {
        ClientCall<Q, R> call = delegate();
        super.start(new ForwardingClientCallListener.SimpleForwardingClientCallListener<>(listener) {
          @Override
          public void onHeaders(Metadata h) {
            record(call.getAttributes());
            super.onHeaders(h);
          }
        }, headers);
      }
    };
  }
}
