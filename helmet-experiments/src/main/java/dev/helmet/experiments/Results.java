package dev.helmet.experiments;

import java.io.IOException;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.apache.commons.csv.CSVFormat;
import org.apache.commons.csv.CSVPrinter;

/**
 * Hyperparameter selection and summaries. For every (variant, partition, parties, eps, repeat,
 * fold) the grid's runs compete: "test" takes the best test accuracy (the papers' way: optimistic,
 * the selection is not privacy-accounted), "validation" the best validation accuracy (honest: the
 * test set is not looked at), and both report the chosen run's test accuracy.
 */
public final class Results {
  private Results() {}

  /** The selected runs: for every group, the best on test and the best on validation. */
  public static List<Row> select(List<Row> grid) {
    Map<String, List<Row>> groups = new LinkedHashMap<>();
    for (Row r : grid) {
      if (r.selection().equals("grid")) {
        groups.computeIfAbsent(groupKey(r), k -> new ArrayList<>()).add(r);
      }
    }
    List<Row> out = new ArrayList<>();
    for (List<Row> g : groups.values()) {
      // Ties go to the first grid point, so the choice is deterministic.
      out.add(g.stream().max(Comparator.comparingDouble(Row::testAcc)).orElseThrow().selectedBy("test"));
      out.add(g.stream().max(Comparator.comparingDouble(Row::valAcc)).orElseThrow().selectedBy("validation"));
    }
    return out;
  }

  private static String groupKey(Row r) {
    return r.variant() + "|" + r.partition() + "|" + r.parties() + "|" + r.perParty() + "|" + r.targetEps() + "|"
        + r.seed() + "|" + r.fold();
  }

  /** Writes every run and then the selected ones, one row each, columns {@link Row#COLUMNS}. */
  public static void writeCsv(Path file, List<Row> grid, List<Row> selected) throws IOException {
    try (Writer w = Files.newBufferedWriter(file, StandardCharsets.UTF_8);
        CSVPrinter p = new CSVPrinter(w, CSVFormat.RFC4180.builder().setHeader(Row.COLUMNS.toArray(String[]::new))
            .setRecordSeparator('\n').build())) {
      for (Row r : grid) {
        p.printRecord(r.values());
      }
      for (Row r : selected) {
        p.printRecord(r.values());
      }
    }
  }

  /** Mean and standard deviation of test accuracy over repeats and folds, with the chosen hyperparameters. */
  public record Cell(double mean, double sd, int n, String hyperparameters) {}

  /**
   * Summaries of the selected runs: selection -> variant -> partition -> parties -> eps -> cell.
   */
  public static Map<String, Map<String, Map<String, Map<Integer, Map<Double, Cell>>>>> summarise(List<Row> selected) {
    Map<String, Map<String, Map<String, Map<Integer, Map<Double, List<Row>>>>>> g = new TreeMap<>();
    for (Row r : selected) {
      g.computeIfAbsent(r.selection(), k -> new TreeMap<>()).computeIfAbsent(r.variant(), k -> new TreeMap<>())
          .computeIfAbsent(r.partition(), k -> new TreeMap<>()).computeIfAbsent(r.parties(), k -> new TreeMap<>())
          .computeIfAbsent(r.targetEps(), k -> new ArrayList<>()).add(r);
    }
    Map<String, Map<String, Map<String, Map<Integer, Map<Double, Cell>>>>> out = new TreeMap<>();
    g.forEach((sel, byVariant) -> byVariant.forEach((v, byPartition) -> byPartition.forEach((p, byParties) ->
        byParties.forEach((w, byEps) -> byEps.forEach((eps, rows) -> {
          double mean = rows.stream().mapToDouble(Row::testAcc).average().orElse(Double.NaN);
          double ss = rows.stream().mapToDouble(r -> (r.testAcc() - mean) * (r.testAcc() - mean)).sum();
          double sd = rows.size() > 1 ? Math.sqrt(ss / (rows.size() - 1)) : 0;
          Map<String, Integer> votes = new TreeMap<>();
          rows.forEach(r -> votes.merge(r.hyperparameters(), 1, Integer::sum));
          String hp = votes.entrySet().stream().max(Map.Entry.comparingByValue()).orElseThrow().getKey()
              + (votes.size() > 1 ? " (" + votes.size() + " choices)" : "");
          out.computeIfAbsent(sel, k -> new TreeMap<>()).computeIfAbsent(v, k -> new TreeMap<>())
              .computeIfAbsent(p, k -> new TreeMap<>()).computeIfAbsent(w, k -> new TreeMap<>())
              .put(eps, new Cell(mean, sd, rows.size(), hp));
        })))));
    return out;
  }
}
