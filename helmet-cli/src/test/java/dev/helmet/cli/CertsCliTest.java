package dev.helmet.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.cert.CertificateFactory;
import java.security.cert.X509Certificate;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code helmet certs --compute-nodes}: the node certificates name the nodes' own hosts
 * ({@code --compute-node-host}, loopback by default), never the coordinator's {@code --host}
 * (security review turn 3, T3-9: a node's certificate valid for the coordinator's name could serve
 * as the coordinator's).
 */
class CertsCliTest {
  @Test
  void nodeCertificatesNameTheNodesHostsNotTheCoordinators(@TempDir Path dir) throws Exception {
    Cli demo = Cli.run("certs", "--out", dir.resolve("demo").toString(), "--participants", "1", "--compute-nodes", "2",
        "--host", "coord.example.org");
    assertEquals(0, demo.exit, demo.toString());
    assertEquals(List.of("coord.example.org"), names(dir.resolve("demo/coordinator.pem")));
    assertEquals(List.of("localhost", "127.0.0.1"), names(dir.resolve("demo/compute-node-2.pem")), demo.out);
    assertTrue(demo.out.contains("hosts localhost, 127.0.0.1"), demo.out);

    Cli own = Cli.run("certs", "--out", dir.resolve("own").toString(), "--participants", "1", "--compute-nodes", "1",
        "--host", "coord.example.org", "--compute-node-host", "node1.example.org,192.0.2.8", "--json");
    assertEquals(0, own.exit, own.toString());
    assertEquals(List.of("node1.example.org", "192.0.2.8"), names(dir.resolve("own/compute-node-1.pem")));
    JsonNode j = new ObjectMapper().readTree(own.out);
    assertEquals(1, j.get("compute_nodes").asInt());
    assertEquals("node1.example.org", j.get("compute_node_hosts").get(0).asText());
    assertEquals("coord.example.org", j.get("hosts").get(0).asText());

    Cli help = Cli.run("certs", "--help");
    assertTrue(help.out.contains("--compute-node-host"), help.out);
  }

  /**
   * Two CAs made with the defaults have distinct names (issue 47, row 22: both were "Helmet CA", so
   * "issued by CN=Helmet CA" could not tell a stray certificate's CA from the deployment's), and
   * {@code certs sign} shows the request's subject before it signs and the subject, role, issuer
   * and expiry it wrote.
   */
  @Test
  void eachCaHasItsOwnNameAndSignShowsSubjectRoleAndExpiry(@TempDir Path dir) throws Exception {
    Cli one = Cli.run("certs", "ca", "--out", dir.resolve("ca1").toString());
    Cli two = Cli.run("certs", "ca", "--out", dir.resolve("ca2").toString(), "--days", "10");
    assertEquals(0, one.exit, one.toString());
    assertEquals(0, two.exit, two.toString());
    String first = read(dir.resolve("ca1/ca.pem")).getSubjectX500Principal().getName();
    String second = read(dir.resolve("ca2/ca.pem")).getSubjectX500Principal().getName();
    String today = java.time.LocalDate.now(java.time.ZoneOffset.UTC).toString();
    assertTrue(first.matches("CN=Helmet CA [0-9a-f]{8} " + today), first);
    assertTrue(second.matches("CN=Helmet CA [0-9a-f]{8} " + today), second);
    assertNotEquals(first, second);
    assertTrue(one.out.contains(first), one.out);
    Cli named = Cli.run("certs", "ca", "--out", dir.resolve("ca3").toString(), "--name", "Clinic federation CA");
    assertEquals("CN=Clinic federation CA", read(dir.resolve("ca3/ca.pem")).getSubjectX500Principal().getName(),
        named.toString());

    Cli request = Cli.run("certs", "request", "--out", dir.resolve("p").toString(), "--name", "participant-7");
    assertEquals(0, request.exit, request.toString());
    Path pem = dir.resolve("p/participant-7.pem");
    Cli sign = Cli.run("certs", "sign", "--ca-dir", dir.resolve("ca2").toString(), "--csr",
        dir.resolve("p/participant-7.csr").toString(), "--role", "participant", "--days", "3", "-o", pem.toString());
    assertEquals(0, sign.exit, sign.toString());
    List<String> lines = sign.out.lines().toList();
    assertEquals(2, lines.size(), sign.out);
    assertTrue(lines.get(0).contains("subject CN=participant-7; signing it as a participant certificate"), sign.out);
    assertTrue(lines.get(0).contains("for 3 days"), sign.out);
    X509Certificate cert = read(pem);
    String expiry = java.time.format.DateTimeFormatter.ofPattern("yyyy-MM-dd HH:mm 'UTC'")
        .withZone(java.time.ZoneOffset.UTC).format(cert.getNotAfter().toInstant());
    assertEquals("wrote " + pem + ": CN=participant-7, participant certificate, issued by " + second
        + ", valid until " + expiry, lines.get(1));

    Cli coordinator = Cli.run("certs", "request", "--out", dir.resolve("c").toString(), "--name", "coordinator");
    assertEquals(0, coordinator.exit, coordinator.toString());
    Cli server = Cli.run("certs", "sign", "--ca-dir", dir.resolve("ca2").toString(), "--csr",
        dir.resolve("c/coordinator.csr").toString(), "--role", "coordinator", "--host", "coord.example.org", "-o",
        dir.resolve("c/coordinator.pem").toString());
    assertEquals(0, server.exit, server.toString());
    assertTrue(server.out.contains("as a coordinator certificate (TLS server only) for 30 days, hosts "
        + "coord.example.org"), server.out);
  }

  private static X509Certificate read(Path pem) throws Exception {
    try (var in = Files.newInputStream(pem)) {
      return (X509Certificate) CertificateFactory.getInstance("X.509").generateCertificate(in);
    }
  }

  private static List<String> names(Path pem) throws Exception {
    X509Certificate cert;
    try (var in = Files.newInputStream(pem)) {
      cert = (X509Certificate) CertificateFactory.getInstance("X.509").generateCertificate(in);
    }
    List<String> out = new ArrayList<>();
    for (List<?> n : cert.getSubjectAlternativeNames()) {
      out.add(String.valueOf(n.get(1)));
    }
    return out;
  }
}
