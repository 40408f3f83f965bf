package dev.helmet.experiments;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Finished cells of other experiments that a run takes instead of running them ({@code experiment
 * run --reuse DIR}). A sweep often repeats a point of another grid: smm-fl-batch at |B| = 240 and
 * smm-fl-gamma at gamma = m/4 are smm-fl's own eps 3 runs. A cell is taken only when it is the same
 * run: the same data (every key of the configuration but its name, eps list, variants, repeats,
 * plots, party counts and partitions, which the cell itself names), the same variant (algorithm,
 * summation, centralized, settings point), partition, party count, repeat and fold, and a row for
 * every eps of this experiment. Its rows are copied under this experiment's variant name.
 */
final class CellReuse {
  /** Configuration keys that may differ between the two experiments (the cell matches the rest). */
  private static final Set<String> FREE = Set.of("name", "epsilons", "variants", "repeats", "plots", "parties",
      "partitions");
  private static final ObjectMapper JSON = new ObjectMapper();

  /** Another experiment's folder: its variants (as recorded) and its finished cells' rows by key. */
  private record Donor(String name, List<ObjectNode> variants, Map<String, List<Row>> cells) {}

  /** A cell found: where from (the experiment's name and its cell's key) and the rows, renamed. */
  record Found(String from, List<Row> rows) {}

  private final List<Donor> donors;
  /** Donor cells already given to a cell of this run: each is one run, so it is taken at most once. */
  private final Set<String> given = new HashSet<>();

  private CellReuse(List<Donor> donors) {
    this.donors = donors;
  }

  /** None: every cell runs. */
  static final CellReuse NONE = new CellReuse(List.of());

  /**
   * The finished cells of the experiments in {@code dirs} that {@code c}, run into {@code out}, may
   * take.
   *
   * @throws IllegalArgumentException if a folder holds no experiment, one on other data, or is
   *     {@code out}
   */
  static CellReuse load(ExperimentConfig c, List<Path> dirs, Path out) throws IOException {
    List<Donor> donors = new ArrayList<>();
    ObjectNode mine = c.toJson();
    for (Path dir : dirs) {
      Path file = dir.resolve(ExperimentFolder.CONFIG);
      if (!Files.exists(file)) {
        throw new IllegalArgumentException("--reuse " + dir + ": holds no experiment (no " + ExperimentFolder.CONFIG
            + ")");
      }
      if (Files.exists(out) && Files.isSameFile(dir, out)) {
        // Its finished cells are kept anyway; taking one for another variant would copy a run, not repeat it.
        throw new IllegalArgumentException("--reuse " + dir + ": is the output folder itself");
      }
      JsonNode theirs = ExperimentFeatures.withLegacyDefaults(JSON.readTree(file.toFile()));
      for (String key : union(mine, theirs)) {
        if (!FREE.contains(key) && !mine.path(key).equals(theirs.path(key))) {
          throw new IllegalArgumentException("--reuse " + dir + ": its experiment " + theirs.path("name").asText()
              + " differs in " + key + " (" + theirs.path(key) + " there, " + mine.path(key) + " here), so its runs "
              + "are not runs of this experiment");
        }
      }
      List<ObjectNode> variants = new ArrayList<>();
      theirs.path("variants").forEach(v -> variants.add((ObjectNode) v));
      Set<String> keys = new HashSet<>();
      List<Row> rows = new ArrayList<>();
      Map<String, List<Row>> cells = new HashMap<>();
      // Read line by line, as a run would: a cut-off last line (a grid still writing) is skipped.
      ExperimentFolder.readCells(dir.resolve(ExperimentFolder.CELLS), keys, rows, new CellTimes(), false,
          (key, cellRows) -> cells.put(key, cellRows));
      donors.add(new Donor(theirs.path("name").asText(), variants, cells));
    }
    return new CellReuse(donors);
  }

  private static Set<String> union(JsonNode a, JsonNode b) {
    Set<String> keys = new java.util.TreeSet<>();
    a.fieldNames().forEachRemaining(keys::add);
    b.fieldNames().forEachRemaining(keys::add);
    return keys;
  }

  /** The same run of {@code cell} in one of the folders, or null. */
  Found find(ExperimentConfig c, ExperimentRunner.Cell cell) {
    ExperimentConfig.Variant v = cell.variant();
    ObjectNode me = (ObjectNode) Variants.toJson(List.of(v)).get(0);
    JsonNode point = v.points().get(cell.point());
    String prefix = cell.partition() + "/" + cell.parties() + "/" + cell.repeat() + "/" + cell.fold() + "/";
    for (Donor d : donors) {
      for (ObjectNode theirs : d.variants()) {
        if (!sameRunner(me, theirs)) {
          continue;
        }
        for (JsonNode p : theirs.path("points")) {
          if (!p.equals(point)) {
            continue;
          }
          String key = prefix + theirs.path("name").asText() + "/" + p;
          List<Row> rows = d.cells().get(key);
          List<Row> taken = rows == null || given.contains(d.name() + "\n" + key) ? null
              : rowsAt(c.epsilons(), rows, v.name());
          if (taken != null) {
            given.add(d.name() + "\n" + key);
            return new Found(d.name() + " " + prefix + theirs.path("name").asText(), taken);
          }
        }
      }
    }
    return null;
  }

  /** Everything of a variant but its name and points. */
  private static boolean sameRunner(ObjectNode a, ObjectNode b) {
    ObjectNode x = a.deepCopy();
    ObjectNode y = b.deepCopy();
    for (ObjectNode o : List.of(x, y)) {
      o.remove("name");
      o.remove("points");
    }
    return x.equals(y);
  }

  /**
   * The rows at {@code epsilons}, renamed to {@code variant}; null unless each eps has exactly one
   * (and the list names each eps once: a repeated eps is two runs, one row is one).
   */
  private static List<Row> rowsAt(List<Double> epsilons, List<Row> rows, String variant) {
    if (new HashSet<>(epsilons).size() != epsilons.size()) {
      return null;
    }
    List<Row> out = new ArrayList<>();
    for (double e : epsilons) {
      List<Row> at = rows.stream().filter(r -> r.targetEps() == e).toList();
      if (at.size() != 1) {
        return null;
      }
      ObjectNode j = JSON.valueToTree(at.get(0));
      j.put("variant", variant);
      try {
        out.add(JSON.treeToValue(j, Row.class));
      } catch (IOException ex) {
        throw new java.io.UncheckedIOException(ex);
      }
    }
    return out;
  }
}
