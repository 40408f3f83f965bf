package dev.helmet.transport;

import java.io.IOException;
import java.io.StringWriter;
import java.math.BigInteger;
import java.net.InetAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.GeneralSecurityException;
import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.security.PrivateKey;
import java.security.SecureRandom;
import java.security.cert.X509Certificate;
import java.security.spec.ECGenParameterSpec;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Base64;
import java.util.Date;
import java.util.List;
import org.bouncycastle.asn1.x500.X500Name;
import org.bouncycastle.asn1.x509.BasicConstraints;
import org.bouncycastle.asn1.x509.ExtendedKeyUsage;
import org.bouncycastle.asn1.x509.Extension;
import org.bouncycastle.asn1.x509.GeneralName;
import org.bouncycastle.asn1.x509.GeneralNames;
import org.bouncycastle.asn1.x509.KeyPurposeId;
import org.bouncycastle.asn1.x509.KeyUsage;
import org.bouncycastle.cert.X509CertificateHolder;
import org.bouncycastle.cert.X509v3CertificateBuilder;
import org.bouncycastle.cert.jcajce.JcaX509CertificateConverter;
import org.bouncycastle.cert.jcajce.JcaX509ExtensionUtils;
import org.bouncycastle.cert.jcajce.JcaX509v3CertificateBuilder;
import org.bouncycastle.openssl.jcajce.JcaPEMWriter;
import org.bouncycastle.operator.ContentSigner;
import org.bouncycastle.operator.OperatorCreationException;
import org.bouncycastle.operator.jcajce.JcaContentSignerBuilder;

/**
 * A small certificate authority for demo and test deployments ({@code helmet certs}): an ECDSA
 * P-256 CA, a server certificate for the coordinator (its host names and addresses as subject
 * alternative names) and one client certificate per participant. Production deployments should use
 * their own PKI; any PEM certificates and PKCS#8 keys work.
 */
public final class Certificates {
  private static final SecureRandom RANDOM = new SecureRandom();

  private Certificates() {}

  /** What {@link #create} wrote. */
  public record Written(Path ca, Path coordinator, List<Path> participants, List<Path> computeNodes) {}

  /**
   * Writes {@code ca.pem} (with {@code ca-key.pem}), {@code coordinator.pem} and
   * {@code participant-1.pem} ... {@code participant-N.pem}, each with its {@code -key.pem}, into
   * {@code dir}. Private keys are readable by their owner only.
   *
   * @param hosts the coordinator's host names or IP addresses (at least one)
   * @param validity how long the certificates are valid
   */
  public static Written create(Path dir, List<String> hosts, int participants, Duration validity) throws IOException {
    return create(dir, hosts, participants, 0, validity);
  }

  /** The compute nodes' host names when none are given: loopback, where the demo runs them. */
  public static final List<String> LOOPBACK = List.of("localhost", "127.0.0.1");

  /**
   * As {@link #create(Path, List, int, int, List, Duration)} with the nodes on {@link #LOOPBACK}
   * (a demo's nodes, beside the coordinator).
   */
  public static Written create(Path dir, List<String> hosts, int participants, int computeNodes, Duration validity)
      throws IOException {
    return create(dir, hosts, participants, computeNodes, LOOPBACK, validity);
  }

