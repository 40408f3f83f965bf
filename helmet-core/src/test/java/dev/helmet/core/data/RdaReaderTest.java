package dev.helmet.core.data;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** R data files built byte by byte by {@link RdaBytes}, read back, and broken in the ways files break. */
class RdaReaderTest {
  @TempDir Path dir;

  private static final double NA_REAL = Double.longBitsToDouble(RObject.NA_REAL_BITS);
  private static final int NA = Integer.MIN_VALUE;

  /** A data frame 'df' of three rows with a column of every supported kind; row 2 has NAs. */
  static byte[] frame(int version) {
    RdaBytes b = RdaBytes.save(version);
    b.cell().sym("df").frameStart(6);
    b.reals(0, 1.5, NA_REAL, -2);
    b.ints(RdaBytes.INTSXP, 0, 7, NA, 9);
    b.ints(RdaBytes.LGLSXP, 0, 1, 0, 0);
    b.factor(new String[] {"lo", "hi"}, true, 2, 1, 1);
    b.strs(0, "b", null, "a");
    b.factor(new String[] {"no", "yes"}, false, 1, 2, 2);
    b.frameEnd(3, "x", "n", "lg", "f", "s", "y");
    return b.nil().bytes();
  }

  private Path write(String name, byte[] bytes) throws IOException {
    Path p = dir.resolve(name);
    Files.write(p, bytes);
    return p;
  }

  @Test
  void readsEveryColumnKindWithNasAsMissing() throws IOException {
    DataTable t = RdaReader.readDataFrame(write("df.rda", RdaBytes.xz(frame(2))), "df");
    assertEquals(3, t.rows());
    assertEquals(List.of("x", "n", "lg", "f", "s", "y"), t.names());
    DataTable.Numeric x = (DataTable.Numeric) t.column("x");
    assertEquals(1.5, x.values()[0]);
    assertTrue(Double.isNaN(x.values()[1]));
    assertArrayEquals(new double[] {7, Double.NaN, 9}, ((DataTable.Numeric) t.column("n")).values());
    assertArrayEquals(new double[] {1, 0, 0}, ((DataTable.Numeric) t.column("lg")).values());
    DataTable.Categorical f = (DataTable.Categorical) t.column("f");
    assertEquals(List.of("lo", "hi"), f.levels());
    assertTrue(f.ordered());
    assertArrayEquals(new int[] {1, 0, 0}, f.codes());
    DataTable.Categorical s = (DataTable.Categorical) t.column("s");
    assertEquals(List.of("a", "b"), s.levels()); // character columns: sorted distinct values, as factor()
    assertArrayEquals(new int[] {1, -1, 0}, s.codes());
    assertFalse(((DataTable.Categorical) t.column("y")).ordered());
    assertEquals(1, t.incompleteRows());
  }

  @Test
  void everyCompressionAndBothFormatVersionsGiveTheSameTable() throws IOException {
    DataTable ref = RdaReader.readDataFrame(write("plain.rda", frame(2)), "df");
    for (byte[] b : List.of(RdaBytes.gzip(frame(2)), RdaBytes.bzip2(frame(2)), RdaBytes.xz(frame(3)), frame(3))) {
      DataTable t = RdaReader.readDataFrame(write("c.rda", b), "df");
      assertEquals(ref.names(), t.names());
      assertArrayEquals(((DataTable.Categorical) ref.column("f")).codes(),
          ((DataTable.Categorical) t.column("f")).codes());
      assertArrayEquals(((DataTable.Numeric) ref.column("n")).values(), ((DataTable.Numeric) t.column("n")).values());
    }
  }

  @Test
  void altrepCompactRowNamesOfFormatVersion3AreExpanded() throws IOException {
    RdaBytes b = RdaBytes.save(3);
    b.cell().sym("df").frameStart(1);
    b.reals(0, 1, 2, 3, 4);
    b.cell().sym("names").strs(0, "v");
    b.cell().sym("row.names");
    // ALTREP: flags 238, info pairlist (class, package, type), state c(n, start, step), no attributes
    b.i(238).i(RdaBytes.LISTSXP).sym("compact_intseq").i(RdaBytes.LISTSXP).sym("base")
        .i(RdaBytes.LISTSXP).ints(RdaBytes.INTSXP, 0, 13).nil();
    b.reals(0, 4, 1, 1).nil();
    b.cell().sym("class").strs(0, "data.frame").nil();
    Map<String, DataTable> all = RdaReader.read(write("alt.rda", RdaBytes.gzip(b.nil().bytes())));
    assertEquals(4, all.get("df").rows());
  }

