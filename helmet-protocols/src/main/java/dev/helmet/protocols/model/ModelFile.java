package dev.helmet.protocols.model;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.helmet.core.data.LabelSet;
import dev.helmet.core.features.FeatureStage;
import dev.helmet.core.learn.LearnerConfig;
import dev.helmet.core.learn.LearnerKind;
import dev.helmet.core.learn.LinearModel;
import dev.helmet.core.learn.Model;
import dev.helmet.core.nn.Mlp;
import dev.helmet.core.nn.MlpModel;
import dev.helmet.core.learn.SensitivityBound;
import dev.helmet.core.learn.SmoothnessBound;
import dev.helmet.core.preprocess.Preprocessing;
import dev.helmet.privacy.ledger.Guarantee;
import dev.helmet.privacy.ledger.PrivacyLedger;
import java.io.IOException;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * The JSON model file ({@code "format": "helmet-model", "version": 1}). Written atomically (a
 * temporary file renamed into place), so a crash never leaves half a model. Reading checks every
 * field and names the first one that is missing or wrong.
 */
public final class ModelFile {
  /** The format tag. */
  public static final String FORMAT = "helmet-model";
  /**
   * The newest format version, the one written; readers accept it and every older one. Version 1:
   * raw features, Helmet's learner hyperparameters in {@code learner}. 2 adds feature stages,
   * feature scaling and target bounds. 3 lets {@code learner} name only the kind (an algorithm other
   * than Helmet's, its settings in {@code provenance.algorithm_config}). 4 records every model's
   * algorithm and its own settings in {@code algorithm: {id, settings}}, and {@code learner} holds
   * only the kind; an older file reads as version 4 would record it ({@link #legacySettings}).
   */
  public static final int VERSION = 4;

