package dev.helmet.transport;

import java.io.IOException;
import java.io.Reader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyFactory;
import java.security.KeyPair;
import java.security.PrivateKey;
import java.security.PublicKey;
import java.security.cert.CertificateFactory;
import java.security.cert.X509Certificate;
import java.security.spec.PKCS8EncodedKeySpec;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Base64;
import java.util.Date;
import java.util.List;
import org.bouncycastle.asn1.x500.X500Name;
import org.bouncycastle.asn1.x509.BasicConstraints;
import org.bouncycastle.asn1.x509.Extension;
import org.bouncycastle.asn1.x509.GeneralName;
import org.bouncycastle.asn1.x509.GeneralNames;
import org.bouncycastle.asn1.x509.KeyPurposeId;
import org.bouncycastle.asn1.x509.KeyUsage;
import org.bouncycastle.cert.X509v3CertificateBuilder;
import org.bouncycastle.cert.jcajce.JcaX509ExtensionUtils;
import org.bouncycastle.cert.jcajce.JcaX509v3CertificateBuilder;
import org.bouncycastle.openssl.PEMParser;
import org.bouncycastle.operator.OperatorCreationException;
import org.bouncycastle.operator.jcajce.JcaContentSignerBuilder;
import org.bouncycastle.operator.jcajce.JcaContentVerifierProviderBuilder;
import org.bouncycastle.pkcs.PKCS10CertificationRequest;
import org.bouncycastle.pkcs.PKCSException;
import org.bouncycastle.pkcs.jcajce.JcaPKCS10CertificationRequest;
import org.bouncycastle.pkcs.jcajce.JcaPKCS10CertificationRequestBuilder;

/**
 * The certificate flow for a real deployment, where no private key leaves the machine it was made
 * on: an offline CA ({@link #createCa}), a key and signing request made on each participant's (and
 * the coordinator's) own machine ({@link #request}), and the CA signing each request for the role
 * it decides ({@link #sign}): participants get clientAuth only and CA=false, the coordinator
 * serverAuth only, so the coordinator's certificate can never vouch for a participant's identity
 * key. The CA should not be run by the coordinator's operator.
 */
public final class CertificateRequests {
  private CertificateRequests() {}

  /** Who a certificate is for; the CA, not the requester, decides. */
  public enum Role {
    PARTICIPANT,
    COORDINATOR,
    /** A compute node of dca sessions: serverAuth and clientAuth, subject marked OU=compute-node. */
    COMPUTE_NODE;

    /** Parses "participant", "coordinator" or "compute-node". */
    public static Role parse(String s) {
      return switch (s.toLowerCase(java.util.Locale.ROOT)) {
        case "participant" -> PARTICIPANT;
        case "coordinator" -> COORDINATOR;
        case "compute-node" -> COMPUTE_NODE;
        default -> throw new IllegalArgumentException("role must be participant or coordinator (or compute-node, for "
            + "a dca session's compute node). Provided value: " + s);
      };
    }
  }

  /**
   * A CA name of its own: {@code PREFIX ID DATE}, e.g. {@code Helmet CA 3f9a1c2e 2026-12-03}, with a
   * fresh random 32-bit ID and today's date (UTC), so that a certificate of another CA is told apart
   * by its issuer in every log line. No host name: the CA's machine is nobody else's business.
   */
  public static String defaultCaName(String prefix) {
    byte[] id = new byte[4];
    new java.security.SecureRandom().nextBytes(id);
    return prefix + " " + java.util.HexFormat.of().formatHex(id) + " "
        + java.time.LocalDate.now(java.time.ZoneOffset.UTC);
  }

  /**
   * The subject a signing request asks for, as {@code sign} would put it in the certificate (before
   * the role's marker), after checking the request's self-signature.
   */
  public static String requestSubject(Path csrFile) throws IOException {
    return readRequest(csrFile).getSubject().toString();
  }

