package dev.helmet.bench;

import dev.helmet.core.data.ImageShape;
import dev.helmet.core.features.Scattering2D;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;

/**
 * The scattering transform's throughput on 28x28 images (J = 2, L = 8, the demo's {@code --features
 * scatter}), one image per operation on one thread. It was a unit test that printed images per
 * second and asserted nothing about them; a speed belongs here.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(value = 1, jvmArgsAppend = {"--add-modules", "jdk.incubator.vector"})
public class FeatureBenchmarks {
  private static final int IMAGES = 64;

  private Scattering2D scattering;
  private float[] images;
  private float[] out;
  private int next;

  @Setup
  public void setUp() {
    scattering = Scattering2D.standard(new ImageShape(28, 28));
    SplittableRandom r = new SplittableRandom(1);
    images = new float[IMAGES * 784];
    for (int i = 0; i < images.length; i++) {
      images[i] = (float) r.nextDouble();
    }
    out = new float[scattering.outputDimension()];
  }

  /** One 28x28 image through the scattering transform. */
  @Benchmark
  public float[] scattering28() {
    scattering.apply(images, next * 784, out, 0);
    next = (next + 1) % IMAGES;
    return out;
  }
}
