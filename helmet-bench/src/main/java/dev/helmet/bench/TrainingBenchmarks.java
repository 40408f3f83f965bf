package dev.helmet.bench;

import dev.helmet.core.data.Dataset;
import dev.helmet.core.data.LabelSet;
import dev.helmet.core.learn.Learner;
import dev.helmet.core.learn.LearnerConfig;
import dev.helmet.core.learn.LearnerKind;
import dev.helmet.core.learn.SmoothnessBound;
import dev.helmet.core.preprocess.DesignMatrix;
import dev.helmet.core.preprocess.Preprocessing;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;

/**
 * One party's whole local training in the demo's shape (60 examples, 50 epochs, batch 5, 10
 * classes) on dense synthetic inputs, per learner and input dimension. Per operation: one party;
 * examples x epochs per second = 3000 / (seconds per operation).
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MILLISECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(value = 1, jvmArgsAppend = {"--add-modules", "jdk.incubator.vector"})
public class TrainingBenchmarks {
  @Param({"785", "6145"})
  public int dims;

  @Param({"softmax", "svm", "logreg"})
  public String learner;

  private static final int CLASSES = 10;
  private static final int EXAMPLES = 60;

  private DesignMatrix party;
  private Learner trainer;

  @Setup
  public void setUp() {
    SplittableRandom r = new SplittableRandom(1);
    float[] f = new float[EXAMPLES * (dims - 1)];
    for (int i = 0; i < f.length; i++) {
      f[i] = (float) r.nextGaussian();
    }
    int[] y = new int[EXAMPLES];
    for (int i = 0; i < EXAMPLES; i++) {
      y[i] = r.nextInt(CLASSES);
    }
    Dataset data = new Dataset("synthetic", f, y, dims - 1, LabelSet.ofIntegers(CLASSES), null);
    Preprocessing pre = new Preprocessing(1, true);
    party = pre.design(data);
    LearnerKind kind = LearnerKind.parse(learner);
    trainer = new Learner(new LearnerConfig(kind, 0.5, 2, 50, 5, SmoothnessBound.TIGHT, LearnerConfig.DEFAULT_HUBER_H),
        pre.inputNormBound(), dims - 1, CLASSES);
  }

  /** One party's local training: 60 examples, 50 epochs, batch 5. */
  @Benchmark
  @OutputTimeUnit(TimeUnit.MILLISECONDS)
  public Object trainOneParty() {
    return trainer.train(party, new SplittableRandom(7));
  }
}