  /** Writes {@code ca.pem} and {@code ca-key.pem} (owner-only) into {@code dir}. */
  public static Path createCa(Path dir, String name, Duration validity) throws IOException {
    Files.createDirectories(dir);
    if (Files.exists(dir.resolve("ca-key.pem"))) {
      throw new IllegalArgumentException(dir.resolve("ca-key.pem") + " exists; refusing to replace a CA key");
    }
    try {
      KeyPair keys = Certificates.keyPair();
      X500Name caName = new X500Name("CN=" + name);
      Instant now = Instant.now();
      X509v3CertificateBuilder ca = new JcaX509v3CertificateBuilder(caName, Certificates.serial(),
          Date.from(now.minusSeconds(60)), Date.from(now.plus(validity)), caName, keys.getPublic());
      ca.addExtension(Extension.basicConstraints, true, new BasicConstraints(0));
      ca.addExtension(Extension.keyUsage, true, new KeyUsage(KeyUsage.keyCertSign | KeyUsage.cRLSign));
      ca.addExtension(Extension.subjectKeyIdentifier, false,
          new JcaX509ExtensionUtils().createSubjectKeyIdentifier(keys.getPublic()));
      Certificates.write(dir.resolve("ca.pem"), Certificates.sign(ca, keys.getPrivate()));
      Certificates.writeKey(dir.resolve("ca-key.pem"), keys.getPrivate());
      return dir.resolve("ca.pem");
    } catch (GeneralSecurityException | OperatorCreationException e) {
      throw new IllegalStateException("cannot create the CA: " + e.getMessage(), e);
    }
  }

  /**
   * On the requester's machine: writes {@code NAME-key.pem} (owner-only; it never leaves) and
   * {@code NAME.csr} (to send to the CA) into {@code dir}.
   *
   * @return the signing request's path
   */
  public static Path request(Path dir, String name) throws IOException {
    if (!name.matches("[A-Za-z0-9._-]{1,64}")) {
      throw new IllegalArgumentException("name must be 1 to 64 letters, digits, '.', '_' or '-'. Provided value: "
          + name);
    }
    Files.createDirectories(dir);
    try {
      KeyPair keys = Certificates.keyPair();
      PKCS10CertificationRequest csr = new JcaPKCS10CertificationRequestBuilder(new X500Name("CN=" + name),
          keys.getPublic()).build(new JcaContentSignerBuilder("SHA256withECDSA").build(keys.getPrivate()));
      Certificates.writeKey(dir.resolve(name + "-key.pem"), keys.getPrivate());
      Path out = dir.resolve(name + ".csr");
      Certificates.write(out, csr);
      return out;
    } catch (GeneralSecurityException | OperatorCreationException e) {
      throw new IllegalStateException("cannot create the signing request: " + e.getMessage(), e);
    }
  }

