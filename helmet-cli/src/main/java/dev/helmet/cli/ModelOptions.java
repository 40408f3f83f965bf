package dev.helmet.cli;

import dev.helmet.core.learn.LearnerConfig;
import dev.helmet.core.learn.LearnerKind;
import dev.helmet.core.learn.SmoothnessBound;
import dev.helmet.core.preprocess.Preprocessing;
import dev.helmet.protocols.helmet.HelmetDefaults;
import java.util.Locale;
import picocli.CommandLine.Option;

/** The local learner and the input preprocessing. */
final class ModelOptions {
  @Option(names = "--learner", paramLabel = "softmax|svm|logreg", defaultValue = "softmax",
      description = "Local learner: softmax (one multi-class model), svm (Huber loss, one-vs-rest) or logreg "
          + "(one-vs-rest). Default: ${DEFAULT-VALUE}.")
  String learner;

  @Option(names = "--lambda", paramLabel = "L",
      description = "Regularisation Lambda (strong convexity). Default: softmax 0.5, svm 2, logreg 1.")
  Double lambda;

  @Option(names = "--radius", paramLabel = "R",
      description = "Model radius R (projection bound; per class for svm/logreg). Default: softmax 2, svm 0.5, "
          + "logreg 1.")
  Double radius;

  @Option(names = "--epochs", paramLabel = "EP", description = "Local training epochs. Default: 50.")
  Integer epochs;

  @Option(names = "--batch-size", paramLabel = "B", defaultValue = "5",
      description = "Mini-batch size. Default: ${DEFAULT-VALUE}.")
  int batchSize;

  @Option(names = "--smoothness", paramLabel = "tight|paper", defaultValue = "tight",
      description = "Smoothness bound for the step size: tight (spectral) or paper (the papers' looser bound). "
          + "Default: ${DEFAULT-VALUE}.")
  String smoothness;

  @Option(names = "--huber-h", paramLabel = "H", defaultValue = "0.1",
      description = "Huber relaxation of the SVM loss. Default: ${DEFAULT-VALUE}.")
  double huberH;

  @Option(names = "--clip", paramLabel = "C", defaultValue = "10",
      description = "Public L2 bound c of an input row (a constant, never computed from the private data). "
          + "Default: ${DEFAULT-VALUE}.")
  double clip;

  @Option(names = "--normalise", negatable = true, defaultValue = "true", fallbackValue = "true",
      description = "Scale every row to norm exactly c (per record, data-independent); --no-normalise only "
          + "clips rows longer than c. Default: normalise.")
  boolean normalise;

  LearnerKind kind() {
    return LearnerKind.parse(learner);
  }

  LearnerConfig learnerConfig() {
    LearnerKind k = kind();
    SmoothnessBound s;
    try {
      s = SmoothnessBound.valueOf(smoothness.toUpperCase(Locale.ROOT));
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException("smoothness must be tight or paper. Provided value: " + smoothness);
    }
    return new LearnerConfig(k,
        lambda != null ? lambda : HelmetDefaults.lambda(k),
        radius != null ? radius : HelmetDefaults.radius(k),
        epochs != null ? epochs : HelmetDefaults.epochs(k),
        batchSize, s, huberH);
  }

  Preprocessing preprocessing() {
    return new Preprocessing(clip, normalise);
  }
}
