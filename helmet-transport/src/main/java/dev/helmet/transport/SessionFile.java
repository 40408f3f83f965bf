package dev.helmet.transport;

import dev.helmet.protocols.shared.CommonDefaults;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import dev.helmet.core.data.ImageShape;
import dev.helmet.core.features.FeatureStage;
import dev.helmet.protocols.algorithm.Algorithm;
import dev.helmet.protocols.algorithm.AlgorithmSpec;
import dev.helmet.protocols.algorithm.Algorithms;
import dev.helmet.protocols.config.StrictNode;
import dev.helmet.transport.wire.ComputeNodeEntry;
import dev.helmet.transport.wire.Deadlines;
import dev.helmet.transport.wire.PrivacySpec;
import dev.helmet.transport.wire.SessionConfig;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashSet;
import java.util.List;

/**
 * The coordinator's session file (YAML or JSON). Every key is checked: an unknown or mistyped key,
 * a missing required key or an out-of-range value is an error that names the key. Keys and their
 * defaults are listed in docs/deployment.md; a minimal file:
 *
 * <pre>
 * name: mnist-softmax
 * dataset: mnist-hospitals        # the data set the privacy budget is charged to
 * parties: 50
 * features: 784
 * labels: [0, 1, 2, 3, 4, 5, 6, 7, 8, 9]
 * budget: {epsilon: 2.0, delta: 1.0e-4}
 * tls: {certificate: certs/coordinator.pem, key: certs/coordinator-key.pem, ca: certs/ca.pem}
 * </pre>
 *
 * <p>A regression session (wd-dp's linreg) says {@code targets: numeric} instead of listing labels,
 * and gives public target bounds under {@code learner: {target_bounds: {lower, upper}}}; each
 * participant's label column is then read as numbers.
 */
public final class SessionFile {
  /** The most points a party may claim unless the session file says otherwise. */
  public static final int DEFAULT_MAX_POINTS = 1_000_000;

  private SessionFile() {}

