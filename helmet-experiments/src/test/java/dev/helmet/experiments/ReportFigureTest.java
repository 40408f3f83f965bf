package dev.helmet.experiments;

import static org.junit.jupiter.api.Assertions.assertEquals;

import org.junit.jupiter.api.Test;

/**
 * The report's table figures (no "± 0.00" for a single run, and how many runs a partial grid has),
 * and its sentence on the neighbouring relations, taken from the rows.
 */
class ReportFigureTest {
  private static Row row(String neighbours) {
    return new Row("v", "mlp", Double.NaN, Double.NaN, Double.NaN, 0.005, 1, 0.004, 1000, 10, 6000, "iid", 0, 1, 3,
        3, 1e-5, 0.9, 0.9, 0.9, "grid", Double.NaN, neighbours, null, "raw", Double.NaN, Double.NaN, Double.NaN,
        Double.NaN, Double.NaN);
  }

  /** The relation the rows were accounted under, not a default: smm-fl's rows are add-or-remove. */
  @Test
  void theReportNamesTheRowsNeighbouringRelations() {
    String one = Report.relations(java.util.List.of(row("add or remove one record"), row("add or remove one record")));
    assertEquals("Every variant is accounted under the same neighbouring relation, neighbours that add or remove one "
        + "record (`neighbours` in `results.csv`), so the columns compare. ", one);
    String two = Report.relations(java.util.List.of(row("replace one record"), row("add or remove one record")));
    assertEquals("The variants are accounted under different neighbouring relations (add or remove one record; "
        + "replace one record; `neighbours` in `results.csv`): compare their eps with that in mind. ", two);
    assertEquals("", Report.relations(java.util.List.of(row(null))));
  }

  @Test
  void aFigureSaysHowManyRunsItIsOf() {
    assertEquals("91.50 ± 0.50 (eps total 3)", Report.figure(new Results.Cell(0.915, 0.005, 2, "", 3), 2));
    assertEquals("91.50 (1 run of 2; eps total 3)", Report.figure(new Results.Cell(0.915, 0, 1, "", 3), 2));
    assertEquals("91.50 (1 run; eps total 3)", Report.figure(new Results.Cell(0.915, 0, 1, "", 3), 1));
    assertEquals("80.00 ± 1.00 (3 runs of 5; eps total 0.917)",
        Report.figure(new Results.Cell(0.8, 0.01, 3, "", 0.917), 5));
    assertEquals("80.00 (1 run; eps total not recorded)",
        Report.figure(new Results.Cell(0.8, 0, 1, "", Double.NaN), 1));
  }
}
