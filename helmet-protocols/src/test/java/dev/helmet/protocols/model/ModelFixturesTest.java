package dev.helmet.protocols.model;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import dev.helmet.core.data.Dataset;
import dev.helmet.core.data.TabularData;
import dev.helmet.protocols.algorithm.Algorithm;
import dev.helmet.protocols.algorithm.Algorithms;
import java.io.IOException;
import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Model files written by earlier releases still read, and predict what they predicted when they
 * were written: the same labels (and a linear model the same class scores) for fixed inputs. {@code fixtures/models/VERSION/} holds files as release VERSION wrote them (one per
 * algorithm at least, by {@link ModelFixtures}) and {@code predictions.json} what each predicted
 * then for a handful of fixed inputs.
 *
 * <p>Every later release must keep reading these files. A change of the format adds a reader for
 * the old form (the format's version number says which one applies); it never regenerates or edits
 * a fixture, which stands for the files users keep. A new release adds its own directory next to
 * these ({@link ModelFixtures} says how); this test only reads.
 */
class ModelFixturesTest {
  static final String PREDICTIONS = "predictions.json";

  /** One fixture: a model file and what it predicted when it was written. */
  record Fixture(Path file, JsonNode expected) {
    @Override
    public String toString() {
      return file.getParent().getFileName() + "/" + file.getFileName();
    }
  }

  private static Path root() {
    try {
      return Path.of(ModelFixturesTest.class.getResource("/fixtures/models").toURI());
    } catch (URISyntaxException e) {
      throw new AssertionError(e);
    }
  }

  static Stream<Fixture> fixtures() throws IOException {
    List<Fixture> out = new ArrayList<>();
    try (Stream<Path> versions = Files.list(root())) {
      for (Path version : versions.sorted().toList()) {
        JsonNode models = ModelFixtures.read(version.resolve(PREDICTIONS)).get("models");
        for (Iterator<Map.Entry<String, JsonNode>> it = models.fields(); it.hasNext(); ) {
          Map.Entry<String, JsonNode> e = it.next();
          out.add(new Fixture(version.resolve(e.getKey()), e.getValue()));
        }
      }
    }
    return out.stream();
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("fixtures")
  void aModelFileOfAnEarlierReleaseReadsAndPredictsWhatItPredictedThen(Fixture f) {
    ReleasedModel m = ModelFile.read(f.file());
    JsonNode inputs = f.expected().get("inputs");
    Dataset rows = rows(inputs, m);
    if (f.expected().has("values")) {
      assertTrue(m.regression(), f + " was a regression model");
      double[] expected = new double[inputs.size()];
      for (int i = 0; i < expected.length; i++) {
        expected[i] = f.expected().get("values").get(i).asDouble();
      }
      // A later release may sum a dot product in another order: the last bits may move.
      assertArrayEquals(expected, m.values(rows), 1e-9 * 20);
    } else {
      assertFalse(m.regression(), f + " was a classifier");
      List<String> expected = new ArrayList<>();
      f.expected().get("labels").forEach(l -> expected.add(l.asText()));
      List<String> predicted = new ArrayList<>();
      for (int k : m.predict(rows)) {
        predicted.add(m.labels().name(k));
      }
      assertEquals(expected, predicted);
      if (f.expected().has("scores")) {
        JsonNode scores = ModelFixtures.scores(m, m.weights().linear(), rows);
        for (int i = 0; i < inputs.size(); i++) {
          for (int k = 0; k < scores.get(i).size(); k++) {
            double want = f.expected().get("scores").get(i).get(k).asDouble();
            // A later release may sum a dot product in another order: the last bits may move.
            assertEquals(want, scores.get(i).get(k).asDouble(), 1e-9 * Math.max(1, Math.abs(want)),
                f + ": input " + i + ", class " + k);
          }
        }
      }
    }
    assertTrue(m.privacy() != null && m.privacy().epsilon() > 0, f + " carries its ledger");
  }

  /** Every built-in algorithm has a fixture, in some release's directory, to be read by every later one. */
  @Test
  void everyRegisteredAlgorithmHasAModelFileFixture() throws IOException {
    Set<String> covered = new HashSet<>();
    fixtures().forEach(f -> covered.add(String.valueOf(ModelFile.read(f.file()).provenance().get("algorithm"))));
    for (Algorithm a : Algorithms.all()) {
      assertTrue(covered.contains(a.id()), a.id() + " has no model file fixture; write one (see ModelFixtures)");
    }
    // Every format version a release wrote is among them.
    Set<Integer> versions = new HashSet<>();
    fixtures().forEach(f -> {
      try {
        versions.add(ModelFixtures.read(f.file()).get("version").asInt());
      } catch (IOException e) {
        throw new java.io.UncheckedIOException(e);
      }
    });
    assertTrue(versions.containsAll(Set.of(1, 2, 3, ModelFile.VERSION)), "format versions " + versions);
  }

  /**
   * A model file records its algorithm's own settings: those of every fixture configure the named
   * algorithm back to the same canonical form (a version 4 file holds exactly that form; an older one
   * holds what its writer recorded, so only its algorithm is checked to be registered).
   */
  @ParameterizedTest(name = "{0}")
  @MethodSource("fixtures")
  void theRecordedSettingsConfigureTheAlgorithmThatTrainedTheModel(Fixture f) throws IOException {
    ReleasedModel m = ModelFile.read(f.file());
    Algorithm a = Algorithms.named(m.algorithm());
    if (ModelFixtures.read(f.file()).get("version").asInt() < 4) {
      return;
    }
    dev.helmet.protocols.algorithm.Common common = new dev.helmet.protocols.algorithm.Common(1, 1e-5, 0.5,
        dev.helmet.protocols.privacy.Protection.record(), 0, m.features(), m.labels().size());
    var spec = a.configure(new dev.helmet.protocols.config.StrictNode(f.toString(), m.settings(),
        IllegalArgumentException::new), common);
    // As text: a number read back may be another node type (an int written, a long read) of the same value.
    assertEquals(m.settings().toString(), spec.toConfig().toString(), f + ": the settings are the canonical form");
    assertEquals(m.kind(), spec.modelKind(), f + ": the model kind");
  }

  /** The fixed inputs, raw rows as the model's reader takes them. */
  private static Dataset rows(JsonNode inputs, ReleasedModel m) {
    int d = m.inputDimension();
    float[] x = new float[inputs.size() * d];
    for (int i = 0; i < inputs.size(); i++) {
      assertEquals(d, inputs.get(i).size(), "input " + i);
      for (int j = 0; j < d; j++) {
        x[i * d + j] = (float) inputs.get(i).get(j).asDouble();
      }
    }
    return new Dataset("fixed inputs", x, new int[inputs.size()], d,
        m.regression() ? TabularData.NO_CLASSES : m.labels(), null);
  }
}
