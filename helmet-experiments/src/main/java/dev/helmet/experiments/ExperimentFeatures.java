package dev.helmet.experiments;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.helmet.core.data.BuiltinDataset;
import dev.helmet.core.data.Dataset;
import dev.helmet.core.data.ImageShape;
import dev.helmet.core.features.FeatureStage;
import dev.helmet.protocols.config.StrictNode;
import java.util.Locale;

/**
 * An experiment's feature stage, the keys {@code features} (raw, scatter, hog) and
 * {@code image_shape}: read and checked with the rest of the configuration, recorded in its
 * canonical JSON, and applied once to the training and the test data before any cell runs (the
 * validation split and the parties' shares are then taken of the features, as {@code helmet train}
 * does). Kept apart from {@link ExperimentConfig} and {@link ExperimentRunner} so that each stays
 * about one thing.
 *
 * <p>Experiment folders from before the feature stage stay valid: their {@code config.json} has no
 * {@code features} key, which means raw ({@link #withLegacyDefaults}), and their stored rows have
 * no {@code features} field, which {@link Row} reads as raw.
 */
final class ExperimentFeatures {
  /** The feature set of a configuration that does not name one. */
  static final String RAW = FeatureStage.RAW.id();

  private ExperimentFeatures() {}

  /** The {@code features} key: one of {@link FeatureStage#IDS}, raw when absent. */
  static String features(StrictNode n) {
    String given = n.string("features", RAW);
    String v = given.trim().toLowerCase(Locale.ROOT);
    if (!FeatureStage.IDS.contains(v)) {
      throw n.error("features", "must be one of " + String.join(", ", FeatureStage.IDS) + ". Provided value: "
          + given);
    }
    return v;
  }

  /** The {@code image_shape} key ({@code HxW}), or null when absent. */
  static ImageShape imageShape(StrictNode n) {
    if (!n.has("image_shape")) {
      return null;
    }
    String v = n.string("image_shape", null);
    try {
      return ImageShape.parse(v);
    } catch (IllegalArgumentException e) {
      throw n.error("image_shape", "must be HEIGHTxWIDTH with positive sides, e.g. 28x28. Provided value: " + v);
    }
  }

  /**
   * Records the stage in the configuration's canonical JSON: {@code features} always (so a
   * report says raw outright), {@code image_shape} when the file gives one.
   */
  static void toJson(ObjectNode j, String features, ImageShape imageShape) {
    j.put("features", features);
    j.put(SENSITIVITY_BOUNDS, "tight");
    if (imageShape != null) {
      j.put("image_shape", imageShape.toString());
    }
  }

  /**
   * A recorded configuration as this version writes it: one from before the feature stage has no
   * {@code features} key and ran on raw values, so it is compared as {@code features: raw}.
   */
  static JsonNode withLegacyDefaults(JsonNode recorded) {
    if (recorded instanceof ObjectNode o && (!o.has("features") || !o.has(SENSITIVITY_BOUNDS))) {
      ObjectNode copy = o.deepCopy();
      if (!o.has("features")) {
        copy.put("features", RAW);
      }
      if (!o.has(SENSITIVITY_BOUNDS)) {
        // Recorded before the tight sensitivity bound became helmet's default: its rows were noised
        // with the papers' bound, so it is not the same experiment as one run today (a resume or
        // --reuse would mix the two noises in one table) and compares as such.
        copy.put(SENSITIVITY_BOUNDS, "paper");
      }
      return copy;
    }
    return recorded;
  }

  /**
   * The key recording which sensitivity bound helmet's learners default to in a variant that sets
   * none ({@code learner.sensitivity}): "tight" for every configuration this version writes.
   */
  static final String SENSITIVITY_BOUNDS = "sensitivity_bounds";

  /** Checks a configuration's {@code sensitivity_bounds} (absent or "tight": this version's default). */
  static void checkSensitivityBounds(StrictNode n) {
    String v = n.string(SENSITIVITY_BOUNDS, "tight");
    if (!"tight".equals(v)) {
      throw n.error(SENSITIVITY_BOUNDS, "this version's helmet variants default to the tight bound; to run the "
          + "papers' bound set learner.sensitivity: paper in a variant. Provided value: " + v);
    }
  }

  /**
   * The configuration's feature stage for images of {@code data}'s shape (or {@code image_shape});
   * an image feature set on data of no known shape is an error naming {@code image_shape}.
   */
  static FeatureStage stage(ExperimentConfig c, Dataset data) {
    ImageShape shape = c.imageShape() != null ? c.imageShape() : data.imageShape();
    if (!c.features().equals(RAW) && shape == null) {
      throw new ExperimentConfig.ConfigException("features: " + c.features() + " needs images of a known shape, and "
          + data.name() + " has none (IDX files and .npy arrays of shape (n, height, width) carry it): set "
          + "image_shape: HxW");
    }
    try {
      return FeatureStage.parse(c.features(), shape);
    } catch (IllegalArgumentException e) {
      throw new ExperimentConfig.ConfigException("features: " + e.getMessage());
    }
  }

  /**
   * The training and test data after the feature stage, computed on the settings' threads with
   * their progress, and kept in (or read from) the settings' cache directory: a rerun or another
   * experiment on the same data does not compute them again. Raw returns the data unchanged.
   */
  static BuiltinDataset.TrainTest apply(ExperimentConfig c, BuiltinDataset.TrainTest data,
      ExperimentRunner.Settings s) {
    Dataset train = shaped(c, data.train());
    Dataset test = shaped(c, data.test());
    FeatureStage stage = stage(c, train);
    if (stage.isRaw()) {
      return new BuiltinDataset.TrainTest(train, test);
    }
    try {
      return new BuiltinDataset.TrainTest(stage.apply(train, s.threads(), s.progress(), s.cache()),
          stage.apply(test, s.threads(), s.progress(), s.cache()));
    } catch (IllegalArgumentException e) {
      // e.g. rows of 784 values with image_shape: 8x8
      throw new ExperimentConfig.ConfigException("features: " + e.getMessage());
    }
  }

  private static Dataset shaped(ExperimentConfig c, Dataset d) {
    if (c.imageShape() == null) {
      return d;
    }
    try {
      return d.withImageShape(c.imageShape());
    } catch (IllegalArgumentException e) {
      throw new ExperimentConfig.ConfigException("image_shape: " + e.getMessage());
    }
  }
}
