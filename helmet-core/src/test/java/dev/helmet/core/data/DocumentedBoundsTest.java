package dev.helmet.core.data;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The bounds files of the built-in tabular sets, against the sets' specified shapes and against
 * the real files, which are read from the default cache and fetched there on first use, as the
 * MNIST acceptance tests do (never skipped: a set that cannot be fetched is a failure).
 */
@org.junit.jupiter.api.Tag("integration")
class DocumentedBoundsTest {
  private static final Path CACHE = BuiltinDataset.defaultCache();

  @Test
  void everyTabularSetHasOneBoundPerSpecifiedColumnAndARangeForARegressionTarget() {
    int sets = 0;
    for (BuiltinDataset b : BuiltinDataset.values()) {
      DocumentedBounds d = DocumentedBounds.forDataset(b.id());
      if (!b.isTabular()) {
        assertNull(d, b.id());
        continue;
      }
      sets++;
      assertNotNull(d, b.id() + " has no bounds file");
      assertEquals(b.id(), d.dataset());
      assertEquals(b.features(), d.columns().size(), b.id());
      assertEquals(b.features(), d.sources().size(), b.id());
      assertEquals(b.features(), d.lower().length, b.id());
      d.sources().forEach(s -> assertFalse(s.isBlank(), b.id()));
      for (int j = 0; j < d.columns().size(); j++) {
        if (d.columns().get(j).contains("=")) {
          assertEquals(0, d.lower()[j], b.id() + " one-hot " + d.columns().get(j));
          assertEquals(1, d.upper()[j], b.id() + " one-hot " + d.columns().get(j));
        }
      }
      assertEquals(b.isRegression(), !Double.isNaN(d.targetLower()), b.id());
      assertEquals(b.isRegression(), !Double.isNaN(d.targetUpper()), b.id());
      assertEquals(b.isRegression(), d.targetSource() != null, b.id());
    }
    assertEquals(9, sets);
  }

  @Test
  void theColumnsAreTheLoadedColumnNamesInOrderAndTheRealDataLieWithinTheBounds() {
    for (BuiltinDataset b : BuiltinDataset.values()) {
      if (!b.isTabular()) {
        continue;
      }
      DocumentedBounds d = DocumentedBounds.forDataset(b.id());
      TabularData.Split s = b.loadTabular(CACHE);
      assertEquals(s.train().columnNames(), d.columns(), b.id());
      assertEquals(s.test().columnNames(), d.columns(), b.id());
      // A sanity check that the public bounds are not absurd: at most 1 % of the values outside.
      double[] lo = d.lower();
      double[] hi = d.upper();
      double[] row = new double[lo.length];
      long outside = 0;
      long total = 0;
      for (TabularData t : List.of(s.train(), s.test())) {
        for (int i = 0; i < t.size(); i++) {
          t.features().copyRow(i, row, 0);
          for (int j = 0; j < row.length; j++) {
            outside += row[j] < lo[j] || row[j] > hi[j] ? 1 : 0;
          }
          total += row.length;
          if (t.isRegression()) {
            double y = t.targets()[i];
            outside += y < d.targetLower() || y > d.targetUpper() ? 1 : 0;
            total++;
          }
        }
      }
      assertTrue(outside <= total / 100, b.id() + ": " + outside + " of " + total + " values outside the bounds");
    }
  }

  @Test
  void breastCancerIsNineCytologyScoresFromOneToTen() {
    DocumentedBounds d = DocumentedBounds.forDataset("breast-cancer");
    assertEquals(List.of("Cl.thickness", "Cell.size", "Cell.shape", "Marg.adhesion", "Epith.c.size", "Bare.nuclei",
        "Bl.cromatin", "Normal.nucleoli", "Mitoses"), d.columns());
    assertArrayEquals(new double[] {1, 1, 1, 1, 1, 1, 1, 1, 1}, d.lower());
    assertArrayEquals(new double[] {10, 10, 10, 10, 10, 10, 10, 10, 10}, d.upper());
    assertTrue(Double.isNaN(d.targetLower()));
    assertNull(d.targetSource());
  }

  @Test
  void unknownNamesAndImageSetsHaveNoBounds() {
    assertNull(DocumentedBounds.forDataset("mnist"));
    assertNull(DocumentedBounds.forDataset("no-such-set"));
    assertNull(DocumentedBounds.forDataset("../bounds/pima"));
    assertNull(DocumentedBounds.forDataset("Pima"));
    assertNull(DocumentedBounds.forDataset(null));
  }

