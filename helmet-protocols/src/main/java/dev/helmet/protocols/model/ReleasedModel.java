package dev.helmet.protocols.model;

import dev.helmet.core.data.DataFormatException;
import dev.helmet.core.data.Dataset;
import dev.helmet.core.data.LabelSet;
import dev.helmet.core.learn.LearnerConfig;
import dev.helmet.core.learn.LinearModel;
import dev.helmet.core.preprocess.Preprocessing;
import dev.helmet.privacy.ledger.PrivacyLedger;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * A model as released: weights, the preprocessing to replay on new data, the hyperparameters, the
 * privacy ledger and provenance (configuration, seed, the data source by name, version; never a digest or statistic of private data).
 *
 * @param weights the linear model on {@code [1, preprocessed x]}
 * @param preprocessing replayed at prediction
 * @param labels class names, in class-index order
 * @param features the data dimension the model expects (without intercept)
 * @param learner the hyperparameters used by every party
 * @param privacy the privacy ledger; null only for a non-private reference model
 * @param provenance where the model came from: version, time, data set, partition, seed, protocol
 */
public record ReleasedModel(
    LinearModel weights,
    Preprocessing preprocessing,
    LabelSet labels,
    int features,
    LearnerConfig learner,
    PrivacyLedger privacy,
    Map<String, Object> provenance) {

  public ReleasedModel {
    provenance = Collections.unmodifiableMap(new LinkedHashMap<>(provenance));
    if (weights.cols() != features + 1) {
      throw new IllegalArgumentException("weights have " + weights.cols() + " columns for " + features
          + " features (expected features + 1 for the intercept)");
    }
    if (weights.numClasses() != labels.size()) {
      throw new IllegalArgumentException("weights decide between " + weights.numClasses() + " classes but "
          + labels.size() + " labels are given");
    }
  }

  /** Predicted class indices for every row of {@code data}, replaying the preprocessing. */
  public int[] predict(Dataset data) {
    if (data.dimension() != features) {
      throw new DataFormatException(data.name() + ": rows have " + data.dimension()
          + " features but the model expects " + features);
    }
    return weights.predict(preprocessing.design(data));
  }
}
