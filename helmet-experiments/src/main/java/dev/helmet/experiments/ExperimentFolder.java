package dev.helmet.experiments;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Set;

/**
 * An experiment's output folder as a store: {@code config.json} names the experiment it holds
 * (another one is refused, so two never mix), and {@code cells.jsonl} holds one line per finished
 * cell, appended and flushed as each finishes, so a run resumes and a reader can look at a grid
 * that is still running.
 */
final class ExperimentFolder {
  static final String CELLS = "cells.jsonl";
  static final String CONFIG = "config.json";

  private static final ObjectMapper JSON = new ObjectMapper().disable(SerializationFeature.INDENT_OUTPUT);

  /** Why a run refuses another experiment's folder, and what to do (after the folder's name). */
  static final String RUN_REFUSAL = " holds the results of a different experiment (its " + CONFIG + " differs from "
      + "this configuration other than by more repeats or added variants); use another --out folder, or delete it to "
      + "start over";
  /** The same for a reader, who must not be told to delete a folder a grid may still be writing. */
  static final String READ_REFUSAL = " holds another experiment than this command describes (its " + CONFIG
      + " differs): give the run's own CONFIG, or --preset with the same --dataset, --quick and --features";

  private ExperimentFolder() {}

  /**
   * The finished cells of {@code c} in {@code out} for a reader: nothing is changed (a partial last
   * line, which a running grid may be writing, is skipped).
   *
   * @throws IllegalArgumentException if {@code out} holds no experiment, or another one
   */
  static void readFinished(ExperimentConfig c, Path out, Set<String> done, List<Row> rows, CellTimes times)
      throws IOException {
    if (!Files.exists(out.resolve(CONFIG))) {
      throw new IllegalArgumentException(out + " holds no experiment yet (no " + CONFIG + "); run it first");
    }
    refuseAnotherExperiment(c, out, READ_REFUSAL);
    readCells(out.resolve(CELLS), done, rows, times, false);
  }

  /** Refuses an output folder that holds another experiment; records this one's configuration. */
  static void checkSameExperiment(ExperimentConfig c, Path out) throws IOException {
    Path file = out.resolve(CONFIG);
    if (!refuseAnotherExperiment(c, out, RUN_REFUSAL)
        || !ExperimentFeatures.withLegacyDefaults(JSON.readTree(file.toFile())).equals(c.toJson())) {
      // new, or the same experiment with more repeats or variants: record the configuration that now describes it
      Files.writeString(out.resolve(CONFIG), JSON.writerWithDefaultPrettyPrinter().writeValueAsString(c.toJson()));
    }
  }

  /**
   * Refuses an output folder that holds another experiment (the message: the folder, then {@code
   * refusal}); true when it holds this one. A configuration recorded before the feature stage has
   * no {@code features} key and compares as raw.
   */
  static boolean refuseAnotherExperiment(ExperimentConfig c, Path out, String refusal) throws IOException {
    Path file = out.resolve(CONFIG);
    JsonNode mine = c.toJson();
    if (Files.exists(file)) {
      JsonNode theirs;
      try {
        theirs = JSON.readTree(file.toFile());
      } catch (IOException e) {
        throw new IllegalArgumentException(file + " is not the configuration of an experiment (" + e.getMessage()
            + "); use another --out folder");
      }
      JsonNode recorded = ExperimentFeatures.withLegacyDefaults(theirs);
      if (!recorded.equals(mine) && !extendsRecorded(recorded, mine)) {
        throw new IllegalArgumentException(out + refusal);
      }
      return true;
    }
    return false;
  }

  /**
   * Whether {@code mine} extends {@code recorded}: more repeats, or variants added (every recorded
   * variant still there as it was; a grid grows by a baseline without rerunning its cells) and
   * perhaps more repeats, and nothing else changed.
   */
  private static boolean extendsRecorded(JsonNode recorded, JsonNode mine) {
    if (!(recorded instanceof ObjectNode r) || !(mine instanceof ObjectNode m)) {
      return false;
    }
    int had = r.path("repeats").asInt(0);
    int has = m.path("repeats").asInt(0);
    JsonNode before = r.path("variants");
    JsonNode after = m.path("variants");
    boolean sameVariants = before.equals(after);
    if (had > has || sameVariants && had == has) {
      return false;
    }
    if (!sameVariants) {
      if (!before.isArray() || !after.isArray() || after.size() <= before.size()) {
        return false;
      }
      for (JsonNode v : before) {
        boolean kept = false;
        for (JsonNode w : after) {
          kept |= w.equals(v);
        }
        if (!kept) {
          return false;
        }
      }
    }
    ObjectNode same = r.deepCopy();
    if (!sameVariants) {
      same.set("variants", after);
    }
    same.set("repeats", m.get("repeats"));
    return same.equals(m);
  }

  /** Reads the finished cells; a truncated last line (an interrupted write) is ignored and rerun. */
  static void readCells(Path file, Set<String> done, List<Row> rows, CellTimes times, boolean repair)
      throws IOException {
    readCells(file, done, rows, times, repair, (key, cellRows) -> { });
  }

  /** {@link #readCells(Path, Set, List, CellTimes, boolean)}, handing each cell's rows to {@code perCell}. */
  static void readCells(Path file, Set<String> done, List<Row> rows, CellTimes times, boolean repair,
      java.util.function.BiConsumer<String, List<Row>> perCell) throws IOException {
    if (!Files.exists(file)) {
      return;
    }
    List<String> lines = Files.readAllLines(file, StandardCharsets.UTF_8);
    for (int i = 0; i < lines.size(); i++) {
      String l = lines.get(i);
      if (l.isBlank()) {
        continue;
      }
      JsonNode j;
      try {
        j = JSON.readTree(l);
      } catch (IOException e) {
        if (i == lines.size() - 1) {
          // The run was interrupted while writing it (or, for a reader, is writing it now): a run
          // drops the partial line (so the next append starts on a clean line) and runs the cell
          // again; a reader skips it.
          if (repair) {
            Files.write(file, lines.subList(0, i), StandardCharsets.UTF_8);
          }
          continue;
        }
        throw new IllegalArgumentException(file + " line " + (i + 1) + " is corrupt: " + e.getMessage());
      }
      done.add(j.get("key").asText());
      if (j.hasNonNull("reused_from")) {
        times.addReused();
      } else if (j.path("seconds").isNumber()) {
        times.add(j.get("seconds").asDouble(), j.path("threads").asInt(1));
      } else {
        times.addUntimed();
      }
      List<Row> cellRows = new java.util.ArrayList<>();
      for (JsonNode r : (ArrayNode) j.get("rows")) {
        cellRows.add(JSON.treeToValue(r, Row.class));
      }
      rows.addAll(cellRows);
      perCell.accept(j.get("key").asText(), cellRows);
    }
  }
}
