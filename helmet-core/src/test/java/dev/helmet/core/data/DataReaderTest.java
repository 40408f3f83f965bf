package dev.helmet.core.data;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.helmet.core.testdata.TestData;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.zip.GZIPOutputStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class DataReaderTest {
  @TempDir Path dir;

  private Path write(String name, String text) throws IOException {
    Path p = dir.resolve(name);
    Files.writeString(p, text, StandardCharsets.UTF_8);
    return p;
  }

  @Test
  void readsTheBundledRealDataSetsWithTheirKnownShapes() {
    Dataset iris = TestData.iris();
    assertEquals(150, iris.size());
    assertEquals(4, iris.dimension());
    assertArrayEquals(new int[] {50, 50, 50}, iris.classCounts());
    assertEquals(5.1f, iris.feature(0, 0));
    Dataset wine = TestData.wine();
    assertEquals(178, wine.size());
    assertEquals(13, wine.dimension());
    assertArrayEquals(new int[] {59, 71, 48}, wine.classCounts());
    Dataset bc = TestData.breastCancer();
    assertEquals(569, bc.size());
    assertEquals(30, bc.dimension());
    assertArrayEquals(new int[] {212, 357}, bc.classCounts());
    Dataset digits = TestData.digits();
    assertEquals(1797, digits.size());
    assertEquals(64, digits.dimension());
    assertEquals(10, digits.numClasses());
    Dataset heart = TestData.heartScale();
    assertEquals(270, heart.size());
    assertEquals(13, heart.dimension());
    assertEquals(List.of("-1", "1"), heart.labelSet().names());
    assertArrayEquals(new int[] {150, 120}, heart.classCounts());
  }

  @Test
  void csvDetectsAHeaderAndSelectsTheLabelColumnByName() throws IOException {
    Path p = write("d.csv", "species,a,b\ncat,1,2\ndog,3,4\ncat,5,6\n");
    Dataset d = DataReader.read(p, ReadOptions.defaults().withLabelColumn("species"));
    assertEquals(3, d.size());
    assertEquals(2, d.dimension());
    assertEquals(List.of("cat", "dog"), d.labelSet().names());
    assertEquals(3f, d.feature(1, 0));
    assertEquals(1, d.label(1));
  }

  @Test
  void csvWithoutHeaderUsesTheLastColumnAndNumericLabelOrder() throws IOException {
    Path p = write("d.csv", "1,2,10\n3,4,2\n5,6,10\n");
    Dataset d = DataReader.read(p, ReadOptions.defaults());
    assertEquals(List.of("2", "10"), d.labelSet().names()); // numeric order, not lexical
    assertEquals(1, d.label(0));
    assertEquals(2, d.dimension());
  }

  @Test
  void integralLabelsWrittenDifferentlyAreTheSameClass() throws IOException {
    Path p = write("d.csv", "1,+1\n2,1.0\n3,1\n4,-1\n");
    Dataset d = DataReader.read(p, ReadOptions.defaults());
    assertEquals(List.of("-1", "1"), d.labelSet().names());
    assertArrayEquals(new int[] {1, 3}, d.classCounts());
  }

  @Test
  void tsvAndGzippedCsvAreRead() throws IOException {
    Path tsv = write("d.tsv", "1\t2\ta\n3\t4\tb\n");
    assertEquals(2, DataReader.read(tsv, ReadOptions.defaults()).size());
    Path gz = dir.resolve("d.csv.gz");
    try (OutputStream out = new GZIPOutputStream(Files.newOutputStream(gz))) {
      out.write("1,2,a\n3,4,b\n".getBytes(StandardCharsets.UTF_8));
    }
    assertEquals(2, DataReader.read(gz, ReadOptions.defaults()).size());
  }

  @Test
  void csvLabelColumnByIndexAndPartyColumn() throws IOException {
    Path p = write("d.csv", "y,x1,party,x2\na,1,p1,2\nb,3,p2,4\n");
    Dataset d = DataReader.read(p, ReadOptions.defaults().withLabelColumn("0").withPartyColumn("party"));
    assertEquals(2, d.dimension());
    assertEquals("p2", d.party(1));
    assertEquals(4f, d.feature(1, 1));
  }

  @Test
  void unlabelledCsvReadsEveryColumnAsAFeature() throws IOException {
    Path p = write("d.csv", "1,2,3\n4,5,6\n");
    Dataset d = DataReader.read(p, ReadOptions.defaults().withLabelColumn("none"));
    assertEquals(3, d.dimension());
    assertEquals(List.of("?"), d.labelSet().names());
  }

  @Test
  void raggedRowsNameTheLine() throws IOException {
    Path p = write("r.csv", "1,2,a\n3,4,b\n5,b\n");
    DataFormatException e = assertThrows(DataFormatException.class, () -> DataReader.read(p, ReadOptions.defaults()));
    assertTrue(e.getMessage().contains("r.csv line 3"), e.getMessage());
    assertTrue(e.getMessage().contains("ragged"), e.getMessage());
  }

  @Test
  void nanAndInfinityAreRejectedWithTheirPlace() throws IOException {
    Path nan = write("n.csv", "1,2,a\n3,NaN,b\n");
    DataFormatException e = assertThrows(DataFormatException.class, () -> DataReader.read(nan, ReadOptions.defaults()));
    assertTrue(e.getMessage().contains("line 2 column 2") && e.getMessage().contains("not a finite number"),
        e.getMessage());
    Path inf = write("i.csv", "1,Infinity,a\n");
    assertThrows(DataFormatException.class, () -> DataReader.read(inf, ReadOptions.defaults()));
    Path huge = write("h.csv", "1,1e39,a\n"); // finite as a double, overflows float
    DataFormatException big = assertThrows(DataFormatException.class, () -> DataReader.read(huge,
        ReadOptions.defaults()));
    assertTrue(big.getMessage().contains("'1e39' is too large") && big.getMessage().contains("32-bit floats"),
        big.getMessage());
  }

  @Test
  void nonNumericAndMissingValuesAreRejected() throws IOException {
    Path p = write("x.csv", "1,2,a\n3,abc,b\n");
    DataFormatException e = assertThrows(DataFormatException.class,
        () -> DataReader.read(p, ReadOptions.defaults().withHeader(false)));
    assertTrue(e.getMessage().contains("'abc' is not a number"), e.getMessage());
    Path m = write("m.csv", "1,2,a\n3,,b\n");
    assertTrue(assertThrows(DataFormatException.class, () -> DataReader.read(m, ReadOptions.defaults()))
        .getMessage().contains("missing value"));
  }

  @Test
  void unknownLabelsAgainstAFixedLabelSetAreNamed() throws IOException {
    Path p = write("t.csv", "1,2,cat\n3,4,bird\n");
    LabelSet known = LabelSet.of(List.of("cat", "dog"));
    DataFormatException e = assertThrows(DataFormatException.class,
        () -> DataReader.read(p, ReadOptions.defaults().withLabelSet(known)));
    assertTrue(e.getMessage().contains("unknown label 'bird'"), e.getMessage());
  }

  @Test
  void missingUnreadableAndEmptyFilesGiveClearErrors() throws IOException {
    assertTrue(assertThrows(DataFormatException.class,
        () -> DataReader.read(dir.resolve("nope.csv"), ReadOptions.defaults())).getMessage().contains("no such file"));
    assertTrue(assertThrows(DataFormatException.class,
        () -> DataReader.read(dir, ReadOptions.defaults())).getMessage().contains("directory"));
    Path empty = write("e.csv", "");
    assertTrue(assertThrows(DataFormatException.class,
        () -> DataReader.read(empty, ReadOptions.defaults())).getMessage().contains("empty"));
  }

  @Test
  void wrongExpectedDimensionIsRejected() throws IOException {
    Path p = write("d.csv", "1,2,a\n");
    DataFormatException e = assertThrows(DataFormatException.class,
        () -> DataReader.read(p, ReadOptions.defaults().withDimension(3)));
    assertTrue(e.getMessage().contains("expected 3"), e.getMessage());
  }

  @Test
  void libsvmReadsSparseRowsAndRejectsMalformedTokens() throws IOException {
    Path p = write("d.svm", "+1 1:0.5 3:2 # comment\n-1 2:1\n");
    Dataset d = DataReader.read(p, ReadOptions.defaults());
    assertEquals(3, d.dimension());
    assertEquals(0f, d.feature(0, 1));
    assertEquals(2f, d.feature(0, 2));
    assertEquals(List.of("-1", "1"), d.labelSet().names());
    Path bad = write("b.svm", "1 1:0.5 x\n");
    assertTrue(assertThrows(DataFormatException.class, () -> DataReader.read(bad, ReadOptions.defaults()))
        .getMessage().contains("line 1: 'x' is not index:value"));
    Path order = write("o.svm", "1 3:1 2:1\n");
    assertTrue(assertThrows(DataFormatException.class, () -> DataReader.read(order, ReadOptions.defaults()))
        .getMessage().contains("ascending"));
    Path nan = write("n.svm", "1 1:nan\n");
    assertThrows(DataFormatException.class, () -> DataReader.read(nan, ReadOptions.defaults()));
    Path wide = write("w.svm", "1 5:1\n");
    assertTrue(assertThrows(DataFormatException.class,
        () -> DataReader.read(wide, ReadOptions.defaults().withDimension(4))).getMessage().contains("exceeds"));
  }

  @Test
  void formatIsDetectedFromContentWhenTheNameSaysNothing() throws IOException {
    Path svm = write("data1", "1 1:0.5 2:1\n0 2:3\n");
    assertEquals(DataFormat.LIBSVM, DataReader.detect(svm));
    Path csv = write("data2", "1,2,3\n");
    assertEquals(DataFormat.CSV, DataReader.detect(csv));
    Path junk = write("data3", "hello world\n");
    assertTrue(assertThrows(DataFormatException.class, () -> DataReader.detect(junk)).getMessage().contains("--format"));
  }
}