  private static final ObjectMapper JSON = new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT);

  private ModelFile() {}

  /** The model as a JSON tree (always the newest version). */
  public static ObjectNode toJson(ReleasedModel m) {
    ObjectNode root = JSON.createObjectNode();
    root.put("format", FORMAT);
    root.put("version", VERSION);
    // Version 4: the algorithm that trained the model and its own settings (its canonical
    // configuration), whatever the algorithm; the learner section names only the model's kind.
    ObjectNode algorithm = root.putObject("algorithm");
    algorithm.put("id", m.algorithm());
    algorithm.set("settings", m.settings());
    root.putObject("learner").put("kind", m.kind().id());
    ObjectNode pre = root.putObject("preprocessing");
    pre.put("clip_bound", m.preprocessing().clipBound());
    pre.put("normalise", m.preprocessing().normalise());
    pre.put("intercept", true);
    if (!m.featureStage().isRaw()) {
      pre.set("feature_stage", JSON.valueToTree(m.featureStage().record()));
    }
    if (m.preprocessing().scaling() != null) {
      ObjectNode b = pre.putObject("feature_bounds");
      ArrayNode lo = b.putArray("lower");
      ArrayNode hi = b.putArray("upper");
      for (double v : m.preprocessing().scaling().lower()) {
        lo.add(v);
      }
      for (double v : m.preprocessing().scaling().upper()) {
        hi.add(v);
      }
    }
    if (m.preprocessing().target() != null) {
      pre.putObject("target_bounds").put("lower", m.preprocessing().target().lower())
          .put("upper", m.preprocessing().target().upper());
    }
    ArrayNode labels = root.putArray("labels");
    m.labels().names().forEach(labels::add);
    root.put("features", m.features());
    ObjectNode w = root.putObject("weights");
    if (m.weights() instanceof MlpModel mlp) {
      // An MLP (format version 3): its layer widths, then every parameter in Mlp's layout.
      ArrayNode widths = w.putArray("widths");
      for (int width : mlp.net().widths()) {
        widths.add(width);
      }
    } else {
      w.put("rows", m.weights().linear().rows());
      w.put("cols", m.weights().linear().cols());
    }
    ArrayNode values = w.putArray("values");
    for (double v : m.weights().parameters()) {
      values.add(v);
    }
    if (m.privacy() != null) {
      root.set("privacy", ledgerToJson(m.privacy()));
    } else {
      root.putNull("privacy");
    }
    root.set("provenance", JSON.valueToTree(m.provenance()));
    return root;
  }

  /** The ledger as JSON (also printed by the CLI). */
  public static ObjectNode ledgerToJson(PrivacyLedger l) {
    ObjectNode p = JSON.createObjectNode();
    p.put("mechanism", l.mechanism());
    p.put("neighbours", l.neighbours());
    // epsilon and delta below are the released model's guarantee, the first of guarantees
    p.put("against", l.guarantees().get(0).against());
    p.put("unit", l.unit());
    p.put("event", l.event());
    p.put("accountant", l.accountant());
    putNumber(p, "epsilon", l.epsilon());
    p.put("delta", l.delta());
    ObjectNode d = p.putObject("details");
    for (Map.Entry<String, Object> e : l.details().entrySet()) {
      d.set(e.getKey(), JSON.valueToTree(e.getValue()));
    }
    ArrayNode gs = p.putArray("guarantees");
    for (Guarantee g : l.guarantees()) {
      ObjectNode o = gs.addObject();
      o.put("against", g.against());
      o.put("neighbours", g.neighbours());
      o.put("unit", g.unit());
      putNumber(o, "epsilon", g.epsilon());
      o.put("delta", g.delta());
    }
    return p;
  }

  private static void putNumber(ObjectNode n, String key, double v) {
    if (Double.isFinite(v)) {
      n.put(key, v);
    } else {
      n.put(key, v > 0 ? "Infinity" : "NaN");
    }
  }

  /** Writes the model to {@code path} atomically. */
  public static void write(ReleasedModel m, Path path) throws IOException {
    Path abs = path.toAbsolutePath();
    Path dir = abs.getParent();
    if (dir != null) {
      Files.createDirectories(dir);
    }
    Path tmp = Files.createTempFile(dir, "." + abs.getFileName(), ".tmp");
    try {
      JSON.writeValue(tmp.toFile(), toJson(m));
      try {
        Files.move(tmp, abs, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
      } catch (AtomicMoveNotSupportedException e) {
        Files.move(tmp, abs, StandardCopyOption.REPLACE_EXISTING);
      }
    } finally {
      Files.deleteIfExists(tmp);
    }
  }

  /**
   * Reads a model file.
   *
   * @throws ModelFormatException naming the file and the first bad field
   */
  public static ReleasedModel read(Path path) {
    if (!Files.isRegularFile(path)) {
      throw new ModelFormatException(path + ": no such model file");
    }
    JsonNode root;
    try {
      root = JSON.readTree(path.toFile());
    } catch (JsonProcessingException e) {
      throw new ModelFormatException(path.getFileName() + ": not valid JSON: " + e.getOriginalMessage());
    } catch (IOException e) {
      throw new ModelFormatException(path + ": cannot read: " + e.getMessage());
    }
    return fromJson(root, path.getFileName().toString());
  }

  /** Parses a model from its JSON tree. */
  public static ReleasedModel fromJson(JsonNode root, String source) {
    Reader r = new Reader(source);
    if (root == null || !root.isObject()) {
      throw new ModelFormatException(source + ": a model file is a JSON object");
    }
    String format = r.text(root, "format");
    if (!FORMAT.equals(format)) {
      throw new ModelFormatException(source + ": format is '" + format + "', expected '" + FORMAT + "'");
    }
    int version = r.integer(root, "version");
    if (version < 1 || version > VERSION) {
      throw new ModelFormatException(source + ": model format version " + version + " is not supported (this "
          + "Helmet reads versions 1 to " + VERSION + ")");
    }
    JsonNode l = r.object(root, "learner");
    LearnerKind kind;
    try {
      kind = LearnerKind.parse(r.text(l, "kind"));
    } catch (IllegalArgumentException e) {
      throw new ModelFormatException(source + ": learner: " + e.getMessage());
    }
    String algorithmId;
    ObjectNode settings;
    if (version >= 4) {
      JsonNode a = r.object(root, "algorithm");
      algorithmId = r.text(a, "id");
      settings = (ObjectNode) r.object(a, "settings");
    } else {
      JsonNode named = root.path("provenance").path("algorithm");
      // No algorithm named: a file from before there were others, so Helmet's.
      algorithmId = named.isTextual() ? named.asText() : "helmet";
      settings = legacySettings(r, root, l, version);
    }
    JsonNode p = r.object(root, "preprocessing");
    Preprocessing pre;
    try {
      JsonNode fb = p.get("feature_bounds");
      dev.helmet.core.preprocess.FeatureScaling scaling = null;
      if (fb != null && !fb.isNull()) {
        scaling = new dev.helmet.core.preprocess.FeatureScaling(r.numbers(fb, "lower"), r.numbers(fb, "upper"));
      }
      JsonNode tb = p.get("target_bounds");
      dev.helmet.core.preprocess.TargetScaling target = null;
      if (tb != null && !tb.isNull()) {
        target = new dev.helmet.core.preprocess.TargetScaling(r.number(tb, "lower"), r.number(tb, "upper"));
      }
      pre = new Preprocessing(r.number(p, "clip_bound"), r.bool(p, "normalise"), scaling, target);
    } catch (IllegalArgumentException e) {
      throw new ModelFormatException(source + ": preprocessing: " + e.getMessage());
    }
    FeatureStage stage = FeatureStage.RAW;
    JsonNode fs = p.get("feature_stage");
    if (fs != null && !fs.isNull()) {
      if (!fs.isObject()) {
        throw new ModelFormatException(source + ": preprocessing: 'feature_stage' must be an object");
      }
      try {
        stage = FeatureStage.fromRecord(JSON.convertValue(fs, Map.class));
      } catch (IllegalArgumentException e) {
        throw new ModelFormatException(source + ": preprocessing: feature_stage: " + e.getMessage());
      }
    }
    JsonNode labelsNode = root.get("labels");
    if (labelsNode == null || !labelsNode.isArray() || labelsNode.isEmpty()) {
      throw new ModelFormatException(source + ": 'labels' must be a non-empty array");
    }
    List<String> names = new ArrayList<>();
    labelsNode.forEach(n -> names.add(n.asText()));
    int features = r.integer(root, "features");
    JsonNode w = r.object(root, "weights");
    JsonNode values = w.get("values");
    if (values == null || !values.isArray()) {
      throw new ModelFormatException(source + ": 'weights.values' must be an array");
    }
    Mlp net = null;
    int rows = 0;
    int cols = 0;
    if (w.has("widths")) {
      net = mlp(r, w.get("widths"), values.size());
    } else {
      rows = r.integer(w, "rows");
      cols = r.integer(w, "cols");
      if ((long) rows * cols != values.size() || rows <= 0 || cols <= 0) {
        throw new ModelFormatException(source + ": weights are " + rows + " x " + cols + " but "
            + values.size() + " values are given");
      }
    }
    double[] wv = new double[values.size()];
    for (int i = 0; i < wv.length; i++) {
      JsonNode v = values.get(i);
      if (!v.isNumber() || !Double.isFinite(v.asDouble())) {
        throw new ModelFormatException(source + ": weights.values[" + i + "] is not a finite number");
      }
      wv[i] = v.asDouble();
    }
    PrivacyLedger ledger = null;
    JsonNode priv = root.get("privacy");
    if (priv != null && priv.isObject()) {
      Map<String, Object> details = new LinkedHashMap<>();
      JsonNode d = priv.get("details");
      if (d != null && d.isObject()) {
        Iterator<Map.Entry<String, JsonNode>> it = d.fields();
        while (it.hasNext()) {
          Map.Entry<String, JsonNode> e = it.next();
          details.put(e.getKey(), JSON.convertValue(e.getValue(), Object.class));
        }
      }
      JsonNode eps = priv.get("epsilon");
      double epsilon = eps != null && eps.isNumber() ? eps.asDouble() : Double.POSITIVE_INFINITY;
      List<Guarantee> guarantees = new ArrayList<>();
      JsonNode gs = priv.get("guarantees");
      if (gs != null) { // absent in files written before guarantees were listed
        if (!gs.isArray()) {
          throw new ModelFormatException(source + ": 'privacy.guarantees' must be an array");
        }
        for (JsonNode g : gs) {
          JsonNode ge = g.get("epsilon");
          try {
            guarantees.add(new Guarantee(r.text(g, "against"), r.text(g, "neighbours"), r.text(g, "unit"),
                ge != null && ge.isNumber() ? ge.asDouble() : Double.POSITIVE_INFINITY, r.number(g, "delta")));
          } catch (IllegalArgumentException e) {
            throw new ModelFormatException(source + ": privacy.guarantees: " + e.getMessage());
          }
        }
      }
      ledger = new PrivacyLedger(r.text(priv, "mechanism"), r.text(priv, "neighbours"), r.text(priv, "unit"),
          r.text(priv, "event"), r.text(priv, "accountant"), epsilon, r.number(priv, "delta"), details, guarantees);
    }
    Map<String, Object> provenance = new LinkedHashMap<>();
    JsonNode prov = root.get("provenance");
    if (prov != null && prov.isObject()) {
      provenance.putAll(JSON.convertValue(prov, Map.class));
    }
    try {
      Model model = net != null ? new MlpModel(net, wv) : new LinearModel(rows, cols, wv);
      return new ReleasedModel(model, pre, LabelSet.of(names), features, kind, algorithmId, settings, ledger,
          provenance, stage);
    } catch (IllegalArgumentException e) {
      throw new ModelFormatException(source + ": " + e.getMessage());
    }
  }

  /** The architecture of an MLP's weights section, checked against its number of values. */
  private static Mlp mlp(Reader r, JsonNode widths, int values) {
    if (!widths.isArray() || widths.size() < 2) {
      throw new ModelFormatException(r.source() + ": 'weights.widths' must be an array of at least 2 layer widths");
    }
    int[] ws = new int[widths.size()];
    for (int i = 0; i < ws.length; i++) {
      JsonNode v = widths.get(i);
      if (!v.canConvertToInt() || v.asInt() < 1) {
        throw new ModelFormatException(r.source() + ": weights.widths[" + i + "] must be a positive integer");
      }
      ws[i] = v.asInt();
    }
    Mlp net;
    try {
      net = new Mlp(ws);
    } catch (IllegalArgumentException e) {
      throw new ModelFormatException(r.source() + ": weights.widths: " + e.getMessage());
    }
    if (net.parameterCount() != values) {
      throw new ModelFormatException(r.source() + ": an MLP " + net + " has " + net.parameterCount()
          + " parameters but " + values + " values are given");
    }
    return net;
  }

  private record Reader(String source) {
    JsonNode field(JsonNode n, String key) {
      JsonNode v = n.get(key);
      if (v == null || v.isNull()) {
        throw new ModelFormatException(source + ": missing field '" + key + "'");
      }
      return v;
    }

    String text(JsonNode n, String key) {
      JsonNode v = field(n, key);
      if (!v.isTextual()) {
        throw new ModelFormatException(source + ": field '" + key + "' must be a string");
      }
      return v.asText();
    }

    double[] numbers(JsonNode n, String key) {
      JsonNode v = field(n, key);
      if (!v.isArray()) {
        throw new ModelFormatException(source + ": field '" + key + "' must be an array of numbers");
      }
      double[] out = new double[v.size()];
      for (int i = 0; i < out.length; i++) {
        if (!v.get(i).isNumber()) {
          throw new ModelFormatException(source + ": field '" + key + "' element " + i + " must be a number");
        }
        out[i] = v.get(i).asDouble();
      }
      return out;
    }

    double number(JsonNode n, String key) {
      JsonNode v = field(n, key);
      if (!v.isNumber()) {
        throw new ModelFormatException(source + ": field '" + key + "' must be a number");
      }
      return v.asDouble();
    }

    int integer(JsonNode n, String key) {
      JsonNode v = field(n, key);
      if (!v.canConvertToInt() || !v.isIntegralNumber()) {
        throw new ModelFormatException(source + ": field '" + key + "' must be an integer");
      }
      return v.asInt();
    }

    boolean bool(JsonNode n, String key) {
      JsonNode v = field(n, key);
      if (!v.isBoolean()) {
        throw new ModelFormatException(source + ": field '" + key + "' must be true or false");
      }
      return v.asBoolean();
    }

    JsonNode object(JsonNode n, String key) {
      JsonNode v = field(n, key);
      if (!v.isObject()) {
        throw new ModelFormatException(source + ": field '" + key + "' must be an object");
      }
      return v;
    }
  }

  /**
   * The settings a version 1 to 3 file records, as version 4 would: its {@code
   * provenance.algorithm_config} where a runner put one there, with Helmet's learner section (which
   * those versions wrote for Helmet's models) as its {@code learner}. A learner section without a
   * {@code sensitivity} was written before the tight bound existed: its noise was sized with the
   * papers' L, so it reads as {@code paper}, never as the newer default.
   */
  private static ObjectNode legacySettings(Reader r, JsonNode root, JsonNode l, int version) {
    JsonNode config = root.path("provenance").path("algorithm_config");
    ObjectNode settings = config.isObject() ? ((ObjectNode) config).deepCopy() : JSON.createObjectNode();
    if (!l.has("lambda") && version >= 3) {
      return settings; // version 3, an algorithm other than Helmet's: the kind alone
    }
    LearnerConfig c;
    try {
      c = new LearnerConfig(
          LearnerKind.parse(r.text(l, "kind")),
          r.number(l, "lambda"),
          r.number(l, "radius"),
          r.integer(l, "epochs"),
          r.integer(l, "batch_size"),
          SmoothnessBound.valueOf(r.text(l, "smoothness").toUpperCase(Locale.ROOT)),
          r.number(l, "huber_h"),
          l.hasNonNull("sensitivity")
              ? SensitivityBound.valueOf(r.text(l, "sensitivity").toUpperCase(Locale.ROOT))
              : SensitivityBound.PAPER);
    } catch (IllegalArgumentException e) {
      throw new ModelFormatException(r.source() + ": learner: " + e.getMessage());
    }
    JsonNode had = settings.path("learner");
    ObjectNode learner = had.isObject() ? (ObjectNode) had : settings.putObject("learner");
    learner.put("kind", c.kind().id());
    learner.put("lambda", c.lambda());
    learner.put("radius", c.radius());
    learner.put("epochs", c.epochs());
    learner.put("batch_size", c.batchSize());
    learner.put("smoothness", c.smoothness().name().toLowerCase(Locale.ROOT));
    learner.put("huber_h", c.huberH());
    learner.put("sensitivity", c.sensitivity().name().toLowerCase(Locale.ROOT));
    return settings;
  }
}
