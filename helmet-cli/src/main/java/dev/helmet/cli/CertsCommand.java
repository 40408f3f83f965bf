package dev.helmet.cli;

import dev.helmet.transport.CertificateRequests;
import dev.helmet.transport.Certificates;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.security.cert.X509Certificate;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code helmet certs}: all certificates at once for a demo or test deployment, or (subcommands)
 * the flow for a real one where every private key stays on the machine it was made on.
 */
@Command(
    name = "certs",
    mixinStandardHelpOptions = true,
    sortOptions = false,
    subcommands = {CertsCommand.Ca.class, CertsCommand.Request.class, CertsCommand.Sign.class},
    description = {
      "Without a subcommand: creates a certificate authority (ca.pem, ca-key.pem), a server certificate for "
          + "the coordinator (coordinator.pem, coordinator-key.pem) and one client certificate per participant "
          + "(participant-1.pem, participant-1-key.pem, ...), ECDSA P-256, in one folder: for a demo or test "
          + "deployment on machines you control, since every private key is made in one place.",
      "For a real deployment: `certs ca` on an offline machine run by someone other than the coordinator's "
          + "operator; `certs request` on each participant's and the coordinator's machine (the key never "
          + "leaves it); `certs sign` at the CA for each request, which decides the role."
    })
final class CertsCommand implements Callable<Integer> {
  @Option(names = "--out", paramLabel = "DIR", description = "Folder to write the files to (required without a "
      + "subcommand).")
  Path out;

  @Option(names = "--participants", paramLabel = "N", defaultValue = "2",
      description = "Participant certificates to create. Default: ${DEFAULT-VALUE}.")
  int participants;

  @Option(names = "--host", paramLabel = "NAME|ADDRESS", split = ",", defaultValue = "localhost,127.0.0.1",
      description = "The coordinator's host names and addresses, as participants will dial it (comma-separated "
          + "or repeated). Default: ${DEFAULT-VALUE}.")
  List<String> hosts;

  @Option(names = "--compute-nodes", paramLabel = "M", defaultValue = "0",
      description = "Compute node certificates to create for dca sessions (compute-node-1.pem, ...): server "
          + "certificates marked OU=compute-node, which cannot enrol as participants nor serve as the coordinator. "
          + "Default: ${DEFAULT-VALUE}.")
  int computeNodes;

  @Option(names = "--compute-node-host", paramLabel = "NAME|ADDRESS", split = ",",
      defaultValue = "localhost,127.0.0.1",
      description = "The compute nodes' host names and addresses, as participants and the coordinator dial them "
          + "(comma-separated or repeated; every node certificate lists them all). Not the coordinator's --host: a "
          + "node's certificate no longer names the coordinator's hosts (list a shared host here if nodes run on the "
          + "coordinator's machine). Default: ${DEFAULT-VALUE}.")
  List<String> nodeHosts;

  @Option(names = "--days", paramLabel = "D", defaultValue = "30",
      description = "Validity in days. Default: ${DEFAULT-VALUE}.")
  int days;

  @Option(names = "--json", description = "Print one JSON object naming the files written (keys: out, ca, "
      + "coordinator, hosts, participants, compute_nodes, compute_node_hosts, days).")
  boolean json;

  @Spec picocli.CommandLine.Model.CommandSpec spec;

