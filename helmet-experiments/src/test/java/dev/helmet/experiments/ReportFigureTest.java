package dev.helmet.experiments;

import static org.junit.jupiter.api.Assertions.assertEquals;

import org.junit.jupiter.api.Test;

/** The report's table figures: no "± 0.00" for a single run, and how many runs a partial grid has. */
class ReportFigureTest {
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
