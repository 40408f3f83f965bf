package dev.helmet.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.helmet.core.data.DataReader;
import dev.helmet.core.data.Dataset;
import dev.helmet.core.data.ReadOptions;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.Base64;
import java.util.HexFormat;
import java.util.Iterator;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A released model file holds nothing computed from the private training data except the DP
 * release itself: no digest of the data (with all but one value of a record known, a digest lets
 * anyone test the candidates for the last one) and no statistic the guarantee does not cover (an
 * accuracy, a loss, a count of classes).
 */
class ReleasedArtifactTest {
  private static final ObjectMapper JSON = new ObjectMapper();
  /**
   * What provenance may say: software, time, configuration (algorithm_config: the algorithm's public
   * settings), the data's source by name and the feature set the user chose (raw, scatter, hog).
   */
  private static final Set<String> PROVENANCE_KEYS = Set.of("helmet_version", "created", "dataset", "partition",
      "parties", "seed", "protocol", "noise", "algorithm", "rounds", "session", "session_name", "contributors", "algorithm_config", "labels",
      "features");

  @TempDir Path dir;

  @Test
  void aModelTrainedOnAPrivateCsvCarriesNoDigestAndNoStatisticOfIt() throws Exception {
    Path csv = dir.resolve("patients.csv");
    StringBuilder b = new StringBuilder("age,pressure,marker,score,outcome\n");
    SplittableRandom rng = new SplittableRandom(11);
    for (int i = 0; i < 240; i++) {
      int y = rng.nextInt(3);
      b.append(String.format(Locale.ROOT, "%d,%.1f,%.3f,%.2f,%d%n", 20 + rng.nextInt(60) + 5 * y,
          110 + 20 * rng.nextDouble() + 4 * y, rng.nextDouble() * (1 + y), rng.nextGaussian() + y, y));
    }
    Files.writeString(csv, b.toString());
    Path model = dir.resolve("model.json");
    Cli c = Cli.run("train", "--dataset", csv.toString(), "--parties", "4", "--epochs", "5", "--quiet",
        "--threads", "1", "--protocol", "plain", "-o", model.toString(), "--json");
    assertEquals(0, c.exit, c.toString());

    String text = Files.readString(model);
    for (String digest : digestsOf(csv)) {
      assertFalse(text.toLowerCase(Locale.ROOT).contains(digest.toLowerCase(Locale.ROOT)),
          "the model file contains a digest of the private data: " + digest);
    }
    JsonNode root = JSON.readTree(text);
    List<String> keys = new ArrayList<>();
    collectKeys(root, "", keys);
    for (String k : keys) {
      String leaf = k.substring(k.lastIndexOf('.') + 1);
      assertFalse(leaf.matches("(?i).*(accuracy|f1|loss|sha|digest|fingerprint|hash|confusion).*"),
          "the model file holds an unaccounted statistic or digest of the data: " + k);
    }
    Iterator<String> prov = root.get("provenance").fieldNames();
    while (prov.hasNext()) {
      String k = prov.next();
      assertTrue(PROVENANCE_KEYS.contains(k), "provenance key '" + k + "' is not on the list of public facts");
    }
    // The accuracy the CLI printed to its user (who holds the data) appears nowhere in the file.
    double accuracy = JSON.readTree(c.out).get("test_accuracy").asDouble();
    assertFalse(text.contains(String.valueOf(accuracy)), "the model file contains the test accuracy " + accuracy);
  }

  /**
   * The classes a model file lists are a fact about the data when they are taken from it: stated
   * publicly with --classes they are not, and without it the user is told.
   */
  @Test
  void theClassesAreStatedPubliclyOrTheUserIsTold() throws Exception {
    Path iris = dev.helmet.core.testdata.TestData.path("iris.csv");
    Path model = dir.resolve("m.json");
    Cli learned = Cli.run("train", "--dataset", iris.toString(), "--skip-rows", "1", "--parties", "4", "--epochs", "2",
        "--quiet", "--threads", "1", "-o", model.toString());
    assertEquals(0, learned.exit, learned.toString());
    assertTrue(learned.err.contains("pass --classes to state them publicly"), learned.err);
    assertTrue(JSON.readTree(Files.readString(model)).get("provenance").get("labels").asText()
        .startsWith("the labels found in the training data"));
    Cli stated = Cli.run("train", "--dataset", iris.toString(), "--skip-rows", "1", "--parties", "4", "--epochs", "2",
        "--quiet", "--threads", "1", "--classes", "0,1,2", "-o", model.toString());
    assertEquals(0, stated.exit, stated.toString());
    assertFalse(stated.err.contains("--classes"), stated.err);
    assertEquals("public: --classes", JSON.readTree(Files.readString(model)).get("provenance").get("labels").asText());
  }

  /**
   * Digests a model file might have leaked: SHA-256 of the file's bytes (hex and base64), and
   * SHA-256 of the parsed data in the encoding release 0.1 wrote as {@code dataset_sha256} (size,
   * dimension, float features, labels, label names).
   */
  private static List<String> digestsOf(Path csv) throws IOException, NoSuchAlgorithmException {
    List<String> out = new ArrayList<>();
    byte[] file = MessageDigest.getInstance("SHA-256").digest(Files.readAllBytes(csv));
    out.add(HexFormat.of().formatHex(file));
    out.add(Base64.getEncoder().encodeToString(file));
    for (Dataset d : List.of(DataReader.read(csv, ReadOptions.defaults()),
        DataReader.readTrainTest(csv, ReadOptions.defaults(), null, ReadOptions.defaults(), 0.2,
            new SplittableRandom(1 ^ 0x5DEECE66DL)).train())) { // the CLI's split at --seed 1
      MessageDigest md = MessageDigest.getInstance("SHA-256");
      ByteBuffer buf = ByteBuffer.allocate(8 + 4 * d.size() * (d.dimension() + 1)).order(ByteOrder.LITTLE_ENDIAN);
      buf.putInt(d.size()).putInt(d.dimension());
      for (int i = 0; i < d.size(); i++) {
        for (int j = 0; j < d.dimension(); j++) {
          buf.putFloat((float) d.feature(i, j));
        }
      }
      for (int i = 0; i < d.size(); i++) {
        buf.putInt(d.label(i));
      }
      md.update(buf.array(), 0, buf.position());
      md.update(String.join("\u0000", d.labelSet().names()).getBytes(StandardCharsets.UTF_8));
      byte[] h = md.digest();
      out.add(HexFormat.of().formatHex(h));
      out.add(Base64.getEncoder().encodeToString(h));
    }
    return out;
  }

  private static void collectKeys(JsonNode n, String path, List<String> out) {
    if (n.isObject()) {
      n.fields().forEachRemaining(e -> {
        String p = path.isEmpty() ? e.getKey() : path + "." + e.getKey();
        out.add(p);
        collectKeys(e.getValue(), p, out);
      });
    } else if (n.isArray()) {
      for (JsonNode c : n) {
        collectKeys(c, path, out);
      }
    }
  }
}