  @Override
  public Integer call() throws IOException {
    if (out == null) {
      throw new IllegalArgumentException("--out is required (or use a subcommand: ca, request, sign)");
    }
    if (participants < 0 || participants > 100_000) {
      throw new IllegalArgumentException("participants must be in [0, 100000]. Provided value: " + participants);
    }
    if (days < 1) {
      throw new IllegalArgumentException("days must be positive. Provided value: " + days);
    }
    if (computeNodes < 0 || computeNodes > 1000) {
      throw new IllegalArgumentException("compute nodes must be in [0, 1000]. Provided value: " + computeNodes);
    }
    Certificates.Written w = Certificates.create(out, hosts, participants, computeNodes, nodeHosts,
        Duration.ofDays(days));
    PrintWriter o = spec.commandLine().getOut();
    if (json) {
      var j = Json.object();
      j.put("out", out.toString());
      j.put("ca", w.ca().toString());
      j.put("coordinator", w.coordinator().toString());
      var h = j.putArray("hosts");
      hosts.forEach(h::add);
      var ps = j.putArray("participants");
      w.participants().forEach(x -> ps.add(x.toString()));
      j.put("compute_nodes", computeNodes);
      var nh = j.putArray("compute_node_hosts");
      if (computeNodes > 0) {
        nodeHosts.forEach(nh::add);
      }
      j.put("days", days);
      o.println(Json.print(j));
      o.flush();
      return Main.OK;
    }
    o.printf("wrote %s (CA), %s (coordinator, hosts %s) and %d participant certificates to %s%n",
        w.ca().getFileName(), w.coordinator().getFileName(), String.join(", ", hosts), w.participants().size(), out);
    if (computeNodes > 0) {
      o.printf("wrote %d compute node certificates (compute-node-1.pem ...; OU=compute-node; hosts %s)%n",
          computeNodes, String.join(", ", nodeHosts));
    }
    o.flush();
    return Main.OK;
  }

  /** {@code helmet certs ca}: the CA, on its own (offline) machine. */
  @Command(name = "ca", mixinStandardHelpOptions = true, description = "Creates ca.pem and ca-key.pem (owner-only) "
      + "in DIR. Run it on a machine the coordinator's operator does not control; ca-key.pem never leaves it.")
  static final class Ca implements Callable<Integer> {
    @Option(names = "--out", paramLabel = "DIR", required = true, description = "Folder for the CA's files.")
    Path out;

    @Option(names = "--name", paramLabel = "CN",
        description = "The CA's common name, which every certificate it signs names as its issuer. Default: Helmet "
            + "CA ID DATE, with a fresh random ID and today's date, so that two CAs are told apart in every log line "
            + "(a certificate \"issued by CN=Helmet CA 3f9a1c2e 2026-12-03\").")
    String name;

    @Option(names = "--days", paramLabel = "D", defaultValue = "365",
        description = "Validity in days. Default: ${DEFAULT-VALUE}.")
    int days;

    @Spec picocli.CommandLine.Model.CommandSpec spec;

    @Override
    public Integer call() throws IOException {
      if (days < 1) {
        throw new IllegalArgumentException("days must be positive. Provided value: " + days);
      }
      Path ca = CertificateRequests.createCa(out, name != null ? name : CertificateRequests.defaultCaName("Helmet CA"),
          Duration.ofDays(days));
      X509Certificate cert = read(ca);
      spec.commandLine().getOut().printf("wrote %s (%s, valid until %s) and ca-key.pem (keep it offline)%n", ca,
          cert.getSubjectX500Principal().getName(), until(cert));
      spec.commandLine().getOut().flush();
      return Main.OK;
    }
  }

  /** {@code helmet certs request}: a key and signing request on the requester's machine. */
  @Command(name = "request", mixinStandardHelpOptions = true, description = "Creates NAME-key.pem (owner-only; it "
      + "never leaves this machine) and NAME.csr in DIR. Send NAME.csr to the CA; put the signed NAME.pem and the "
      + "CA's ca.pem next to the key.")
  static final class Request implements Callable<Integer> {
    @Option(names = "--out", paramLabel = "DIR", required = true, description = "Folder for the key and request.")
    Path out;

    @Option(names = "--name", paramLabel = "NAME", required = true,
        description = "This machine's name, e.g. participant-3 or coordinator.")
    String name;

    @Spec picocli.CommandLine.Model.CommandSpec spec;

    @Override
    public Integer call() throws IOException {
      Path csr = CertificateRequests.request(out, name);
      spec.commandLine().getOut().printf("wrote %s and %s-key.pem; send %s to the CA%n", csr, name,
          csr.getFileName());
      spec.commandLine().getOut().flush();
      return Main.OK;
    }
  }

