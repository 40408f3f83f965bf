package dev.helmet.core.data;

import java.util.Arrays;
import java.util.List;
import java.util.Objects;

/**
 * A labelled data set: {@code size()} rows of {@code dimension()} features, stored row-major as
 * floats (half the memory of doubles; 60k x 6144 embeddings fit in 1.5 GB), as unsigned bytes
 * with a fixed public divisor (pixels: a quarter of the floats), or as a read-only memory-mapped
 * {@code .npy} file (off the Java heap); an integer class per row, and optionally a party id per
 * row for natural partitions.
 *
 * <p>Immutable. Construction checks that every value is finite and every label is a class of the
 * label set, so code downstream never sees NaN, Inf or an out-of-range label.
 */
public final class Dataset {
  private final String name;
  private final FeatureStore features;
  private final int[] labels;
  private final int size;
  private final int dimension;
  private final LabelSet labelSet;
  private final String[] parties;
  private final ImageShape imageShape;
  private final double[] targets;

  /**
   * @param name where the data came from, shown in messages and provenance
   * @param features row-major, {@code labels.length * dimension} values, all finite
   * @param labels class index per row, each in {@code [0, labelSet.size())}
   * @param parties party id per row (natural partition), or null
   */
  public Dataset(
      String name, float[] features, int[] labels, int dimension, LabelSet labelSet, String[] parties) {
    this(name, FeatureStore.of(features), labels, dimension, labelSet, parties);
  }

  /**
   * A data set of unsigned bytes (pixels), feature value {@code (b & 0xff) / divisor}, e.g. 255
   * for pixels in [0, 1]: the same floats as converting up front, in a quarter of the memory.
   */
  public static Dataset ofUnsignedBytes(String name, byte[] values, float divisor, int[] labels, int dimension,
      LabelSet labelSet) {
    return new Dataset(name, FeatureStore.bytes(values, divisor), labels, dimension, labelSet, null);
  }

  Dataset(String name, FeatureStore features, int[] labels, int dimension, LabelSet labelSet, String[] parties) {
    this(name, features, labels, dimension, labelSet, parties, null, null);
  }

  Dataset(String name, FeatureStore features, int[] labels, int dimension, LabelSet labelSet,
      String[] parties, ImageShape imageShape, double[] targets) {
    if (targets != null) {
      if (targets.length != labels.length) {
        throw new DataFormatException(name + ": " + targets.length + " targets for " + labels.length + " rows");
      }
      for (int i = 0; i < targets.length; i++) {
        if (!Double.isFinite(targets[i])) {
          throw new DataFormatException(name + " row " + (i + 1) + ": target " + targets[i]
              + " is not a finite number");
        }
      }
    }
    this.targets = targets;
    if (imageShape != null && imageShape.pixels() != dimension) {
      throw new DataFormatException(name + ": images of " + imageShape + " have " + imageShape.pixels()
          + " pixels, the rows have " + dimension + " features");
    }
    this.imageShape = imageShape;
    this.name = Objects.requireNonNull(name, "name");
    this.labelSet = Objects.requireNonNull(labelSet, "labelSet");
    if (dimension <= 0) {
      throw new DataFormatException(name + ": data has no feature columns");
    }
    if (labels.length == 0) {
      throw new DataFormatException(name + ": data has no rows");
    }
    if ((long) labels.length * dimension != features.length()) {
      throw new DataFormatException(
          name + ": " + features.length() + " feature values do not form " + labels.length + " rows of "
              + dimension);
    }
    if (parties != null && parties.length != labels.length) {
      throw new DataFormatException(name + ": party ids given for " + parties.length + " of "
          + labels.length + " rows");
    }
    int bad = features.firstNonFinite();
    if (bad >= 0) {
      throw new DataFormatException(String.format(
          "%s row %d feature %d: value %s is not a finite number", name, bad / dimension + 1,
          bad % dimension + 1, features.get(bad)));
    }
    for (int i = 0; i < labels.length; i++) {
      if (labels[i] < 0 || labels[i] >= labelSet.size()) {
        throw new DataFormatException(
            name + " row " + (i + 1) + ": label index " + labels[i] + " is not one of the "
                + labelSet.size() + " classes");
      }
    }
    this.features = features;
    this.labels = labels;
    this.size = labels.length;
    this.dimension = dimension;
    this.parties = parties;
  }

