package dev.helmet.core.data;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ArffReaderTest {
  @TempDir Path dir;

  private Path write(String text) throws IOException {
    Path p = dir.resolve("t.arff");
    Files.writeString(p, text);
    return p;
  }

  private static final String WEATHER = """
      % a comment
      @RELATION weather

      @attribute outlook {sunny, 'over cast', rainy}
      @attribute 'temp erature' real
      @attribute humidity INTEGER
      @attribute note string
      @attribute play {yes,no}
      @data
      sunny,85,85,"said \\"hot\\"",no
      % comment between rows
      'over cast', 83.5 , ?, x, yes
      rainy,70,96,?,yes
      """;

  @Test
  void readsNominalNumericAndStringAttributesWithQuotesAndMissingValues() throws IOException {
    DataTable t = ArffReader.read(write(WEATHER));
    assertEquals(3, t.rows());
    assertEquals(List.of("outlook", "temp erature", "humidity", "note", "play"), t.names());
    DataTable.Categorical outlook = (DataTable.Categorical) t.column("outlook");
    assertEquals(List.of("sunny", "over cast", "rainy"), outlook.levels());
    assertArrayEquals(new int[] {0, 1, 2}, outlook.codes());
    assertArrayEquals(new double[] {85, 83.5, 70}, ((DataTable.Numeric) t.column("temp erature")).values());
    assertTrue(t.column("humidity").missing(1));
    DataTable.Categorical note = (DataTable.Categorical) t.column("note");
    assertEquals(List.of("said \"hot\"", "x"), note.levels());
    assertArrayEquals(new int[] {0, 1, -1}, note.codes());
    assertEquals(2, t.incompleteRows());

    TabularData d = TabularData.classification(t.without(java.util.Set.of("note")).completeRows(), "play");
    assertEquals(LabelSet.of(List.of("yes", "no")), d.features().labelSet()); // the header's order
    assertEquals(List.of("outlook=sunny", "outlook=over cast", "outlook=rainy", "temp erature", "humidity"),
        d.columnNames());
    assertEquals(2, d.size());
  }

  @Test
  void sparseRowsDefaultToZeroAndTheFirstLevel() throws IOException {
    DataTable t = ArffReader.read(write("""
        @relation s
        @attribute a numeric
        @attribute b numeric
        @attribute c {x,y}
        @data
        {1 2.5}
        {0 1, 2 y}
        """));
    assertArrayEquals(new double[] {0, 1}, ((DataTable.Numeric) t.column("a")).values());
    assertArrayEquals(new double[] {2.5, 0}, ((DataTable.Numeric) t.column("b")).values());
    assertArrayEquals(new int[] {0, 1}, ((DataTable.Categorical) t.column("c")).codes());
  }

  @Test
  void malformedFilesNameTheLineAndTheProblem() throws IOException {
    String head = "@relation r\n@attribute a numeric\n@attribute c {x,y}\n@data\n";
    assertMessage(head + "1,x\n2\n", "t.arff line 6: expected 2 values");
    assertMessage(head + "1,z\n", "data row 1 attribute 'c': value 'z' is not one of its levels");
    assertMessage(head + "one,x\n", "data row 1 attribute 'a': 'one' is not a number");
    assertMessage(head + "1,'x\n", "t.arff line 5: unterminated");
    assertMessage("@relation r\n@attribute d date\n@data\n", "line 2: attribute 'd' has type 'date'");
    assertMessage("@relation r\n@attribute a numeric\n", "no @data section");
    assertMessage("hello\n", "t.arff line 1: expected @relation, @attribute or @data");
    assertMessage(head, "no data rows");
    assertMessage("@relation r\n@attribute c {x,y\n@data\n", "has no closing '}'");
  }

  private void assertMessage(String text, String expected) throws IOException {
    Path p = write(text);
    DataFormatException e = assertThrows(DataFormatException.class, () -> ArffReader.read(p));
    assertTrue(e.getMessage().contains(expected), e.getMessage());
  }
}
