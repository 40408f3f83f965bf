package dev.helmet.core.features;

import dev.helmet.core.data.Dataset;
import dev.helmet.core.data.ImageShape;
import dev.helmet.core.util.Checks;
import dev.helmet.core.util.Parallel;
import dev.helmet.core.util.Progress;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The feature stage of the data pipeline: raw values, or a fixed image transform ({@code scatter},
 * {@code hog}) applied to every row before row normalisation and clipping. The stage is recorded in
 * the model file ({@link #record()}) so that {@code predict} applies the same transform to raw
 * inputs. It is data-independent: its parameters are the public image shape and settings, so it
 * costs no privacy and nothing about it is fitted on data.
 */
public final class FeatureStage {
  /** The raw values, unchanged. */
  public static final FeatureStage RAW = new FeatureStage("raw", null);

  /** The feature sets a user can name. */
  public static final List<String> IDS = List.of("raw", "scatter", "hog");

  private final String id;
  private final ImageTransform transform;

  private FeatureStage(String id, ImageTransform transform) {
    this.id = id;
    this.transform = transform;
  }

  /** A stage of a given transform. */
  public static FeatureStage of(ImageTransform transform) {
    Checks.notNull("transform", transform);
    return new FeatureStage(transform.id(), transform);
  }

  /**
   * The named feature set with its default settings for images of {@code shape}.
   *
   * @param shape the data's public image shape, or null when it has none (then only {@code raw})
   */
  public static FeatureStage parse(String id, ImageShape shape) {
    String name = Checks.notNull("features", id).trim().toLowerCase(java.util.Locale.ROOT);
    if (name.equals("raw")) {
      return RAW;
    }
    if (!IDS.contains(name)) {
      throw new IllegalArgumentException("features must be one of " + IDS + ". Provided value: " + id);
    }
    if (shape == null) {
      throw new IllegalArgumentException("--features " + name + " needs images of a known shape, and this data has "
          + "none (IDX files and .npy arrays of shape (n, height, width) carry it): give --image-shape HxW");
    }
    return of(Transforms.create(name, shape, Map.of()));
  }

  /** The stage a model file recorded (see {@link #record()}); a record without one means raw. */
  public static FeatureStage fromRecord(Map<String, ?> record) {
    if (record == null || record.isEmpty()) {
      return RAW;
    }
    Object name = record.get("features");
    if (name == null || "raw".equals(name)) {
      return RAW;
    }
    Object shape = record.get("shape");
    if (shape == null) {
      throw new IllegalArgumentException("the feature stage " + name + " records no image shape");
    }
    return of(Transforms.create(name.toString(), ImageShape.parse(shape.toString()), record));
  }

  /** The feature set's name: raw, scatter or hog. */
  public String id() {
    return id;
  }

  public boolean isRaw() {
    return transform == null;
  }

  /** The transform, or null for raw values. */
  public ImageTransform transform() {
    return transform;
  }

  /** Features per row for raw inputs of {@code inputDimension} values. */
  public int outputDimension(int inputDimension) {
    return transform == null ? inputDimension : transform.outputDimension();
  }

  /** What the model file records: {@code features} and, for a transform, its parameters. */
  public Map<String, Object> record() {
    Map<String, Object> r = new LinkedHashMap<>();
    r.put("features", id);
    if (transform != null) {
      r.putAll(transform.parameters());
    }
    return r;
  }

  /** A one-line description, e.g. {@code scatter (shape 28x28, J 2, L 8, ...; 3969 features)}. */
  public String describe() {
    if (transform == null) {
      return "raw";
    }
    StringBuilder b = new StringBuilder(id).append(" (");
    String sep = "";
    for (Map.Entry<String, Object> e : transform.parameters().entrySet()) {
      b.append(sep).append(e.getKey()).append(' ').append(e.getValue());
      sep = ", ";
    }
    return b.append("; ").append(transform.outputDimension()).append(" features)").toString();
  }

  /**
   * The features of every row of {@code data}, computed on {@code threads} threads, or read from
   * {@code cacheDir} when an earlier run computed them for the same values and settings (null: no
   * cache). Raw returns {@code data} itself.
   */
  public Dataset apply(Dataset data, int threads, Progress progress, Path cacheDir) {
    if (transform == null) {
      return data;
    }
    ImageShape shape = transform.input();
    if (data.dimension() != shape.pixels()) {
      throw new IllegalArgumentException(data.name() + ": rows of " + data.dimension() + " values are not " + shape
          + " images (" + shape.pixels() + " pixels), which the " + id + " features were set up for");
    }
    if (data.imageShape() != null && !data.imageShape().equals(shape)) {
      throw new IllegalArgumentException(data.name() + ": its images are " + data.imageShape() + ", the " + id
          + " features were set up for " + shape);
    }
    String name = data.name() + " [" + id + "]";
    if (cacheDir != null) {
      Dataset cached = FeatureCache.loadOrCompute(cacheDir, this, data, name, threads, progress);
      if (cached != null) {
        return cached;
      }
    }
    float[] out = new float[Math.multiplyExact(data.size(), transform.outputDimension())];
    computeBlocks(data, threads, progress, (block, from, rows) ->
        System.arraycopy(block, 0, out, from * transform.outputDimension(), rows * transform.outputDimension()));
    return data.withFeatures(name, out, transform.outputDimension());
  }

  /** Receives consecutive blocks of feature rows, in order. */
  interface BlockSink {
    void accept(float[] block, int firstRow, int rows) throws java.io.IOException;
  }

  /**
   * Computes the features block by block (a few thousand rows at a time, in parallel within a block)
   * and hands each block to {@code sink} in row order: a caller that streams them to a file never
   * holds all features on the heap.
   */
  void computeBlocks(Dataset data, int threads, Progress progress, BlockSink sink) {
    int n = data.size();
    int in = data.dimension();
    int outDim = transform.outputDimension();
    int blockRows = Math.max(64, Math.min(n, (1 << 22) / outDim)); // about 16 MB of features per block
    float[] block = new float[blockRows * outDim];
    int grain = 32;
    progress.start(id + " features of " + n + " images", n);
    try {
      for (int from = 0; from < n; from += blockRows) {
        int first = from;
        int rows = Math.min(blockRows, n - from);
        Parallel.forEach(threads, (rows + grain - 1) / grain, c -> {
          float[] row = new float[in];
          int end = Math.min(rows, (c + 1) * grain);
          for (int i = c * grain; i < end; i++) {
            data.copyRow(first + i, row, 0);
            transform.apply(row, 0, block, i * outDim);
          }
          progress.advance(end - c * grain);
        });
        sink.accept(block, first, rows);
      }
    } catch (java.io.IOException e) {
      throw new java.io.UncheckedIOException(e);
    } finally {
      progress.finish();
    }
  }

  /** The features of one raw row (e.g. for prediction). */
  public float[] applyRow(float[] raw) {
    if (transform == null) {
      return raw.clone();
    }
    float[] out = new float[transform.outputDimension()];
    transform.apply(raw, 0, out, 0);
    return out;
  }
}
