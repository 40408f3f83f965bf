package dev.helmet.protocols.helmet;

import dev.helmet.core.learn.Learner;
import dev.helmet.core.learn.LinearModel;
import dev.helmet.core.preprocess.Preprocessing;
import java.util.List;

/**
 * Phase I of blind averaging: every party's trained, not yet noised model. Noise is added once
 * per release, so one training serves many privacy levels (noise is post-processing of these).
 * These models are private: they never leave the party in a real deployment.
 *
 * @param models party i's model
 * @param sizes party i's local data size n_i
 * @param learner the learner (with its bounds) all parties used
 * @param preprocessing the input transformation all parties used
 * @param partition how the data was split, for provenance
 */
public record LocalModels(
    List<LinearModel> models, int[] sizes, Learner learner, Preprocessing preprocessing, String partition) {
  public LocalModels {
    models = List.copyOf(models);
    if (models.size() != sizes.length) {
      throw new IllegalArgumentException(models.size() + " models for " + sizes.length + " sizes");
    }
    for (int i = 0; i < sizes.length; i++) {
      if (sizes[i] <= 0) {
        throw new IllegalArgumentException("party " + i + " has local size " + sizes[i] + "; every party needs data");
      }
    }
    sizes = sizes.clone();
  }

  /** Party i's local data size (a copy). */
  @Override
  public int[] sizes() {
    return sizes.clone();
  }

  /** Number of parties w. */
  public int parties() {
    return models.size();
  }

  /** The largest local data size. */
  public int maxSize() {
    int m = 0;
    for (int s : sizes) {
      m = Math.max(m, s);
    }
    return m;
  }

  /** The smallest local data size. */
  public int minSize() {
    int m = Integer.MAX_VALUE;
    for (int s : sizes) {
      m = Math.min(m, s);
    }
    return m;
  }
}