  /** A session file that does not parse or validate; the message names the key. */
  public static final class SessionFileException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    public SessionFileException(String message) {
      super(message);
    }
  }

  /** Reads {@code path} into coordinator settings; relative TLS and database paths resolve against its folder. */
  public static Coordinator.Settings read(Path path) {
    return read(path, null);
  }

  /**
   * Reads {@code path}; {@code algorithm}, if given, is the algorithm the session runs when the file
   * names none, and a file that names another is refused.
   */
  public static Coordinator.Settings read(Path path, String algorithm) {
    JsonNode root;
    try {
      root = new ObjectMapper(new YAMLFactory()).readTree(Files.readString(path));
    } catch (JsonProcessingException e) {
      throw new SessionFileException(path + ": not valid YAML: " + e.getOriginalMessage());
    } catch (IOException e) {
      throw new SessionFileException(path + ": cannot read: " + e.getMessage());
    }
    if (root == null || !root.isObject()) {
      throw new SessionFileException(path + ": expected a mapping of keys to values");
    }
    if (algorithm != null) {
      JsonNode named = root.get("algorithm");
      if (named != null && !named.asText().equals(algorithm)) {
        throw new SessionFileException(path + ": algorithm is " + named.asText() + " but --algorithm " + algorithm
            + " was given");
      }
      ((com.fasterxml.jackson.databind.node.ObjectNode) root).put("algorithm", algorithm);
    }
    return parse(new StrictNode(path.toString(), root, SessionFileException::new), path.toAbsolutePath().getParent());
  }

  /** The keys every session file may have, whatever its algorithm. */
  static final List<String> COMMON_KEYS = List.of("name", "dataset", "protocol", "parties", "min_contributors",
      "colluding_fraction", "max_points", "ring_bits", "features", "labels", "targets", "privacy", "deadlines", "listen",
      "tls", "plaintext", "database", "budget", "upload_slots", "algorithm", "feature_stage", "image_shape", "summation",
      "compute_nodes");

  /**
   * The compute nodes of a dca session: each with name, endpoint (host:port) and either
   * certificate_sha256 (hex) or certificate (a PEM file, whose SHA-256 is taken).
   */
  static List<ComputeNodeEntry> computeNodes(StrictNode n, String protocol, Path base) {
    if (!protocol.equals("dca")) {
      if (n.has("compute_nodes")) {
        throw n.error("compute_nodes", "are for summation dca; " + protocol + " sums without them");
      }
      return List.of();
    }
    if (!n.has("compute_nodes")) {
      throw n.error("compute_nodes", "are required for summation dca: list each node's name, endpoint and certificate "
          + "(or certificate_sha256)");
    }
    List<ComputeNodeEntry> out = new java.util.ArrayList<>();
    for (StrictNode e : n.children("compute_nodes")) {
      e.allow("name", "endpoint", "certificate_sha256", "certificate");
      byte[] digest;
      if (e.has("certificate_sha256") == e.has("certificate")) {
        throw e.error("certificate_sha256", "give exactly one of certificate_sha256 (hex) and certificate (a PEM file)");
      } else if (e.has("certificate")) {
        Path pem = base.resolve(e.string("certificate", null));
        try (var in = Files.newInputStream(pem)) {
          digest = SessionPlan.sha256(java.security.cert.CertificateFactory.getInstance("X.509").generateCertificate(in)
              .getEncoded());
        } catch (IOException | java.security.GeneralSecurityException ex) {
          throw e.error("certificate", "cannot read the certificate " + pem + ": " + ex.getMessage());
        }
      } else {
        try {
          digest = java.util.HexFormat.of().parseHex(e.string("certificate_sha256", null).replace(":", ""));
        } catch (IllegalArgumentException ex) {
          throw e.error("certificate_sha256", "must be 64 hex digits. Provided value: " + e.string("certificate_sha256",
              null));
        }
      }
      out.add(ComputeNodeEntry.newBuilder().setName(e.string("name", null)).setEndpoint(e.string("endpoint", null))
          .setCertificateSha256(com.google.protobuf.ByteString.copyFrom(digest)).build());
    }
    return out;
  }

  static Coordinator.Settings parse(StrictNode n, Path base) {
    Algorithm algorithm;
    try {
      algorithm = Algorithms.named(n.string("algorithm", Algorithms.DEFAULT));
    } catch (IllegalArgumentException e) {
      throw n.error("algorithm", "names an " + e.getMessage());
    }
    java.util.Set<String> allowed = new LinkedHashSet<>(COMMON_KEYS);
    allowed.addAll(algorithm.keys());
    n.allow(allowed.toArray(String[]::new));
    int parties = n.integer("parties", null, 2, 1_000_000);
    int minContributors = n.integer("min_contributors", parties - (int) Math.floor(0.1 * parties), 1, parties);
    StrictNode privacy = n.child("privacy");
    privacy.allow("epsilon", "delta", "honest_fraction", "protection", "group_size");
    StrictNode deadlines = n.child("deadlines");
    deadlines.allow("enrolment_seconds", "round_seconds");
    String targets = n.string("targets", "classes");
    if (!targets.equals("classes") && !targets.equals("numeric")) {
      throw n.error("targets", "must be classes or numeric (regression). Provided value: " + targets);
    }
    List<String> labels;
    if (targets.equals("numeric")) {
      if (n.has("labels")) {
        throw n.error("labels", "a session with numeric targets (regression) has no labels");
      }
      labels = dev.helmet.core.data.TabularData.NO_CLASSES.names();
    } else {
      labels = n.strings("labels");
      if (labels.size() < 2 || new LinkedHashSet<>(labels).size() != labels.size()) {
        throw n.error("labels", "must list at least 2 distinct labels");
      }
    }
    // summation: is protocol: under its newer name; dca's old name compute-servers is accepted.
    if (n.has("summation") && n.has("protocol") && !n.string("summation", null).equals(n.string("protocol", null))) {
      throw n.error("summation", "and protocol name the same thing (protocol is the old name); give one of them");
    }
    String key = n.has("summation") ? "summation" : "protocol";
    String protocol = n.string(key, "secagg+");
    if (protocol.equals("compute-servers")) {
      protocol = "dca";
    }
    if (!protocol.equals("secagg+") && !protocol.equals("secagg") && !protocol.equals("dca")) {
      throw n.error(key, "must be secagg+, secagg or dca (compute-servers, its old name). Provided value: " + protocol);
    }
    List<ComputeNodeEntry> nodes = computeNodes(n, protocol, base);
    double honest = privacy.number("honest_fraction", CommonDefaults.HONEST_FRACTION, 1e-9, 1);
    // The feature stage (raw, scatter, hog) the participants apply to their raw images; with one,
    // `features` is its output dimension and may be left out.
    FeatureStage stage;
    String stageName = n.string("feature_stage", "raw");
    String shape = n.string("image_shape", "");
    if (!stageName.equalsIgnoreCase("raw") && shape.isEmpty()) {
      throw n.error("feature_stage", stageName + " needs image_shape: HxW, the shape of the participants' images "
          + "(e.g. 28x28)");
    }
    try {
      stage = FeatureStage.parse(stageName, shape.isEmpty() ? null : ImageShape.parse(shape));
    } catch (IllegalArgumentException e) {
      throw n.error("feature_stage", e.getMessage());
    }
    int features = stage.isRaw()
        ? n.integer("features", null, 1, 100_000_000)
        : n.integer("features", stage.transform().outputDimension(), 1, 100_000_000);
    if (features != stage.outputDimension(features)) {
      throw n.error("features", "the " + stage.describe() + " stage gives " + stage.outputDimension(features)
          + " features. Provided value: " + features);
    }
    SessionConfig.Builder b = SessionConfig.newBuilder()
        .setAlgorithm(algorithm.id())
        .setName(n.string("name", null))
        .setDataset(n.string("dataset", null))
        .setProtocol(protocol)
        .addAllComputeNodes(nodes)
        .setParties(parties)
        .setMinContributors(minContributors)
        // Default: as many colluders as the noise assumes may be dishonest (1 - honest_fraction).
        .setColludingFraction(n.number("colluding_fraction", 1 - honest, 0, 0.99))
        .setMaxPoints(n.integer("max_points", DEFAULT_MAX_POINTS, 1, Integer.MAX_VALUE))
        .setRingBits(n.integer("ring_bits", 0, 0, 64))
        .setFeatures(features)
        .setFeatureStage(SessionPlan.featureStageBytes(stage))
        .addAllLabels(labels)
        .setPrivacy(PrivacySpec.newBuilder()
            .setEpsilon(privacy.number("epsilon", CommonDefaults.EPSILON, 1e-6, 1e6))
            .setDelta(privacy.number("delta", CommonDefaults.DELTA, 1e-300, 0.5))
            .setHonestFraction(honest)
            .setProtection(privacy.string("protection", "record"))
            .setGroupSize(privacy.integer("group_size", 1, 1, 1_000_000)))
        .setDeadlines(Deadlines.newBuilder()
            .setEnrolmentSeconds(deadlines.integer("enrolment_seconds", 300, 1, 7 * 24 * 3600))
            .setRoundSeconds(deadlines.integer("round_seconds", 60, 1, 24 * 3600)))
        // Filled in by the coordinator at start; placeholders here so the rest can be validated.
        .setSessionId(com.google.protobuf.ByteString.copyFrom(new byte[16]))
        .setGraphNonceCommitment(com.google.protobuf.ByteString.copyFrom(new byte[32]));
    // The algorithm reads its own keys from the same file, strictly, and publishes them in
    // canonical form (every default filled in).
    AlgorithmSpec spec;
    try {
      spec = algorithm.configure(n, SessionPlan.common(b.build()));
    } catch (IllegalArgumentException e) {
      throw new SessionFileException(e.getMessage().startsWith(n.source()) ? e.getMessage()
          : n.source() + ": " + e.getMessage());
    }
    SessionConfig config = b.setAlgorithmConfig(SessionPlan.algorithmConfig(spec)).build();
    try {
      SessionPlan.validate(config);
    } catch (IllegalArgumentException e) {
      throw new SessionFileException(n.source() + ": " + e.getMessage());
    }

    String listen = n.string("listen", "127.0.0.1:7443");
    int colon = listen.lastIndexOf(':');
    if (colon <= 0) {
      throw n.error("listen", "must be host:port. Provided value: " + listen);
    }
    String host = listen.substring(0, colon).replace("[", "").replace("]", "");
    int port;
    try {
      port = Integer.parseInt(listen.substring(colon + 1));
    } catch (NumberFormatException e) {
      throw n.error("listen", "must be host:port. Provided value: " + listen);
    }
    if (port < 0 || port > 65535) {
      throw n.error("listen", "port must be in [0, 65535]. Provided value: " + port);
    }
    boolean plaintext = n.bool("plaintext", false);
    Tls.Files tls = null;
    if (n.has("tls")) {
      if (plaintext) {
        throw n.error("plaintext", "cannot be combined with tls");
      }
      StrictNode t = n.child("tls");
      t.allow("certificate", "key", "ca");
      try {
        tls = new Tls.Files(base.resolve(t.string("certificate", null)), base.resolve(t.string("key", null)),
            base.resolve(t.string("ca", null)));
      } catch (IllegalArgumentException e) {
        throw new SessionFileException(n.source() + ": tls: " + e.getMessage());
      }
    } else if (!plaintext) {
      throw n.error("tls", "is required (mutual TLS; create certificates with `helmet certs`), or set plaintext: true"
          + " for a loopback test");
    }
    StrictNode db = n.child("database");
    db.allow("url", "user", "password");
    String url = db.string("url", "jdbc:h2:file:" + base.resolve("helmet-coordinator").toAbsolutePath());
    // The data set's total (eps, delta) over all sessions: recorded the first time the data set is
    // named; afterwards the file may repeat it or leave it out, and only `helmet budget set` changes it.
    StrictNode budget = n.child("budget");
    budget.allow("epsilon", "delta");
    double budgetEpsilon = n.has("budget") ? budget.number("epsilon", null, 1e-9, 1e9) : Double.NaN;
    double budgetDelta = n.has("budget") ? budget.number("delta", null, 0, 1) : Double.NaN;
    return new Coordinator.Settings(config, host, port, tls, url, db.text("user"), db.text("password"),
        budgetEpsilon, budgetDelta, n.integer("upload_slots", 16, 1, 10_000));
  }
}
