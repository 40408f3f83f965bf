package dev.helmet.experiments;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** One chart a ring width for the smm presets' MECHANISM-bB series; the reference in each. */
class BitPanelsTest {
  private static Chart.Series line(String label, double y) {
    return new Chart.Series(label, new double[] {1, 3}, new double[] {y, y + 0.01}, new double[] {0, 0}, false);
  }

  /** The stroke colour of the legend line drawn for {@code label} in an SVG chart. */
  private static String colourOf(String svg, String label) {
    int at = svg.indexOf(">" + label + "<");
    assertTrue(at > 0, label + " is in the chart");
    Matcher m = Pattern.compile("stroke=\"(#[0-9A-Fa-f]{6})\"").matcher(svg.substring(0, at));
    String last = null;
    while (m.find()) {
      last = m.group(1);
    }
    return last;
  }

  @Test
  void eachWidthGetsAChartWithTheReferenceAndTheSameColourPerMechanism(@TempDir Path dir) throws Exception {
    List<String> names = List.of("ddg-b10", "ddg-b6", "dp-sgd", "smm-b10", "smm-b6");
    List<Chart.Series> series = new ArrayList<>();
    for (int i = 0; i < names.size(); i++) {
      series.add(line(names.get(i) + ", 10 parties", 0.1 * (i + 1)));
    }
    List<Path> panels = BitPanels.write(dir.resolve("acc"), "Accuracy", "eps", series, names,
        java.util.Collections.nCopies(names.size(), "10"));
    assertEquals(List.of(dir.resolve("acc-b6"), dir.resolve("acc-b10")), panels, "in increasing width");
    String b6 = Files.readString(dir.resolve("acc-b6.svg"));
    String b10 = Files.readString(dir.resolve("acc-b10.svg"));
    assertTrue(Files.size(dir.resolve("acc-b6.png")) > 0);
    assertTrue(b6.contains("Accuracy, b = 6") && b10.contains("Accuracy, b = 10"));
    assertTrue(b6.contains(">smm-b6, 10 parties<") && b6.contains(">dp-sgd, 10 parties<"));
    assertFalse(b6.contains("b10, 10 parties"), "only its own width and the reference");
    assertTrue(b10.contains(">dp-sgd, 10 parties<") && !b10.contains("b6, 10 parties"));
    assertEquals(colourOf(b6, "smm-b6, 10 parties"), colourOf(b10, "smm-b10, 10 parties"));
    assertEquals(colourOf(b6, "dp-sgd, 10 parties"), colourOf(b10, "dp-sgd, 10 parties"));
    assertFalse(colourOf(b6, "smm-b6, 10 parties").equals(colourOf(b6, "ddg-b6, 10 parties")));
    String md = BitPanels.markdown(panels, "accuracy vs eps");
    assertTrue(md.contains("![accuracy vs eps, b = 10](acc-b10.png)"), md);
  }

  @Test
  void oneWidthOrNoneGivesNoPanels(@TempDir Path dir) throws Exception {
    List<String> two = List.of("", "");
    assertEquals(List.of(), BitPanels.write(dir.resolve("a"), "t", "x",
        List.of(line("smm-b8", 0.5), line("dp-sgd", 0.6)), List.of("smm-b8", "dp-sgd"), two));
    assertEquals(List.of(), BitPanels.write(dir.resolve("b"), "t", "x",
        List.of(line("helmet", 0.5), line("dp-fl", 0.6)), List.of("helmet", "dp-fl"), two));
    // a width too long for an int is not a width: the name is a mechanism of its own, no exception
    assertEquals(List.of(), BitPanels.write(dir.resolve("d"), "t", "x",
        List.of(line("x-b99999999999", 0.5), line("smm-b8", 0.6)), List.of("x-b99999999999", "smm-b8"), two));
    assertEquals("", BitPanels.markdown(List.of(), "x"));
    assertThrows(IllegalArgumentException.class, () -> BitPanels.write(dir.resolve("c"), "t", "x",
        List.of(line("smm-b8", 0.5)), List.of(), List.of()));
  }

  @Test
  void aMechanismAtTwoPartyCountsGetsTwoColours(@TempDir Path dir) throws Exception {
    List<Chart.Series> series = List.of(line("smm-b6, 5 parties", 0.5), line("smm-b6, 10 parties", 0.6),
        line("smm-b8, 5 parties", 0.7), line("smm-b8, 10 parties", 0.8));
    BitPanels.write(dir.resolve("p"), "t", "x", series, List.of("smm-b6", "smm-b6", "smm-b8", "smm-b8"),
        List.of("5", "10", "5", "10"));
    String b6 = Files.readString(dir.resolve("p-b6.svg"));
    assertFalse(colourOf(b6, "smm-b6, 5 parties").equals(colourOf(b6, "smm-b6, 10 parties")));
    assertEquals(colourOf(b6, "smm-b6, 10 parties"), colourOf(Files.readString(dir.resolve("p-b8.svg")),
        "smm-b8, 10 parties"));
  }
}