  /** Its feature store (for {@link DatasetImage}). */
  FeatureStore store() {
    return features;
  }

  /** Its targets, or null (for {@link DatasetImage}). */
  double[] targetsOrNull() {
    return targets;
  }

  /** Its party ids, or null (for {@link DatasetImage}). */
  String[] partiesOrNull() {
    return parties;
  }

  public String name() {
    return name;
  }

  /** Number of rows. */
  public int size() {
    return size;
  }

  /** Number of features per row (without the intercept). */
  public int dimension() {
    return dimension;
  }

  public LabelSet labelSet() {
    return labelSet;
  }

  public int numClasses() {
    return labelSet.size();
  }

  /** The class index of row {@code i}. */
  public int label(int i) {
    return labels[i];
  }

  /** A copy of all class indices. */
  public int[] labels() {
    return labels.clone();
  }

  /** Feature {@code j} of row {@code i}. */
  public float feature(int i, int j) {
    return features.get(i * dimension + j);
  }

  /** Copies row {@code i} into {@code dest[offset ... offset + dimension)}. */
  public void copyRow(int i, double[] dest, int offset) {
    features.copy(i * dimension, dimension, dest, offset);
  }

  /** Bytes of Java heap the feature values take (0 for a memory-mapped file). */
  public long featureHeapBytes() {
    return features.heapBytes();
  }

  /**
   * The public shape of the rows when they are images (from an IDX or {@code .npy} file's
   * dimensions, or stated with {@code --image-shape}), or null.
   */
  public ImageShape imageShape() {
    return imageShape;
  }

  /** The same rows read as images of {@code shape} (its pixel count must be the dimension). */
  public Dataset withImageShape(ImageShape shape) {
    return new Dataset(name, features, labels, dimension, labelSet, parties, shape, targets);
  }

  /**
   * Other features for the same rows (labels, classes and party ids kept): {@code values} holds
   * {@code size() * newDimension} finite floats, row-major. Used by the feature stage.
   */
  public Dataset withFeatures(String newName, float[] values, int newDimension) {
    return new Dataset(newName, FeatureStore.of(values), labels, newDimension, labelSet, parties, null, targets);
  }

  /**
   * As {@link #withFeatures(String, float[], int)} for features in an uncompressed little-endian
   * float32 buffer (a memory-mapped cache file): the Java heap holds none of it.
   */
  public Dataset withMappedFeatures(String newName, java.nio.FloatBuffer values, int newDimension) {
    return new Dataset(newName, FeatureStore.mapped(values), labels, newDimension, labelSet, parties, null, targets);
  }

  /** Copies row {@code i} into {@code dest[offset ... offset + dimension)} as floats. */
  public void copyRow(int i, float[] dest, int offset) {
    for (int j = 0; j < dimension; j++) {
      dest[offset + j] = features.get(i * dimension + j);
    }
  }

  /** Whether rows carry party ids. */
  public boolean hasParties() {
    return parties != null;
  }

  /** The party id of row {@code i}; requires {@link #hasParties()}. */
  public String party(int i) {
    if (parties == null) {
      throw new IllegalStateException(name + " has no party column");
    }
    return parties[i];
  }

  /** The same rows under another name, sharing the (never modified) arrays: no copy. */
  public Dataset named(String newName) {
    return new Dataset(newName, features, labels, dimension, labelSet, parties, imageShape, targets);
  }

  /** The rows at {@code indices}, in that order. */
  public Dataset subset(int[] indices, String subsetName) {
    FeatureStore f = features.rows(indices, dimension);
    int[] y = new int[indices.length];
    String[] p = parties == null ? null : new String[indices.length];
    double[] t = targets == null ? null : new double[indices.length];
    for (int k = 0; k < indices.length; k++) {
      int i = indices[k];
      y[k] = labels[i];
      if (t != null) {
        t[k] = targets[i];
      }
      if (p != null) {
        p[k] = parties[i];
      }
    }
    return new Dataset(subsetName, f, y, dimension, labelSet, p, imageShape, t);
  }