  @Test
  void aWellFormedFileIsReadWithItsCommentsQuotesAndTarget() {
    DocumentedBounds d = DocumentedBounds.parse("t.yaml", "# comment\r\ndataset: t\r\n\r\ncolumns:\r\n"
        + "  - name: \"say \\\"hi\\\" \\\\ #1\"\r\n    lower: -1.5\r\n    upper: 2e3\r\n    source: \"a: b\"\r\n"
        + "  # between entries\r\n  - name: plain=level\r\n    upper: 1\r\n    lower: 0\r\n    source: one-hot\r\n"
        + "target:\r\n  lower: 0\r\n  upper: 50\r\n  source: \"censored at 50\"\r\n");
    assertEquals(List.of("say \"hi\" \\ #1", "plain=level"), d.columns());
    assertEquals(List.of("a: b", "one-hot"), d.sources());
    assertArrayEquals(new double[] {-1.5, 0}, d.lower());
    assertArrayEquals(new double[] {2000, 1}, d.upper());
    assertEquals(0, d.targetLower());
    assertEquals(50, d.targetUpper());
    assertEquals("censored at 50", d.targetSource());
    d.lower()[0] = 99;
    d.upper()[0] = 99;
    assertEquals(-1.5, d.lower()[0], "lower() is a copy");
    assertEquals(2000, d.upper()[0], "upper() is a copy");
  }

  private static final String HEAD = "dataset: t\ncolumns:\n";

  private static String column(String name, String lower, String upper) {
    return "  - name: \"" + name + "\"\n    lower: " + lower + "\n    upper: " + upper + "\n    source: \"s\"\n";
  }

  private static void assertRejected(String text, String... fragments) {
    DataFormatException e = assertThrows(DataFormatException.class, () -> DocumentedBounds.parse("t.yaml", text));
    assertTrue(e.getMessage().startsWith("t.yaml"), e.getMessage());
    for (String f : fragments) {
      assertTrue(e.getMessage().contains(f), "'" + f + "' not in: " + e.getMessage());
    }
  }

  @Test
  void malformedBoundsAreRejectedNamingTheFileAndTheColumn() {
    String ok = column("a", "0", "1");
    assertRejected(HEAD + ok + column("b", "5", "3"), "column 2 'b'", "lower <= upper", "lower 5.0, upper 3.0");
    assertRejected(HEAD + column("a", "0", "Infinity"), "column 1 'a'", "finite");
    assertRejected(HEAD + column("a", "NaN", "1"), "column 1 'a'", "finite");
    assertRejected(HEAD + column("a", "0", ".inf"), "column 1 'a'", "upper '.inf' is not a number");
    assertRejected(HEAD + column("a", "zero", "1"), "column 1 'a'", "lower 'zero' is not a number");
    assertRejected(HEAD + ok + "  - name: \"b\"\n    lower: 0\n    source: \"s\"\n", "column 2 'b'", "missing 'upper'");
    assertRejected(HEAD + ok + "  - lower: 0\n    upper: 1\n    source: \"s\"\n", "column 2:", "missing 'name'");
    assertRejected(HEAD + ok + "  - name: \"b\"\n    lower: 0\n    upper: 1\n", "column 2 'b'", "missing 'source'");
    assertRejected(HEAD + ok + ok, "column 2 'a'", "appears twice");
    assertRejected(HEAD + ok + "target:\n  lower: 10\n  upper: 1\n  source: \"s\"\n", "target", "lower 10.0");
    assertRejected(HEAD + ok + "target:\n  lower: 0\n  upper: 1\n", "target", "missing 'source'");
  }

  @Test
  void malformedStructureIsRejectedNamingTheFileAndTheLine() {
    String ok = column("a", "0", "1");
    assertRejected(HEAD, "0 columns");
    assertRejected("columns:\n" + ok, "no 'dataset:' line");
    assertRejected(HEAD + ok + "dataset: u\n", "line 7", "'dataset:' must come once");
    assertRejected(HEAD + ok.replace("upper:", "uper:"), "line 5", "unknown key 'uper'");
    assertRejected(HEAD + ok + "  - name: \"b\"\n    lower: 0\n    lower: 1\n", "line 9", "given twice");
    assertRejected(HEAD + ok + "extra: 1\n", "line 7", "unknown key 'extra'");
    assertRejected("dataset: t\ncolumns: [a]\n", "line 2", "entries below it");
    assertRejected("dataset: t\n  lower: 0\n", "line 2", "outside a column entry");
    assertRejected(HEAD + "  - name: \"a\n", "line 3", "unterminated");
    assertRejected(HEAD + "  - name: \"a\" b\n", "line 3", "must end the line");
    assertRejected(HEAD + "  - name: \"a\\n\"\n", "line 3", "escapes");
    assertRejected(HEAD + ok + "target:\n  name: \"y\"\n", "line 8", "unknown key 'name'");
    assertRejected(HEAD + "  - just text\n", "line 3", "expected 'key: value'");
  }

  @Test
  void aFileNamingAnotherDataSetIsRejected() {
    DataFormatException e = assertThrows(DataFormatException.class, () -> DocumentedBounds.forDataset("misnamed"));
    assertTrue(e.getMessage().contains("misnamed.yaml") && e.getMessage().contains("'pima'"), e.getMessage());
  }
}
