package dev.helmet.spark;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.spark.SparkConf;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * --master and --engine-conf become a SparkConf (no context is started): Spark settings only, the
 * master only through --master, loopback for a local master, and Helmet's jars shipped to a
 * cluster's executors unless spark.jars is given.
 */
class SparkSettingsTest {
  @Test
  void optionsAreSparkSettingsOrTheEnginesOwn() {
    SparkSettings s = SparkSettings.of(Map.of("master", "spark://127.0.0.1:7077", "tasks", "8",
        "conf.spark.executor.memory", "3g"), Set.of("tasks"), "the Spark engine");
    assertEquals("spark://127.0.0.1:7077", s.master());
    assertEquals(Map.of("spark.executor.memory", "3g"), s.conf());
    IllegalArgumentException notSpark = assertThrows(IllegalArgumentException.class,
        () -> SparkSettings.of(Map.of("conf.executor.memory", "3g"), Set.of(), "the Spark engine"));
    assertTrue(notSpark.getMessage().contains("spark.KEY=VALUE") && notSpark.getMessage().contains("executor.memory"),
        notSpark.getMessage());
    IllegalArgumentException empty = assertThrows(IllegalArgumentException.class,
        () -> SparkSettings.of(Map.of("conf.spark.executor.memory", ""), Set.of(), "the Spark engine"));
    assertTrue(empty.getMessage().contains("spark.executor.memory needs a value"), empty.getMessage());
    IllegalArgumentException noKey = assertThrows(IllegalArgumentException.class,
        () -> SparkSettings.of(Map.of("conf.", "4g"), Set.of(), "the Spark engine"));
    assertTrue(noKey.getMessage().endsWith("Provided: =4g"), noKey.getMessage());
    IllegalArgumentException master = assertThrows(IllegalArgumentException.class,
        () -> SparkSettings.of(Map.of("conf.spark.master", "yarn"), Set.of(), "the Spark engine"));
    assertTrue(master.getMessage().contains("--master"), master.getMessage());
    IllegalArgumentException unknown = assertThrows(IllegalArgumentException.class,
        () -> SparkSettings.of(Map.of("tasks", "2"), Set.of(), "the Spark experiment engine"));
    assertTrue(unknown.getMessage().startsWith("the Spark experiment engine has options master")
        && unknown.getMessage().endsWith("Provided: tasks"), unknown.getMessage());
  }

  @Test
  void aLocalMasterListensOnLoopbackAndShipsNothing() {
    SparkConf c = new SparkSettings("local[2]", Map.of("spark.executor.memory", "3g")).sparkConf("t");
    assertEquals("local[2]", c.get("spark.master"));
    assertEquals("127.0.0.1", c.get("spark.driver.host"));
    assertEquals("127.0.0.1", c.get("spark.driver.bindAddress"));
    assertEquals("3g", c.get("spark.executor.memory"));
    assertFalse(c.contains("spark.jars"));
  }

  @Test
  void aClusterGetsTheJarsHelmetWasLoadedFromUnlessSparkJarsIsGiven(@TempDir Path dir) throws Exception {
    Path a = Files.createFile(dir.resolve("helmet.jar"));
    Path b = Files.createFile(dir.resolve("helmet-spark.jar"));
    Path classes = Files.createDirectory(dir.resolve("classes"));
    assertEquals(List.of(a.toString(), b.toString()),
        SparkSettings.jarFiles(Arrays.asList(a, b, a, classes, dir.resolve("missing.jar"), null)));
    // Under the test runner this module's classes come from a folder (never shipped); the other
    // modules' from their jars (shipped) or, in a reactor build, from folders too.
    SparkConf cluster = new SparkSettings("spark://127.0.0.1:7077", Map.of()).sparkConf("t");
    Path core = Path.of(dev.helmet.core.data.Dataset.class.getProtectionDomain().getCodeSource().getLocation().toURI());
    Path own = Path.of(SparkSettings.class.getProtectionDomain().getCodeSource().getLocation().toURI());
    assertTrue(Files.isDirectory(own), own.toString());
    List<String> shipped = List.of(cluster.get("spark.jars", "").split(","));
    assertEquals(Files.isRegularFile(core), shipped.contains(core.toAbsolutePath().normalize().toString()),
        core + " against " + shipped);
    assertFalse(shipped.contains(own.toAbsolutePath().normalize().toString()), shipped.toString());
    // local-cluster runs its executors in other JVMs: it is a cluster here
    assertFalse(SparkSettings.local("local-cluster[2,1,1024]"));
    assertTrue(SparkSettings.local("local") && SparkSettings.local("local[*]") && SparkSettings.local("local[2,3]"));
    assertFalse(cluster.contains("spark.driver.host"), "a cluster's driver is reachable as Spark decides");
    SparkConf given = new SparkSettings("spark://127.0.0.1:7077", Map.of("spark.jars", "/opt/x.jar")).sparkConf("t");
    assertEquals("/opt/x.jar", given.get("spark.jars"));
  }
}
