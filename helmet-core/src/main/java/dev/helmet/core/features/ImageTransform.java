package dev.helmet.core.features;

import dev.helmet.core.data.ImageShape;
import java.util.Map;

/**
 * A fixed, data-independent map from one grey image to a feature vector (a scattering transform,
 * histograms of oriented gradients). Its filters and parameters depend only on the public image
 * shape and settings, never on data, so features cost no privacy: a record's features depend on
 * that record alone, and neighbouring data sets stay neighbouring.
 *
 * <p>Implementations are immutable and thread-safe: {@link #apply} may run on many threads at once
 * (each keeps its own scratch space).
 */
public interface ImageTransform {
  /** The feature set's name as the CLI and the model file spell it, e.g. {@code scatter}. */
  String id();

  /** The image shape this transform was built for. */
  ImageShape input();

  /** Features per image. */
  int outputDimension();

  /**
   * Transforms one image: reads {@code input().pixels()} values from {@code in[inOffset ..]}
   * (row-major) and writes {@link #outputDimension()} finite values to {@code out[outOffset ..]}.
   */
  void apply(float[] in, int inOffset, float[] out, int outOffset);

  /**
   * The settings that define the transform (with the shape), in a stable order: recorded in the
   * model file and in the feature cache's key.
   */
  Map<String, Object> parameters();
}