  /**
   * As {@link #create(Path, List, int, Duration)}, and {@code compute-node-1.pem} ...
   * {@code compute-node-M.pem}: server certificates for the nodes' own host names
   * {@code nodeHosts}, subject {@code CN=compute-node-l, OU=compute-node} (the role marker, {@link
   * NodeTls}), usable as a client too (a node may fetch the coordinator's published session). A
   * node's certificate names the nodes' hosts, not the coordinator's: it used to carry the
   * coordinator's {@code hosts}, which made it valid for the coordinator's name (security review
   * turn 3, T3-9; participants also refuse the marker on the coordinator's side,
   * {@link CoordinatorTrustManager}). Nodes that share the coordinator's host list that host here.
   *
   * @param nodeHosts the compute nodes' host names or addresses, as participants and the
   *     coordinator dial them (at least one when {@code computeNodes > 0})
   */
  public static Written create(Path dir, List<String> hosts, int participants, int computeNodes,
      List<String> nodeHosts, Duration validity) throws IOException {
    if (computeNodes < 0) {
      throw new IllegalArgumentException("compute nodes must be non-negative. Provided value: " + computeNodes);
    }
    if (hosts.isEmpty()) {
      throw new IllegalArgumentException("the coordinator needs at least one host name or address");
    }
    if (computeNodes > 0 && nodeHosts.isEmpty()) {
      throw new IllegalArgumentException("the compute nodes need at least one host name or address");
    }
    if (participants < 0) {
      throw new IllegalArgumentException("participants must be non-negative. Provided value: " + participants);
    }
    Files.createDirectories(dir);
    try {
      KeyPair caKeys = keyPair();
      X500Name caName = new X500Name("CN=" + CertificateRequests.defaultCaName("Helmet demo CA"));
      Instant now = Instant.now();
      X509v3CertificateBuilder ca = new JcaX509v3CertificateBuilder(caName, serial(), Date.from(now.minusSeconds(60)),
          Date.from(now.plus(validity)), caName, caKeys.getPublic());
      JcaX509ExtensionUtils ext = new JcaX509ExtensionUtils();
      ca.addExtension(Extension.basicConstraints, true, new BasicConstraints(0));
      ca.addExtension(Extension.keyUsage, true, new KeyUsage(KeyUsage.keyCertSign | KeyUsage.cRLSign));
      ca.addExtension(Extension.subjectKeyIdentifier, false, ext.createSubjectKeyIdentifier(caKeys.getPublic()));
      X509Certificate caCert = sign(ca, caKeys.getPrivate());
      write(dir.resolve("ca.pem"), caCert);
      writeKey(dir.resolve("ca-key.pem"), caKeys.getPrivate());

      Path coordinator = leaf(dir, "coordinator", "CN=helmet-coordinator", caCert, caKeys, now, validity,
          KeyPurposeId.id_kp_serverAuth, altNames(hosts));
      List<Path> parts = new ArrayList<>();
      for (int i = 1; i <= participants; i++) {
        parts.add(leaf(dir, "participant-" + i, "CN=participant-" + i, caCert, caKeys, now, validity,
            KeyPurposeId.id_kp_clientAuth, null));
      }
      List<Path> nodes = new ArrayList<>();
      for (int l = 1; l <= computeNodes; l++) {
        KeyPair keys = keyPair();
        X509Certificate cert = issue(new X500Name("CN=compute-node-" + l + ",OU=" + NodeTls.ROLE_MARKER), keys.getPublic(),
            caCert, caKeys.getPrivate(), now, validity, new KeyPurposeId[] {KeyPurposeId.id_kp_serverAuth,
                KeyPurposeId.id_kp_clientAuth}, altNames(nodeHosts));
        Path p = dir.resolve("compute-node-" + l + ".pem");
        write(p, cert);
        writeKey(dir.resolve("compute-node-" + l + "-key.pem"), keys.getPrivate());
        nodes.add(p);
      }
      return new Written(dir.resolve("ca.pem"), coordinator, parts, nodes);
    } catch (GeneralSecurityException | OperatorCreationException e) {
      throw new IllegalStateException("cannot create certificates: " + e.getMessage(), e);
    }
  }

  /** Subject alternative names for host names (dNSName) and literal addresses (iPAddress). */
  static GeneralNames altNames(List<String> hosts) {
    List<GeneralName> names = new ArrayList<>();
    for (String h : hosts) {
      names.add(isAddress(h) ? new GeneralName(GeneralName.iPAddress, h) : new GeneralName(GeneralName.dNSName, h));
    }
    return new GeneralNames(names.toArray(GeneralName[]::new));
  }

  static Path leaf(Path dir, String file, String subject, X509Certificate caCert, KeyPair caKeys, Instant now,
      Duration validity, KeyPurposeId purpose, GeneralNames altNames)
      throws GeneralSecurityException, OperatorCreationException, IOException {
    KeyPair keys = keyPair();
    X509Certificate cert = issue(new X500Name(subject), keys.getPublic(), caCert, caKeys.getPrivate(), now, validity,
        purpose, altNames);
    Path p = dir.resolve(file + ".pem");
    write(p, cert);
    writeKey(dir.resolve(file + "-key.pem"), keys.getPrivate());
    return p;
  }

