package dev.helmet.spark;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.helmet.core.data.Dataset;
import dev.helmet.core.partition.Partition;
import dev.helmet.core.partition.PartitionStrategy;
import dev.helmet.core.testdata.TestData;
import dev.helmet.core.util.Progress;
import dev.helmet.privacy.noise.NoiseFactory;
import dev.helmet.protocols.algorithm.AlgorithmSpec;
import dev.helmet.protocols.algorithm.Algorithms;
import dev.helmet.protocols.algorithm.Common;
import dev.helmet.protocols.config.StrictNode;
import dev.helmet.protocols.privacy.Protection;
import dev.helmet.protocols.simulation.Engine;
import dev.helmet.protocols.simulation.Simulation;
import dev.helmet.secagg.summation.PlainSummation;
import java.util.SplittableRandom;
import org.apache.spark.SparkConf;
import org.apache.spark.api.java.JavaSparkContext;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * The Spark engine on {@code local[2]} releases exactly the model of the local engine for the same
 * seeds (parties' preparation, partition and test noise) with the plain summation, for one-round
 * and many-round algorithms: the parties, their noise and the ring sum are the same; only where
 * they run differs.
 */
@org.junit.jupiter.api.Tag("integration")
class SparkEngineTest {
  private static final Dataset DIGITS = TestData.digits();
  private static JavaSparkContext sc;

  @BeforeAll
  static void start() {
    // One context for the class (a context takes seconds to start); the engine uses the active one.
    sc = new JavaSparkContext(new SparkConf().setMaster("local[2]").setAppName("SparkEngineTest")
        .set("spark.ui.enabled", "false").set("spark.driver.host", "127.0.0.1")
        .set("spark.driver.bindAddress", "127.0.0.1"));
  }

  @AfterAll
  static void stop() {
    sc.stop();
  }

  static AlgorithmSpec spec(String algorithm, String json) throws Exception {
    // Cross-silo sizes its noise for T + 1 parties that may see a party's share, so not every party is honest.
    double honest = algorithm.equals("cross-silo") || json.contains("discrete") ? 0.5 : 1;
    Common common = new Common(4, 1e-5, honest, Protection.record(), 0, DIGITS.dimension(), DIGITS.numClasses());
    return Algorithms.named(algorithm).configure(new StrictNode("test", new ObjectMapper().readTree(json),
        IllegalArgumentException::new), common);
  }

  @ParameterizedTest(name = "{0}")
  @CsvSource(delimiter = '|', value = {
      "helmet|{\"learner\": {\"kind\": \"softmax\", \"epochs\": 5, \"batch_size\": 10}, \"noise\": \"discrete-gaussian\"}",
      "helmet|{\"learner\": {\"kind\": \"svm\", \"epochs\": 3}, \"noise\": \"gaussian\"}",
      "dp-fl|{\"learner\": {\"clip_bound\": 10}, \"dpfl\": {\"sampling_rate\": 0.5, \"grad_clip\": 1, \"rounds\": 4, "
          + "\"learning_rate\": 2, \"accountant\": \"rdp\", \"neighbours\": \"add-remove\", "
          + "\"expected_batch\": 150}}",
      "smm|{\"learner\": {\"kind\": \"mlp\", \"hidden\": [8]}, \"smm\": {\"bits\": 12, \"gamma\": 64, "
          + "\"sampling_rate\": 0.2, \"expected_batch\": 60, \"rounds\": 3, \"learning_rate\": 0.02}}",
      "wd-dp|{\"wd_dp\": {\"steps\": 5}}",
      "cross-silo|{\"crosssilo\": {\"sampling\": \"poisson\", \"rounds\": 3}}"})
  void sparkReleasesExactlyTheLocalEnginesModel(String algorithm, String json) throws Exception {
    AlgorithmSpec spec = spec(algorithm, json);
    int w = 10;
    Partition partition = new PartitionStrategy.Iid(w, 30).split(DIGITS, new SplittableRandom(3));
    Simulation.Prepared prepared = Simulation.prepare(spec, DIGITS, partition, 7L, 2, Progress.NONE);
    int min = w - 1;
    Simulation.Result local = Simulation.run(prepared, min, new PlainSummation(), NoiseFactory.seededForTesting(11),
        2, Progress.NONE);
    Simulation.Result spark = new SparkEngine(null, 3).run(new Engine.Job(spec, DIGITS, partition, 7L, min, 11L),
        Progress.NONE);
    assertEquals(local.rounds(), spark.rounds());
    assertArrayEquals(local.model().parameters(), spark.model().parameters(), "bit for bit");
    assertEquals(local.ledger().toString(), spark.ledger().toString());
    // A different noise seed gives a different model: the test noise really reaches the parties.
    Simulation.Result other = new SparkEngine(null, 4).run(new Engine.Job(spec, DIGITS, partition, 7L, min, 12L),
        Progress.NONE);
    assertTrue(!java.util.Arrays.equals(local.model().parameters(), other.model().parameters()));
  }

  @Test
  void anAlgorithmWhosePlanWorkersCannotRepeatIsRefusedSayingWhy() throws Exception {
    AlgorithmSpec swor = spec("cross-silo", "{\"crosssilo\": {\"sampling\": \"swor\", \"batch\": 20, "
        + "\"rounds\": 5, \"swor_analysis\": \"exact\"}}");
    Partition partition = new PartitionStrategy.Iid(4, 30).split(DIGITS, new SplittableRandom(3));
    var e = assertThrows(IllegalArgumentException.class, () -> new SparkEngine(null, 0).run(
        new Engine.Job(swor, DIGITS, partition, 7L, 4, 11L), Progress.NONE));
    assertTrue(e.getMessage().contains("sampling swor"), e.getMessage());
  }
}
