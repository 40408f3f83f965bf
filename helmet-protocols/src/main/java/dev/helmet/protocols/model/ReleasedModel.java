package dev.helmet.protocols.model;

import dev.helmet.core.data.DataFormatException;
import dev.helmet.core.data.Dataset;
import dev.helmet.core.data.LabelSet;
import dev.helmet.core.features.FeatureStage;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.helmet.core.learn.LearnerKind;
import dev.helmet.core.learn.LinearModel;
import dev.helmet.core.learn.Model;
import dev.helmet.core.preprocess.Preprocessing;
import dev.helmet.core.util.Progress;
import dev.helmet.privacy.ledger.PrivacyLedger;
import dev.helmet.protocols.algorithm.AlgorithmSpec;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * A model as released: weights, the preprocessing to replay on new data, the algorithm that trained
 * it with its own settings, the privacy ledger and provenance (configuration, seed, the data source
 * by name, version; never a digest or statistic of private data).
 *
 * <p>The settings are the algorithm's canonical configuration ({@link AlgorithmSpec#toConfig}): public
 * parameters, the same bytes every party signed, so recording them releases nothing new.
 *
 * @param weights the model on {@code [1, preprocessed x]}: linear, or an MLP (which skips the intercept)
 * @param preprocessing replayed at prediction
 * @param labels class names, in class-index order
 * @param features the data dimension the model expects (without intercept)
 * @param kind the kind of model the weights are (softmax, SVM, ..., MLP, linear regression)
 * @param algorithm the registered name of the algorithm that trained it ({@code helmet}, {@code dp-fl}, ...)
 * @param settings that algorithm's settings in canonical form ({@link AlgorithmSpec#toConfig}); a copy
 * @param privacy the privacy ledger; null only for a non-private reference model
 * @param provenance where the model came from: version, time, data set, partition, seed, protocol
 * @param featureStage the fixed feature transform in front of the preprocessing (raw: none); {@link
 *     #predict} applies it to raw inputs
 */
public record ReleasedModel(
    Model weights,
    Preprocessing preprocessing,
    LabelSet labels,
    int features,
    LearnerKind kind,
    String algorithm,
    ObjectNode settings,
    PrivacyLedger privacy,
    Map<String, Object> provenance,
    FeatureStage featureStage) {

  /**
   * The model {@code spec}'s run released: its preprocessing, model kind, name and settings come from
   * the spec, so every runner records the same facts.
   */
  public static ReleasedModel of(AlgorithmSpec spec, Model weights, LabelSet labels, int features,
      PrivacyLedger privacy, Map<String, Object> provenance, FeatureStage featureStage) {
    return new ReleasedModel(weights, spec.preprocessing(), labels, features, spec.modelKind(),
        spec.algorithm().id(), spec.toConfig(), privacy, provenance, featureStage);
  }

  public ReleasedModel {
    provenance = Collections.unmodifiableMap(new LinkedHashMap<>(provenance));
    if (kind == null || algorithm == null || algorithm.isBlank()) {
      throw new IllegalArgumentException("a released model names its model kind and the algorithm that trained it");
    }
    settings = settings == null ? JsonNodeFactory.instance.objectNode() : settings.deepCopy();
    featureStage = featureStage == null ? FeatureStage.RAW : featureStage;
    if (featureStage.outputDimension(features) != features) {
      throw new IllegalArgumentException("the " + featureStage.id() + " feature stage gives "
          + featureStage.outputDimension(features) + " features, the model takes " + features);
    }
    if (weights.inputColumns() != features + 1) {
      throw new IllegalArgumentException("weights have " + weights.inputColumns() + " columns for " + features
          + " features (expected features + 1 for the intercept)");
    }
    if (kind == LearnerKind.LINREG) {
      if (!(weights instanceof LinearModel w) || w.rows() != 1 || labels.size() != 1
          || preprocessing.target() == null) {
        throw new IllegalArgumentException("a linear regression model has one weight row, one label and public "
            + "target bounds; found " + weights.describe() + ", " + labels.size() + " labels, target bounds "
            + (preprocessing.target() == null ? "none" : "given"));
      }
    } else if (weights.numClasses() != labels.size()) {
      throw new IllegalArgumentException("weights decide between " + weights.numClasses() + " classes but "
          + labels.size() + " labels are given");
    }
  }

  /** The recorded settings (a copy: the record's own stays unchanged). */
  @Override
  public ObjectNode settings() {
    return settings.deepCopy();
  }

  /** Values per raw input row: the pixels of the feature stage's images, or the features themselves. */
  public int inputDimension() {
    return featureStage.isRaw() ? features : featureStage.transform().input().pixels();
  }

  /**
   * Predicted class indices for every raw row of {@code data}: the feature stage (if any), then the
   * preprocessing, then the weights.
   */
  public int[] predict(Dataset data) {
    return weights.predict(design(data));
  }

  /** Whether this model predicts a number (linear regression) rather than a class. */
  public boolean regression() {
    return kind == LearnerKind.LINREG;
  }

  /**
   * Predicted values for every raw row of {@code data} (a regression model), in the target's units:
   * the learner's outputs mapped back by the public target bounds.
   */
  public double[] values(Dataset data) {
    double[] v = weights.linear().scores(design(data));
    for (int i = 0; i < v.length; i++) {
      v[i] = preprocessing.untarget(v[i]);
    }
    return v;
  }

  /** The learner inputs of {@code data}'s raw rows: feature stage, then preprocessing. */
  public dev.helmet.core.preprocess.DesignMatrix design(Dataset data) {
    if (data.dimension() != inputDimension()) {
      if (featureStage.isRaw()) {
        throw new DataFormatException(data.name() + ": rows have " + data.dimension()
            + " features but the model expects " + features);
      }
      throw new DataFormatException(data.name() + ": rows have " + data.dimension() + " values but the model expects "
          + inputDimension() + " pixels (" + featureStage.transform().input() + " images, from which it computes its "
          + featureStage.id() + " features)");
    }
    Dataset x = featureStage.apply(data, Runtime.getRuntime().availableProcessors(), Progress.NONE, null);
    return preprocessing.design(x);
  }
}
