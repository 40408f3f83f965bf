package dev.helmet.spark;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.helmet.core.data.Dataset;
import dev.helmet.core.partition.Partition;
import dev.helmet.core.partition.PartitionStrategy;
import dev.helmet.core.testdata.TestData;
import dev.helmet.core.util.Progress;
import dev.helmet.privacy.noise.NoiseFactory;
import dev.helmet.protocols.algorithm.AlgorithmSpec;
import dev.helmet.protocols.simulation.Engine;
import dev.helmet.protocols.simulation.Simulation;
import dev.helmet.secagg.summation.PlainSummation;
import java.io.File;
import java.lang.management.ManagementFactory;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
import org.apache.spark.SparkConf;
import org.apache.spark.api.java.JavaSparkContext;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A Spark standalone cluster on loopback, as docs/spark.md describes: a master and a worker, each
 * its own JVM, the worker's executor a third; the engine runs there and releases bit for bit the
 * local engine's model (one round and many). The Spark home the worker needs is a folder whose
 * jars/ are this test's class path. Bounded: every process is stopped, and the test times out.
 */
@org.junit.jupiter.api.Tag("integration")
class StandaloneClusterTest {
  private static final Dataset DIGITS = TestData.digits();

  private static int freePort() throws Exception {
    try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      return s.getLocalPort();
    }
  }

  private static Process start(List<String> jvm, Path home, Path log, String... args) throws Exception {
    List<String> command = new ArrayList<>(jvm);
    command.addAll(List.of(args));
    ProcessBuilder pb = new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(log.toFile());
    pb.environment().put("SPARK_HOME", home.toString());
    pb.environment().put("SPARK_LOCAL_IP", "127.0.0.1");
    // A distribution's layout: jars/ beside a RELEASE file, and the Scala version it was built for.
    pb.environment().put("SPARK_SCALA_VERSION", "2.13");
    return pb.start();
  }

  @Test
  @Timeout(value = 240, unit = TimeUnit.SECONDS)
  void aMasterAndAWorkerOnLoopbackRunTheEngine() throws Exception {
    // Under target/ (not a temporary folder) so that the logs of a failed run can be read.
    Path dir = Path.of("target", "standalone-cluster").toAbsolutePath();
    if (Files.exists(dir)) {
      try (var walk = Files.walk(dir)) {
        walk.sorted(java.util.Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
      }
    }
    Files.createDirectories(dir);
    String classPath = System.getProperty("java.class.path");
    Path home = dir.resolve("spark-home");
    Files.createDirectories(home.resolve("jars"));
    Files.writeString(home.resolve("RELEASE"), "Spark (this test's class path)\n");
    for (String entry : classPath.split(File.pathSeparator)) {
      Path p = Path.of(entry);
      if (entry.endsWith(".jar") && Files.exists(p)) {
        Files.createSymbolicLink(home.resolve("jars").resolve(p.getFileName()), p.toAbsolutePath());
      }
    }
    // This JVM's options (the --add-opens Spark needs on Java 17, the Vector API module).
    List<String> options = new ArrayList<>();
    for (String a : ManagementFactory.getRuntimeMXBean().getInputArguments()) {
      if (a.startsWith("--add-") || a.startsWith("-Djdk.reflect") || a.startsWith("-Dio.netty")) {
        options.add(a);
      }
    }
    List<String> jvm = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
        "-Xmx512m", "-cp", classPath));
    jvm.addAll(options);
    int port = freePort();
    String url = "spark://127.0.0.1:" + port;
    Process master = start(jvm, home, dir.resolve("master.log"), "org.apache.spark.deploy.master.Master",
        "--host", "127.0.0.1", "--port", String.valueOf(port), "--webui-port", String.valueOf(freePort()));
    Process worker = null;
    JavaSparkContext sc = null;
    try {
      worker = start(jvm, home, dir.resolve("worker.log"), "org.apache.spark.deploy.worker.Worker",
          "--host", "127.0.0.1", "--cores", "1", "--memory", "1g", "--webui-port", String.valueOf(freePort()),
          "--work-dir", dir.resolve("work").toString(), url);
      for (int i = 0; i < 600 && !Files.readString(dir.resolve("master.log")).contains("Registering worker"); i++) {
        Thread.sleep(100);
      }
      assertTrue(Files.readString(dir.resolve("master.log")).contains("Registering worker"),
          () -> "the worker did not register: " + log(dir));
      sc = new JavaSparkContext(new SparkConf().setMaster(url).setAppName("StandaloneClusterTest")
          .set("spark.ui.enabled", "false").set("spark.driver.host", "127.0.0.1")
          .set("spark.driver.bindAddress", "127.0.0.1").set("spark.executor.memory", "512m")
          .set("spark.cores.max", "1").set("spark.executor.extraClassPath", classPath)
          .set("spark.executor.extraJavaOptions", String.join(" ", options)));
      for (String[] a : new String[][] {
          {"helmet", "{\"learner\": {\"kind\": \"softmax\", \"epochs\": 3}, \"noise\": \"discrete-gaussian\"}"},
          {"dp-fl", "{\"learner\": {\"clip_bound\": 10}, \"dpfl\": {\"sampling_rate\": 0.5, \"grad_clip\": 1, "
              + "\"rounds\": 3, \"learning_rate\": 2, \"accountant\": \"rdp\", \"neighbours\": \"add-remove\", "
              + "\"expected_batch\": 150}}"}}) {
        AlgorithmSpec spec = SparkEngineTest.spec(a[0], a[1]);
        Partition partition = new PartitionStrategy.Iid(10, 30).split(DIGITS, new SplittableRandom(3));
        Simulation.Result local = Simulation.run(Simulation.prepare(spec, DIGITS, partition, 7L, 2, Progress.NONE), 9,
            new PlainSummation(), NoiseFactory.seededForTesting(11), 2, Progress.NONE);
        Simulation.Result cluster = new SparkEngine(null, 4).run(new Engine.Job(spec, DIGITS, partition, 7L, 9, 11L),
            Progress.NONE);
        assertArrayEquals(local.model().parameters(), cluster.model().parameters(), a[0] + ": bit for bit");
      }
      assertTrue(Files.walk(dir.resolve("work")).anyMatch(p -> p.getFileName().toString().equals("stderr")),
          "an executor ran in the worker's own process");
    } finally {
      if (sc != null) {
        sc.stop();
      }
      for (Process p : new Process[] {worker, master}) {
        if (p != null) {
          p.destroy();
          if (!p.waitFor(20, TimeUnit.SECONDS)) {
            p.destroyForcibly();
          }
        }
      }
    }
  }

  private static String log(Path dir) {
    try {
      return Files.readString(dir.resolve("master.log")) + "\n---\n" + Files.readString(dir.resolve("worker.log"));
    } catch (java.io.IOException e) {
      return e.toString();
    }
  }
}
