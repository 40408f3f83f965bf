package dev.helmet.sparkapp;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.helmet.core.testdata.TestData;
import java.io.File;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The application jar under spark-submit (its own main class, {@code
 * org.apache.spark.deploy.SparkSubmit}, which {@code bin/spark-submit} runs), in a JVM whose class
 * path holds Spark and nothing of Helmet: {@code --class dev.helmet.cli.Main helmet-spark-app.jar
 * train --engine spark ...} trains on the Spark master spark-submit gives and prints its summary.
 */
@org.junit.jupiter.api.Tag("integration")
class SparkSubmitTest {
  @Test
  @Timeout(value = 240, unit = TimeUnit.SECONDS)
  void sparkSubmitRunsTheApplicationJar(@TempDir Path dir) throws Exception {
    Path app = Path.of(System.getProperty("helmet.sparkApp"));
    assertTrue(Files.size(app) > 1_000_000, "the packaged jar " + app);
    // Spark's jars, as a cluster provides them: the test class path without Helmet's own artifacts.
    List<String> spark = new ArrayList<>();
    for (String e : System.getProperty("java.class.path").split(File.pathSeparator)) {
      if (e.endsWith(".jar") && !e.contains(File.separator + "dev" + File.separator + "helmet" + File.separator)) {
        spark.add(e);
      }
    }
    List<String> command = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
        "-Xmx1g", "--add-modules", "jdk.incubator.vector"));
    command.addAll(List.of(System.getProperty("helmet.sparkOptions").trim().split("\\s+")));
    command.addAll(List.of("-cp", String.join(File.pathSeparator, spark), "org.apache.spark.deploy.SparkSubmit",
        "--class", "dev.helmet.cli.Main", "--master", "local[2]", "--conf", "spark.ui.enabled=false",
        "--conf", "spark.driver.host=127.0.0.1", "--conf", "spark.driver.bindAddress=127.0.0.1",
        app.toString(), "train", "--engine", "spark", "--dataset", TestData.path("iris.csv").toString(),
        "--skip-rows", "1", "--parties", "6", "--no-reference", "--json", "-q"));
    ProcessBuilder pb = new ProcessBuilder(command).redirectOutput(dir.resolve("out.json").toFile())
        .redirectError(dir.resolve("err.txt").toFile());
    pb.environment().put("SPARK_LOCAL_IP", "127.0.0.1");
    Process p = pb.start();
    try {
      assertTrue(p.waitFor(200, TimeUnit.SECONDS), "spark-submit finished");
    } finally {
      p.destroyForcibly();
    }
    String err = Files.readString(dir.resolve("err.txt"), StandardCharsets.UTF_8);
    assertEquals(0, p.exitValue(), err);
    JsonNode j = new ObjectMapper().readTree(dir.resolve("out.json").toFile());
    assertEquals("spark", j.get("engine").asText());
    assertEquals("plain", j.get("summation").asText());
    assertEquals(6, j.get("parties").asInt());
    assertTrue(j.get("test_accuracy").asDouble() >= 0 && j.get("privacy").has("guarantees"), j.toString());
  }
}