  /**
   * At the CA: checks the request's self-signature and issues a certificate for {@code role}, its
   * subject taken from the request, written to {@code out}.
   *
   * @param hosts for a coordinator: its host names and addresses (at least one); else ignored
   */
  public static Path sign(Path caDir, Path csrFile, Role role, List<String> hosts, Duration validity, Path out)
      throws IOException {
    X509Certificate caCert;
    try (var in = Files.newInputStream(caDir.resolve("ca.pem"))) {
      caCert = (X509Certificate) CertificateFactory.getInstance("X.509").generateCertificate(in);
    } catch (GeneralSecurityException e) {
      throw new IllegalArgumentException("cannot read " + caDir.resolve("ca.pem") + ": " + e.getMessage(), e);
    }
    PrivateKey caKey = readKey(caDir.resolve("ca-key.pem"));
    JcaPKCS10CertificationRequest csr = readRequest(csrFile);
    if (role != Role.PARTICIPANT && hosts.isEmpty()) {
      throw new IllegalArgumentException("a " + role.name().toLowerCase(java.util.Locale.ROOT).replace('_', '-')
          + " certificate needs at least one host name or address");
    }
    // A subject is printed in logs, on consoles and on the status page: one holding control or
    // invisible characters (a newline, a terminal escape) could forge lines there, so it is refused
    // (the attacker's third read of security review turn 3).
    String asked = csr.getSubject().toString();
    if (PeerText.hasInvisible(asked)) {
      throw new IllegalArgumentException(csrFile + ": the request's subject holds control or invisible characters ("
          + PeerText.printable(asked, 200) + "); a certificate's name must be plain text");
    }
    // The CA, not the requester, decides the role: only a compute node's certificate carries the
    // marker, and a request that claims it for another role is refused.
    if (role != Role.COMPUTE_NODE && csr.getSubject().toString().toLowerCase(java.util.Locale.ROOT)
        .contains("ou=" + NodeTls.ROLE_MARKER)) {
      throw new IllegalArgumentException(csrFile + ": the request's subject carries OU=" + NodeTls.ROLE_MARKER
          + ", which only a compute node's certificate may");
    }
    try {
      PublicKey key = csr.getPublicKey();
      GeneralNames names = null;
      if (role != Role.PARTICIPANT) {
        List<GeneralName> list = new ArrayList<>();
        for (String h : hosts) {
          list.add(Certificates.isAddress(h) ? new GeneralName(GeneralName.iPAddress, h)
              : new GeneralName(GeneralName.dNSName, h));
        }
        names = new GeneralNames(list.toArray(GeneralName[]::new));
      }
      X509Certificate cert = role == Role.COMPUTE_NODE
          ? Certificates.issue(new X500Name(csr.getSubject() + ",OU=" + NodeTls.ROLE_MARKER), key, caCert, caKey,
              Instant.now(), validity, new KeyPurposeId[] {KeyPurposeId.id_kp_serverAuth, KeyPurposeId.id_kp_clientAuth},
              names)
          : Certificates.issue(csr.getSubject(), key, caCert, caKey, Instant.now(), validity,
              role == Role.COORDINATOR ? KeyPurposeId.id_kp_serverAuth : KeyPurposeId.id_kp_clientAuth, names);
      Certificates.write(out, cert);
      return out;
    } catch (GeneralSecurityException | OperatorCreationException e) {
      throw new IllegalStateException("cannot sign " + csrFile + ": " + e.getMessage(), e);
    }
  }

  /** Reads a PEM signing request and checks its self-signature. */
  private static JcaPKCS10CertificationRequest readRequest(Path csrFile) throws IOException {
    try (Reader r = Files.newBufferedReader(csrFile, StandardCharsets.US_ASCII); PEMParser p = new PEMParser(r)) {
      Object o = p.readObject();
      if (!(o instanceof PKCS10CertificationRequest req)) {
        throw new IllegalArgumentException(csrFile + " is not a PEM certificate signing request");
      }
      JcaPKCS10CertificationRequest csr = new JcaPKCS10CertificationRequest(req);
      if (!csr.isSignatureValid(new JcaContentVerifierProviderBuilder().build(csr.getPublicKey()))) {
        throw new IllegalArgumentException(csrFile + ": the request's signature does not verify");
      }
      return csr;
    } catch (GeneralSecurityException | OperatorCreationException | PKCSException | IOException
        | RuntimeException e) {
      if (e instanceof IllegalArgumentException iae && iae.getMessage().startsWith(csrFile.toString())) {
        throw iae;
      }
      throw new IllegalArgumentException(csrFile + ": not a valid signing request: " + e.getMessage(), e);
    }
  }

  private static PrivateKey readKey(Path p) throws IOException {
    try {
      String pem = Files.readString(p, StandardCharsets.US_ASCII);
      String b64 = pem.replaceAll("-----[A-Z ]+-----", "").replaceAll("\\s", "");
      return KeyFactory.getInstance("EC").generatePrivate(new PKCS8EncodedKeySpec(Base64.getDecoder().decode(b64)));
    } catch (GeneralSecurityException | IllegalArgumentException e) {
      throw new IllegalArgumentException("cannot read the CA key " + p + " (an EC key in PKCS#8 PEM): "
          + e.getMessage(), e);
    }
  }
}