  /** {@code helmet certs sign}: the CA signs one request for the role it decides. */
  @Command(name = "sign", mixinStandardHelpOptions = true, description = "Signs a request with the CA in --ca-dir. "
      + "A participant certificate allows clientAuth only; a coordinator certificate serverAuth only (so it can "
      + "never vouch for a participant's identity key); a compute node certificate (dca sessions) serverAuth and "
      + "clientAuth, its subject marked OU=compute-node. Check who sent the request before signing: each "
      + "participant certificate is one party. Prints the request's subject, then the certificate's subject, role, "
      + "issuer and expiry.")
  static final class Sign implements Callable<Integer> {
    @Option(names = "--ca-dir", paramLabel = "DIR", required = true, description = "Folder with ca.pem and "
        + "ca-key.pem.")
    Path caDir;

    @Option(names = "--csr", paramLabel = "FILE", required = true, description = "The signing request.")
    Path csr;

    @Option(names = "--role", paramLabel = "ROLE", required = true,
        description = "participant, coordinator or compute-node.")
    String role;

    @Option(names = "--host", paramLabel = "NAME|ADDRESS", split = ",",
        description = "For a coordinator or a compute node: its host names and addresses, as participants dial "
            + "them.")
    List<String> hosts = List.of();

    @Option(names = "--days", paramLabel = "D", defaultValue = "30",
        description = "Validity in days. Default: ${DEFAULT-VALUE}.")
    int days;

    @Option(names = {"-o", "--out"}, paramLabel = "FILE", required = true, description = "The certificate to write.")
    Path out;

    @Spec picocli.CommandLine.Model.CommandSpec spec;

    @Override
    public Integer call() throws IOException {
      if (days < 1) {
        throw new IllegalArgumentException("days must be positive. Provided value: " + days);
      }
      CertificateRequests.Role r = CertificateRequests.Role.parse(role);
      PrintWriter o = spec.commandLine().getOut();
      // Before signing: who the request says it is, so the CA can check it against who sent it.
      o.printf("request %s: subject %s; signing it as a %s certificate (%s) for %d day%s%s%n", csr,
          CertificateRequests.requestSubject(csr), roleName(r), uses(r), days, days == 1 ? "" : "s",
          r == CertificateRequests.Role.PARTICIPANT || hosts.isEmpty() ? "" : ", hosts " + String.join(", ", hosts));
      o.flush();
      CertificateRequests.sign(caDir, csr, r, hosts, Duration.ofDays(days), out);
      X509Certificate cert = read(out);
      o.printf("wrote %s: %s, %s certificate, issued by %s, valid until %s%n", out,
          cert.getSubjectX500Principal().getName(), roleName(r), cert.getIssuerX500Principal().getName(), until(cert));
      o.flush();
      return Main.OK;
    }
  }

  private static String roleName(CertificateRequests.Role r) {
    return r.name().toLowerCase(java.util.Locale.ROOT).replace('_', '-');
  }

  /** What a role's certificate allows (CertificateRequests.sign decides it). */
  private static String uses(CertificateRequests.Role r) {
    return switch (r) {
      case PARTICIPANT -> "TLS client only: one party";
      case COORDINATOR -> "TLS server only";
      case COMPUTE_NODE -> "TLS server and client, marked OU=compute-node";
    };
  }

  static X509Certificate read(Path pem) throws IOException {
    try (var in = java.nio.file.Files.newInputStream(pem)) {
      return (X509Certificate) java.security.cert.CertificateFactory.getInstance("X.509").generateCertificate(in);
    } catch (java.security.cert.CertificateException e) {
      throw new IOException("cannot read the certificate just written to " + pem + ": " + e.getMessage(), e);
    }
  }

  /** A certificate's expiry, to the minute, in UTC: "2027-01-02 14:03 UTC". */
  static String until(X509Certificate cert) {
    return java.time.format.DateTimeFormatter.ofPattern("yyyy-MM-dd HH:mm 'UTC'", java.util.Locale.ROOT)
        .withZone(java.time.ZoneOffset.UTC).format(cert.getNotAfter().toInstant());
  }
}
