package dev.helmet.transport;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The session file's summation key: dca with its compute nodes, compute-servers as its old name. */
class DcaSessionFileTest {
  private static Path file(Path dir, String extra) throws Exception {
    Path yaml = dir.resolve("session.yaml");
    Files.writeString(yaml, String.join("\n", "name: t", "dataset: iris", "parties: 3", "features: 4",
        "labels: [0, 1, 2]", "plaintext: true", extra, ""));
    return yaml;
  }

  @Test
  void summationDcaListsItsNodesAndCertificatesAreHashed(@TempDir Path dir) throws Exception {
    Certificates.create(dir.resolve("certs"), List.of("127.0.0.1"), 0, 2, Duration.ofDays(1));
    for (String name : new String[] {"dca", "compute-servers"}) {
      var s = SessionFile.read(file(dir, "summation: " + name + "\ncompute_nodes:\n"
          + "  - {name: a, endpoint: '127.0.0.1:7101', certificate: certs/compute-node-1.pem}\n"
          + "  - {name: b, endpoint: '127.0.0.1:7102', certificate_sha256: '" + "ab".repeat(32) + "'}"));
      assertEquals("dca", s.config().getProtocol());
      assertEquals(2, s.config().getComputeNodesCount());
      assertArrayEquals(IdentityBinding.fingerprint(IdentityBinding.certificate(Tls.Files.in(dir.resolve("certs"),
          "compute-node-1"))), s.config().getComputeNodes(0).getCertificateSha256().toByteArray());
    }
  }

  @Test
  void dcaWithoutNodesOrNodesWithoutDcaOrOneNodeAreRefusedNamingTheKey(@TempDir Path dir) throws Exception {
    String node = "  - {name: a, endpoint: '127.0.0.1:7101', certificate_sha256: '" + "ab".repeat(32) + "'}";
    for (String bad : new String[] {"summation: dca", "compute_nodes:\n" + node, "summation: dca\ncompute_nodes:\n" + node,
        "summation: dca\nprotocol: secagg"}) {
      var e = assertThrows(SessionFile.SessionFileException.class, () -> SessionFile.read(file(dir, bad)));
      assertTrue(e.getMessage().contains("compute_nodes") || e.getMessage().contains("summation"), e.getMessage());
    }
  }
}
