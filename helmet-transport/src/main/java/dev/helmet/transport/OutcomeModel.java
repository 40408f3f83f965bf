package dev.helmet.transport;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.StreamReadConstraints;
import com.fasterxml.jackson.core.exc.StreamConstraintsException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.google.protobuf.ByteString;
import dev.helmet.protocols.algorithm.AlgorithmSpec;
import dev.helmet.protocols.model.ModelFile;
import dev.helmet.protocols.model.ModelFormatException;
import dev.helmet.protocols.model.ReleasedModel;
import dev.helmet.transport.wire.SessionConfig;
import java.io.IOException;
import java.io.InputStream;
import java.util.zip.GZIPInputStream;

/**
 * The released model of a coordinator's Outcome, read within bounds the participant derives from
 * the session it accepted, never from what it is sent.
 *
 * <p>Why a byte cap is not enough (security review turn 3, T3-7): a JSON tree costs far more than
 * its text where the text is mostly structure; a gzip of {@code [{},{},...]} within a fixed 256 MiB
 * cap parsed into 28 times its size (about 7 GiB from a 255 KiB Outcome). Here the document is
 * bounded in bytes <em>and</em> in tokens, each linear in the number of values an honest model
 * holds: its d parameters and its 2 x features feature bounds. Every token becomes at most one
 * node of the tree, so the tree is at most a fixed amount plus a small constant times the honest
 * model's own size, whatever the coordinator sends; the parser refuses the first token past the
 * bound, before the tree grows beyond it. Nesting, number, string and name lengths are bounded as
 * well (an honest model nests a few levels and prints doubles in at most 24 characters). Once
 * parsed, the model must have exactly the parameters the participant's own algorithm releases.
 *
 * <p>An honest model's JSON has a few kilobytes and a few hundred tokens besides its values
 * (learner, preprocessing, feature stage, labels, ledger, provenance; the names and labels come
 * from the published configuration, counted in {@link #CONFIG_EXPANSION}), and each value is
 * printed in at most about 26 bytes ({@code ", -1.2345678901234567E-300"}); the slack below is
 * many times that. The participant has sent everything when it reads the model: a refusal only
 * means it reports no model (its ledger keeps what it sent), never a privacy loss.
 */
final class OutcomeModel {
  /** Bytes allowed besides the values: the model's fixed sections, many times over. */
  static final long FIXED_BYTES = 1L << 20;
  /** Bytes allowed per value (parameter or feature bound), more than twice what one is printed in. */
  static final int BYTES_PER_VALUE = 64;
  /**
   * Bytes allowed per byte of the published configuration (the session's name, data set and labels
   * recur in the model, and JSON may write one byte as a six-byte escape).
   */
  static final int CONFIG_EXPANSION = 6;
  /** Tokens allowed besides one per value (an honest model has a few hundred). */
  static final long FIXED_TOKENS = 1L << 16;
  /** The deepest nesting allowed (an honest model nests at most about six levels). */
  static final int MAX_NESTING = 32;
  /** The longest number allowed, in characters (a double prints in at most 24). */
  static final int MAX_NUMBER_CHARS = 64;
  /** The longest field name allowed, in characters. */
  static final int MAX_NAME_CHARS = 4096;
  /** The longest string allowed besides the configuration's own bytes (descriptions of the mechanism). */
  static final int STRING_SLACK_CHARS = 64 << 10;

  private OutcomeModel() {}

  /**
   * The bounds for one session's released model.
   *
   * @param parameters the parameters the participant's algorithm releases
   * @param bytes the longest decompressed document
   * @param tokens the most JSON tokens
   * @param stringChars the longest string
   */
  record Limits(int parameters, long bytes, long tokens, int stringChars, JsonNode featureStage) {
    /** The bounds for the model of {@code spec} under the published {@code config}. */
    static Limits of(AlgorithmSpec spec, SessionConfig config) {
      long values = (long) spec.modelParameters() + 2 * config.getFeatures();
      // What of the configuration recurs in the model (names, labels, settings) is bounded by its
      // size, but at most CONFIG_BYTES_COUNTED: a configuration padded with unknown fields must not
      // raise the bound (the attacker's read of T3-7: 16 MiB of them raised it to 100 MB).
      long configBytes = Math.min(config.getSerializedSize(), CONFIG_BYTES_COUNTED);
      dev.helmet.core.features.FeatureStage stage = SessionPlan.featureStage(config);
      return new Limits(spec.modelParameters(), FIXED_BYTES + BYTES_PER_VALUE * values + CONFIG_EXPANSION * configBytes,
          FIXED_TOKENS + values + config.getLabelsCount(),
          (int) Math.min(Integer.MAX_VALUE, STRING_SLACK_CHARS + CONFIG_EXPANSION * configBytes),
          stage.isRaw() ? null : new ObjectMapper().valueToTree(stage.record()));
    }
  }

  /** The most of the configuration's serialized size that counts towards the model's bounds. */
  static final long CONFIG_BYTES_COUNTED = 1 << 20;

  /**
   * Reads the gzipped model JSON within {@code limits}.
   *
   * @param source names the model in errors
   * @throws ModelFormatException naming the bound exceeded, or the first bad field, or a shape
   *     other than the participant's own algorithm's
   */
  static ReleasedModel read(ByteString gzip, Limits limits, String source) {
    String bound = "a session releasing " + limits.parameters() + " parameters allows " + limits.bytes() + " bytes and "
        + limits.tokens() + " JSON tokens";
    JsonNode root;
    // The bytes are bounded twice: by the parser (which stops reading) and by the stream, so no
    // more is ever decompressed whatever the parser does with its input.
    try (InputStream in = Bounded.stream(new GZIPInputStream(gzip.newInput()), limits.bytes(), source)) {
      root = new ObjectMapper(factory(limits)).readTree(in);
    } catch (StreamConstraintsException e) {
      throw new ModelFormatException(source + " is larger than " + bound + ": " + e.getOriginalMessage());
    } catch (IOException e) {
      throw new ModelFormatException(source + " does not parse (" + bound + "): " + e.getMessage());
    }
    // The model's feature stage must be the session's, compared as data before anything is built
    // from it: a transform's settings (a scattering's shape, J, L) size its filter bank, and a
    // coordinator that chose them made the participant allocate gigabytes (the attacker's read of T3-7).
    JsonNode stage = root.path("preprocessing").path("feature_stage");
    JsonNode sent = stage.isMissingNode() || stage.isNull() ? null : stage;
    if (!java.util.Objects.equals(sent, limits.featureStage())) {
      throw new ModelFormatException(source + "'s feature stage " + (sent == null ? "raw" : sent) + " is not the "
          + "session's " + (limits.featureStage() == null ? "raw" : limits.featureStage()));
    }
    ReleasedModel model = ModelFile.fromJson(root, source);
    int got = model.weights().parameters().length;
    if (got != limits.parameters()) {
      throw new ModelFormatException(source + " has " + got + " parameters; the model this participant's session "
          + "releases has " + limits.parameters());
    }
    return model;
  }

  /** A parser factory that refuses the first token past {@code limits}. */
  static JsonFactory factory(Limits limits) {
    return JsonFactory.builder().streamReadConstraints(StreamReadConstraints.builder()
        .maxDocumentLength(limits.bytes())
        .maxTokenCount(limits.tokens())
        .maxNestingDepth(MAX_NESTING)
        .maxNumberLength(MAX_NUMBER_CHARS)
        .maxNameLength(MAX_NAME_CHARS)
        .maxStringLength(limits.stringChars())
        .build()).build();
  }
}
