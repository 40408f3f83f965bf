package dev.helmet.secagg.protocol;

import dev.helmet.secagg.crypto.CryptoProfile;
import dev.helmet.secagg.crypto.Secrets;
import dev.helmet.secagg.crypto.Signatures;
import dev.helmet.secagg.graph.CommunicationGraph;
import dev.helmet.secagg.protocol.Messages.ClientMessage;
import dev.helmet.secagg.protocol.Messages.ServerMessage;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/** Drives the state machines by hand, one round at a time, so tests can intercept any message. */
final class Harness {
  final SecAggParameters params;
  final ClientState[] clients;
  final ClientMessage[] replies;
  final long[][] inputs;
  ServerState server;

  Harness(int n, int length, int ringBits) {
    List<Signatures.KeyPair> ids = new ArrayList<>();
    List<byte[]> pubs = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      Signatures.KeyPair kp = Signatures.generate();
      ids.add(kp);
      pubs.add(kp.publicKey());
    }
    CommunicationGraph g = CommunicationGraph.complete(n);
    params = new SecAggParameters(Secrets.random().nextLong(), Secrets.bytes(32), length, ringBits, g,
        SecAggParameters.majority(g.degree()), 1, pubs);
    clients = new ClientState[n];
    replies = new ClientMessage[n];
    inputs = new long[n][length];
    for (int i = 0; i < n; i++) {
      int id = i;
      ClientState.Step s = ClientState.start(new ClientState.Context(params, i, ids.get(i).secret(),
          () -> inputs[id], CryptoProfile.NONE));
      clients[i] = s.next();
      replies[i] = s.reply();
    }
    server = ServerState.start(params, CryptoProfile.NONE);
  }

  /** Sends every pending reply to the server and closes the round; returns the server's messages. */
  Map<Integer, ServerMessage> serverRound() {
    for (int i = 0; i < replies.length; i++) {
      if (replies[i] != null) {
        server.receive(replies[i]);
        replies[i] = null;
      }
    }
    ServerState.Transition t = server.close();
    server = t.next();
    return t.outgoing();
  }

  /** Delivers the server's messages to the parties. */
  void clientRound(Map<Integer, ServerMessage> out) {
    out.forEach((i, m) -> {
      ClientState.Step s = clients[i].handle(m);
      clients[i] = s.next();
      replies[i] = s.reply();
    });
  }

  /** Runs rounds until the parties have answered the server's round-{@code round} messages. */
  Map<Integer, ServerMessage> runUntil(Round round) {
    Map<Integer, ServerMessage> out = serverRound();
    while (out.values().iterator().next().round() != round) {
      clientRound(out);
      out = serverRound();
    }
    return out;
  }
}