  /**
   * An end-entity certificate (CA=false) for {@code key} with exactly one extended key usage:
   * clientAuth for a participant, serverAuth for the coordinator.
   */
  static X509Certificate issue(X500Name subject, java.security.PublicKey key, X509Certificate caCert,
      PrivateKey caKey, Instant now, Duration validity, KeyPurposeId purpose, GeneralNames altNames)
      throws GeneralSecurityException, OperatorCreationException, IOException {
    return issue(subject, key, caCert, caKey, now, validity, new KeyPurposeId[] {purpose}, altNames);
  }

  /** As above with several extended key usages (a compute node: serverAuth and clientAuth). */
  static X509Certificate issue(X500Name subject, java.security.PublicKey key, X509Certificate caCert,
      PrivateKey caKey, Instant now, Duration validity, KeyPurposeId[] purposes, GeneralNames altNames)
      throws GeneralSecurityException, OperatorCreationException, IOException {
    X509v3CertificateBuilder b = new JcaX509v3CertificateBuilder(caCert, serial(), Date.from(now.minusSeconds(60)),
        Date.from(now.plus(validity)), subject, key);
    JcaX509ExtensionUtils ext = new JcaX509ExtensionUtils();
    b.addExtension(Extension.basicConstraints, true, new BasicConstraints(false));
    b.addExtension(Extension.keyUsage, true, new KeyUsage(KeyUsage.digitalSignature | KeyUsage.keyAgreement));
    b.addExtension(Extension.extendedKeyUsage, false, new ExtendedKeyUsage(purposes));
    b.addExtension(Extension.authorityKeyIdentifier, false, ext.createAuthorityKeyIdentifier(caCert));
    if (altNames != null) {
      b.addExtension(Extension.subjectAlternativeName, false, altNames);
    }
    return sign(b, caKey);
  }

  static KeyPair keyPair() throws GeneralSecurityException {
    KeyPairGenerator g = KeyPairGenerator.getInstance("EC");
    g.initialize(new ECGenParameterSpec("secp256r1"), RANDOM);
    return g.generateKeyPair();
  }

  static BigInteger serial() {
    return new BigInteger(127, RANDOM).add(BigInteger.ONE);
  }

  static X509Certificate sign(X509v3CertificateBuilder b, PrivateKey key)
      throws OperatorCreationException, GeneralSecurityException {
    ContentSigner signer = new JcaContentSignerBuilder("SHA256withECDSA").build(key);
    X509CertificateHolder holder = b.build(signer);
    return new JcaX509CertificateConverter().getCertificate(holder);
  }

  static void write(Path p, Object pemObject) throws IOException {
    StringWriter s = new StringWriter();
    try (JcaPEMWriter w = new JcaPEMWriter(s)) {
      w.writeObject(pemObject);
    }
    Files.writeString(p, s.toString(), StandardCharsets.US_ASCII);
  }

  /** A PKCS#8 private key, readable by its owner only (where the file system has POSIX permissions). */
  static void writeKey(Path p, PrivateKey key) throws IOException {
    String pem = "-----BEGIN PRIVATE KEY-----\n"
        + Base64.getMimeEncoder(64, "\n".getBytes(StandardCharsets.US_ASCII)).encodeToString(key.getEncoded())
        + "\n-----END PRIVATE KEY-----\n";
    Files.deleteIfExists(p);
    Files.createFile(p);
    try {
      Files.setPosixFilePermissions(p, PosixFilePermissions.fromString("rw-------"));
    } catch (UnsupportedOperationException e) {
      // not a POSIX file system; the directory's permissions apply
    }
    Files.writeString(p, pem, StandardCharsets.US_ASCII);
  }

  static boolean isAddress(String h) {
    if (!h.matches("[0-9.]+") && !h.contains(":")) {
      return false;
    }
    try {
      InetAddress.getByName(h); // a literal address never triggers a lookup
      return true;
    } catch (IOException e) {
      return false;
    }
  }
}