  @Test
  void truncatedStreamsAreReportedWithTheFileAndOffset() throws IOException {
    byte[] full = frame(2);
    Path p = write("cut.rda", Arrays.copyOf(full, full.length / 2));
    DataFormatException e = assertThrows(DataFormatException.class, () -> RdaReader.read(p));
    assertTrue(e.getMessage().startsWith("cut.rda: truncated at byte"), e.getMessage());

    byte[] xz = RdaBytes.xz(full);
    Path q = write("cut.rda.xz", Arrays.copyOf(xz, xz.length - 20));
    DataFormatException e2 = assertThrows(DataFormatException.class, () -> RdaReader.read(q));
    assertTrue(e2.getMessage().startsWith("cut.rda.xz: "), e2.getMessage());
  }

  @Test
  void wrongMagicIsRefused() throws IOException {
    byte[] ascii = "RDA2\nA\n2\n".getBytes(StandardCharsets.US_ASCII);
    DataFormatException e = assertThrows(DataFormatException.class,
        () -> RdaReader.read(write("a.rda", ascii)));
    assertTrue(e.getMessage().contains("a.rda") && e.getMessage().contains("RDX2"), e.getMessage());
    DataFormatException e2 = assertThrows(DataFormatException.class,
        () -> RdaReader.read(write("t.rda", "hello, world\n".getBytes(StandardCharsets.US_ASCII))));
    assertTrue(e2.getMessage().contains("not XDR"), e2.getMessage());
    byte[] v4 = RdaBytes.save(2).bytes();
    v4[10] = 4; // the version word follows "RDX2\nX\n"
    DataFormatException e3 = assertThrows(DataFormatException.class, () -> RdaReader.read(write("v.rda", v4)));
    assertTrue(e3.getMessage().contains("version 4"), e3.getMessage());
  }

  @Test
  void codeAndUnknownTypesAreRefusedByName() throws IOException {
    byte[] closure = RdaBytes.save(2).cell().sym("f").i(3).bytes();
    DataFormatException e = assertThrows(DataFormatException.class,
        () -> RdaReader.read(write("code.rda", closure)));
    assertTrue(e.getMessage().contains("code.rda byte ") && e.getMessage().contains("closure"), e.getMessage());
    byte[] badRef = RdaBytes.save(2).cell().sym("f").i((7 << 8) | 255).bytes();
    DataFormatException e2 = assertThrows(DataFormatException.class,
        () -> RdaReader.read(write("ref.rda", badRef)));
    assertTrue(e2.getMessage().contains("reference to object 7"), e2.getMessage());
  }

  @Test
  void objectsThatAreNotDataFramesOrHaveBadFactorsAreRefused() throws IOException {
    byte[] vec = RdaBytes.save(2).cell().sym("v").reals(0, 1, 2).nil().bytes();
    DataFormatException e = assertThrows(DataFormatException.class, () -> RdaReader.read(write("v.rda", vec)));
    assertTrue(e.getMessage().contains("'v'") && e.getMessage().contains("not a data frame"), e.getMessage());

    RdaBytes b = RdaBytes.save(2);
    b.cell().sym("df").frameStart(1).factor(new String[] {"a"}, false, 1, 3).frameEnd(2, "f");
    Path p = write("f.rda", b.nil().bytes());
    DataFormatException e2 = assertThrows(DataFormatException.class, () -> RdaReader.read(p));
    assertTrue(e2.getMessage().contains("column 'f' row 2: factor code 3"), e2.getMessage());

    Path q = write("df.rda", frame(2));
    DataFormatException e3 = assertThrows(DataFormatException.class, () -> RdaReader.readDataFrame(q, "other"));
    assertTrue(e3.getMessage().contains("[df]"), e3.getMessage());
  }

  @Test
  void encodingDropsIncompleteRowsOneHotsCategoriesAndTakesLabelsFromLevels() throws IOException {
    DataTable t = RdaReader.readDataFrame(write("df.rda", frame(2)), "df").completeRows();
    assertEquals(2, t.rows());
    TabularData c = TabularData.classification(t, "y");
    assertEquals(List.of("x", "n", "lg", "f=lo", "f=hi", "s=a", "s=b"), c.columnNames());
    assertEquals(LabelSet.of(List.of("no", "yes")), c.features().labelSet());
    assertArrayEquals(new int[] {0, 1}, c.features().labels());
    double[] row = new double[7];
    c.features().copyRow(1, row, 0);
    assertArrayEquals(new double[] {-2, 9, 0, 1, 0, 1, 0}, row);
    assertFalse(c.isRegression());

    TabularData r = TabularData.regression(t, "x");
    assertArrayEquals(new double[] {1.5, -2}, r.targets());
    assertEquals(List.of("n", "lg", "f=lo", "f=hi", "s=a", "s=b", "y=no", "y=yes"), r.columnNames());
    assertThrows(DataFormatException.class, () -> TabularData.regression(t, "y"));
    assertThrows(DataFormatException.class, () -> TabularData.classification(t, "x"));
    DataTable withNa = RdaReader.readDataFrame(write("df.rda", frame(2)), "df");
    DataFormatException e = assertThrows(DataFormatException.class, () -> TabularData.classification(withNa, "y"));
    assertTrue(e.getMessage().contains("row 2 column 'x': missing value"), e.getMessage());
  }
}
