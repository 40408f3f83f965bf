package dev.helmet.experiments;

import dev.helmet.privacy.ledger.PrivacyCharge;
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
 * fold) the grid's runs compete: "test" takes the best test accuracy (the papers' way: optimistic),
 * "validation" the best validation accuracy (honest: the test set is not looked at), and both
 * report the chosen run's test accuracy.
 *
 * <p>Choosing the best of k candidates looks at all k models, each a release of the same training
 * data, so a selected result costs the composition of the k releases, not one: every selected row
 * carries that total as {@code selection_eps} (four candidates at eps 0.5 cost about eps 1.07).
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
    Map<String, Double> composed = new java.util.HashMap<>();
    for (List<Row> g : groups.values()) {
      double total = selectionEpsilon(g, composed);
      // Ties go to the first grid point, so the choice is deterministic.
      out.add(g.stream().max(Comparator.comparingDouble(Row::testScore)).orElseThrow().selectedBy("test", total));
      out.add(g.stream().max(Comparator.comparingDouble(Row::valScore)).orElseThrow().selectedBy("validation", total));
    }
    return out;
  }

  /**
   * The eps of choosing among {@code candidates}: their charges composed (NaN when a run predates
   * stored charges). Groups with the same candidates' charges share one computation.
   */
  static double selectionEpsilon(List<Row> candidates, Map<String, Double> cache) {
    List<String> charges = new ArrayList<>();
    for (Row r : candidates) {
      if (r.charge() == null) {
        return Double.NaN;
      }
      charges.add(r.charge());
    }
    return cache.computeIfAbsent(String.join("\n", charges), k -> {
      List<PrivacyCharge> parsed = new ArrayList<>();
      for (String c : charges) {
        try {
          parsed.add(PrivacyCharge.fromJson(JSON.readTree(c)));
        } catch (java.io.IOException e) {
          throw new IllegalArgumentException("a stored privacy charge is not JSON: " + e.getMessage(), e);
        }
      }
      return PrivacyCharge.composition(parsed).epsilon(1);
    });
  }

  private static final com.fasterxml.jackson.databind.ObjectMapper JSON =
      new com.fasterxml.jackson.databind.ObjectMapper();

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

  /**
   * Mean and standard deviation of test accuracy (MSE for regression) over repeats and folds, with the chosen
   * hyperparameters and the largest selection eps among the runs (the whole selection's cost).
   */
  public record Cell(double mean, double sd, int n, String hyperparameters, double selectionEps) {}

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
          double mean = rows.stream().mapToDouble(Row::metric).average().orElse(Double.NaN);
          double ss = rows.stream().mapToDouble(r -> (r.metric() - mean) * (r.metric() - mean)).sum();
          double sd = rows.size() > 1 ? Math.sqrt(ss / (rows.size() - 1)) : 0;
          Map<String, Integer> votes = new TreeMap<>();
          rows.forEach(r -> votes.merge(r.hyperparameters(), 1, Integer::sum));
          String hp = votes.entrySet().stream().max(Map.Entry.comparingByValue()).orElseThrow().getKey()
              + (votes.size() > 1 ? " (" + votes.size() + " choices)" : "");
          out.computeIfAbsent(sel, k -> new TreeMap<>()).computeIfAbsent(v, k -> new TreeMap<>())
              .computeIfAbsent(p, k -> new TreeMap<>()).computeIfAbsent(w, k -> new TreeMap<>())
              .put(eps, new Cell(mean, sd, rows.size(), hp,
                  rows.stream().mapToDouble(Row::selectionEps).max().orElse(Double.NaN)));
        })))));
    return out;
  }
}
