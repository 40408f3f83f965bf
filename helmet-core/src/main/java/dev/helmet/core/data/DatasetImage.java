package dev.helmet.core.data;

import java.io.Serializable;
import java.util.ArrayList;

/**
 * A data set as plain arrays, for engines that ship it to other processes (Spark broadcasts it to
 * its executors): the feature values as the unsigned bytes they are stored as (pixels, a quarter
 * of the floats) or as floats, the labels, label names, targets, party ids and image shape.
 * {@link #toDataset()} rebuilds an equal data set, checked again as every data set is.
 */
public final class DatasetImage implements Serializable {
  private static final long serialVersionUID = 1L;

  private final String name;
  private final int dimension;
  private final int[] labels;
  private final ArrayList<String> labelNames;
  private final String[] parties;
  private final int[] imageShape;
  private final double[] targets;
  private final byte[] bytes;
  private final float divisor;
  private final float[] floats;

  private DatasetImage(Dataset d) {
    this.name = d.name();
    this.dimension = d.dimension();
    this.labels = d.labels();
    this.labelNames = new ArrayList<>(d.labelSet().names());
    this.parties = d.partiesOrNull();
    this.imageShape = d.imageShape() == null ? null : new int[] {d.imageShape().height(), d.imageShape().width()};
    this.targets = d.targetsOrNull();
    FeatureStore store = d.store();
    this.bytes = store.storedBytes();
    this.divisor = store.divisor();
    if (bytes == null) {
      long n = store.length();
      if (n > Integer.MAX_VALUE - 8) {
        throw new IllegalArgumentException(d.name() + ": " + n + " feature values do not fit one array");
      }
      float[] f = new float[(int) n];
      for (int i = 0; i < f.length; i++) {
        f[i] = store.get(i);
      }
      this.floats = f;
    } else {
      this.floats = null;
    }
  }

  /** The image of {@code d}. */
  public static DatasetImage of(Dataset d) {
    return new DatasetImage(d);
  }

  /** The data set again. */
  public Dataset toDataset() {
    FeatureStore store = bytes != null ? FeatureStore.bytes(bytes, divisor) : FeatureStore.of(floats);
    return new Dataset(name, store, labels, dimension, LabelSet.of(labelNames), parties,
        imageShape == null ? null : new ImageShape(imageShape[0], imageShape[1]), targets);
  }
}
