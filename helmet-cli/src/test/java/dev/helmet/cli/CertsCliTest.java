package dev.helmet.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
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