  /** The same rows relabelled into {@code target}, which must contain every label used here. */
  public Dataset withLabelSet(LabelSet target) {
    if (target.equals(labelSet)) {
      return this;
    }
    int[] map = new int[labelSet.size()];
    for (int k = 0; k < labelSet.size(); k++) {
      map[k] = target.indexOf(labelSet.name(k));
    }
    int[] y = new int[size];
    for (int i = 0; i < size; i++) {
      y[i] = map[labels[i]];
      if (y[i] < 0) {
        throw new DataFormatException(name + " row " + (i + 1) + ": unknown label '"
            + labelSet.name(labels[i]) + "'; known labels are " + target.names());
      }
    }
    return new Dataset(name, features, y, dimension, target, parties, imageShape, targets);
  }

  /**
   * The same rows with a numeric response per row (a regression data set): {@code values} holds
   * one finite number per row. The rows keep their labels (a regression set has one class).
   */
  public Dataset withTargets(double[] values) {
    return new Dataset(name, features, labels, dimension, labelSet, parties, imageShape,
        java.util.Objects.requireNonNull(values, "targets").clone());
  }

  /**
   * The same rows for regression: each row's label read as a number (a data file read without
   * knowing its label column is numeric), or these rows as they are when they carry targets already.
   *
   * @throws DataFormatException naming the first row whose label is not a finite number
   */
  public Dataset withNumericTargets() {
    if (targets != null) {
      return this;
    }
    double[] t = new double[size];
    for (int i = 0; i < size; i++) {
      String v = labelSet.name(labels[i]);
      try {
        t[i] = Double.parseDouble(v);
      } catch (NumberFormatException e) {
        throw new DataFormatException(name + " row " + (i + 1) + ": target '" + v + "' is not a number (regression "
            + "targets are numeric)");
      }
    }
    return new Dataset(name, features, new int[size], dimension, TabularData.NO_CLASSES, parties, imageShape, t);
  }

  /** Whether the rows carry numeric targets (regression) rather than only classes. */
  public boolean isRegression() {
    return targets != null;
  }

  /** The numeric target of row {@code i}; requires {@link #isRegression()}. */
  public double target(int i) {
    if (targets == null) {
      throw new IllegalStateException(name + " has no numeric targets (it is a classification data set)");
    }
    return targets[i];
  }

  /** A copy of the numeric targets, or null for a classification data set. */
  public double[] targets() {
    return targets == null ? null : targets.clone();
  }

  /** Counts of each class. */
  public int[] classCounts() {
    int[] c = new int[labelSet.size()];
    for (int y : labels) {
      c[y]++;
    }
    return c;
  }

  /** Concatenates data sets with the same dimension and label set. */
  public static Dataset concat(String name, List<Dataset> parts) {
    Dataset first = parts.get(0);
    int n = parts.stream().mapToInt(Dataset::size).sum();
    int[] y = new int[n];
    boolean withParties = parts.stream().allMatch(Dataset::hasParties);
    String[] p = withParties ? new String[n] : null;
    double[] t = first.isRegression() ? new double[n] : null;
    int at = 0;
    for (Dataset d : parts) {
      if (d.dimension != first.dimension || !d.labelSet.equals(first.labelSet)
          || d.isRegression() != first.isRegression()) {
        throw new DataFormatException(name + ": cannot join data sets of different shape");
      }
      System.arraycopy(d.labels, 0, y, at, d.size);
      if (t != null) {
        System.arraycopy(d.targets, 0, t, at, d.size);
      }
      if (p != null) {
        System.arraycopy(d.parties, 0, p, at, d.size);
      }
      at += d.size;
    }
    FeatureStore f = FeatureStore.concat(parts.stream().map(d -> d.features).toList());
    ImageShape shape = parts.stream().allMatch(d -> java.util.Objects.equals(d.imageShape, first.imageShape))
        ? first.imageShape
        : null;
    return new Dataset(name, f, y, first.dimension, first.labelSet, p, shape, t);
  }

  @Override
  public String toString() {
    if (targets != null) {
      return name + " (" + size + " x " + dimension + ", numeric targets)";
    }
    return name + " (" + size + " x " + dimension + ", " + numClasses() + " classes, class counts "
        + Arrays.toString(classCounts()) + ")";
  }
}
