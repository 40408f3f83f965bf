package dev.helmet.cli;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.helmet.transport.ComputeNodeServer;
import dev.helmet.transport.Tls;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HexFormat;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/** {@code helmet compute-node}: one compute node of dca sessions, until stopped. */
@Command(
    name = "compute-node",
    mixinStandardHelpOptions = true,
    sortOptions = false,
    description = {
      "Runs one compute node of sessions whose summation is dca (the cross-silo paper's Algorithm 1; "
          + "compute-servers is its old name): every participant uploads share l of its input to node l, and each "
          + "node releases one sum per round, over the parties the coordinator names, to the coordinator only. A "
          + "node sees only uniformly random shares and never talks to another node: the inputs stay private while "
          + "at least one node does not collude with the others. The session file lists each node's name, endpoint "
          + "and certificate. Runs until stopped (Ctrl-C). See docs/deployment.md."
    })
final class ComputeNodeCommand implements Callable<Integer> {
  @Option(names = "--name", paramLabel = "NAME", required = true, description = "The node's name in logs and reports.")
  String name;

  @Option(names = "--listen", paramLabel = "HOST:PORT", required = true,
      description = "Where participants and the coordinator reach it, e.g. 127.0.0.1:7101.")
  String listen;

  @Option(names = "--cert", paramLabel = "FILE", required = true,
      description = "Its certificate: a compute node's (OU=compute-node), from `helmet certs --compute-nodes M` or "
          + "`helmet certs sign --role compute-node`.")
  Path cert;

  @Option(names = "--key", paramLabel = "FILE", required = true, description = "Its private key (PKCS#8 PEM).")
  Path key;

  @Option(names = "--ca", paramLabel = "FILE", required = true, description = "The deployment's CA certificate.")
  Path ca;

  @Option(names = "--coordinator", paramLabel = "HOST:PORT",
      description = "The coordinator: the node then takes control calls only from the certificate the coordinator "
          + "presents there, for the session it publishes there. Default: any coordinator certificate of the CA.")
  String coordinator;

  @Option(names = "--threads", paramLabel = "N", description = "Threads for the sums. Default: the processors.")
  Integer threads;

  @Option(names = "--session-idle-seconds", paramLabel = "SECONDS",
      description = "End a session, erasing the shares it holds, once the coordinator has called nothing for this "
          + "long beyond what the session's published deadlines allow (round_seconds per setup step, and two per "
          + "round): an aborted session's shares do not stay in memory. Every session also ends at its last "
          + "release. Default: " + ComputeNodeServer.Settings.DEFAULT_SESSION_IDLE_SECONDS + ".")
  int sessionIdleSeconds = ComputeNodeServer.Settings.DEFAULT_SESSION_IDLE_SECONDS;

  @Option(names = "--max-sessions", paramLabel = "N",
      description = "The most sessions the node holds at once; it refuses another Open until one ends. Default: "
          + ComputeNodeServer.Settings.DEFAULT_MAX_SESSIONS + ".")
  int maxSessions = ComputeNodeServer.Settings.DEFAULT_MAX_SESSIONS;

  @Option(names = "--stats-json", paramLabel = "FILE",
      description = "Write the node's totals (rounds released, bytes in and out, CPU seconds) here after every "
          + "released round and at exit.")
  Path statsJson;

  @Spec picocli.CommandLine.Model.CommandSpec spec;

  @Override
  public Integer call() throws Exception {
    Logging.configure(false);
    int colon = listen.lastIndexOf(':');
    if (colon <= 0) {
      throw new IllegalArgumentException("--listen must be host:port. Provided value: " + listen);
    }
    int port;
    try {
      port = Integer.parseInt(listen.substring(colon + 1));
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException("--listen must be host:port. Provided value: " + listen);
    }
    int t = threads != null ? threads : Runtime.getRuntime().availableProcessors();
    ComputeNodeServer node = ComputeNodeServer.start(new ComputeNodeServer.Settings(name,
        listen.substring(0, colon).replace("[", "").replace("]", ""), port, new Tls.Files(cert, key, ca), coordinator,
        t, sessionIdleSeconds, maxSessions));
    PrintWriter err = spec.commandLine().getErr();
    err.printf("helmet: compute node %s listening on %s (mutual TLS); certificate SHA-256 %s%n", name,
        listen.substring(0, colon) + ":" + node.port(), HexFormat.of().formatHex(node.certificateSha256()));
    err.flush();
    Runtime.getRuntime().addShutdownHook(new Thread(() -> {
      node.close();
      writeStats(node);
    }));
    if (statsJson != null) {
      node.onRelease(() -> writeStats(node));
    }
    node.awaitTermination();
    return Main.OK;
  }

  private synchronized void writeStats(ComputeNodeServer node) {
    if (statsJson == null) {
      return;
    }
    try {
      ObjectNode j = Json.MAPPER.valueToTree(node.stats());
      Files.writeString(statsJson, Json.print(j) + "\n");
    } catch (java.io.IOException e) {
      System.err.println("helmet: cannot write " + statsJson + ": " + e.getMessage());
    }
  }
}
