package dev.helmet.experiments;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * One chart per ring width, as the paper's panels, when a chart's series are named {@code
 * MECHANISM-bB} (the smm presets): nine lines and more in one chart repeat the palette's colours.
 * A series without a width (central DP-SGD) is the reference in every panel, and a mechanism keeps
 * its colour from panel to panel.
 */
final class BitPanels {
  private static final Pattern WIDTH = Pattern.compile("^(.+)-b(\\d{1,9})$");

  private BitPanels() {}

  /**
   * Writes {@code base-bB} for each width B of {@code series} (named by {@code names}, one each)
   * and returns the charts written, in increasing B; none unless there are at least two widths.
   * {@code qualifiers} (one a series, e.g. its party count) tell apart a mechanism's lines within
   * a panel: a colour is a mechanism and qualifier.
   */
  static List<Path> write(Path base, String title, String xLabel, List<Chart.Series> series, List<String> names,
      List<String> qualifiers) throws IOException {
    if (series.size() != names.size() || series.size() != qualifiers.size()) {
      throw new IllegalArgumentException("one name and qualifier a series: " + series.size() + " series, "
          + names.size() + " names, " + qualifiers.size() + " qualifiers");
    }
    TreeSet<Integer> widths = new TreeSet<>();
    List<String> families = new ArrayList<>();
    for (int i = 0; i < names.size(); i++) {
      Matcher m = WIDTH.matcher(names.get(i));
      String family = (m.matches() ? m.group(1) : names.get(i)) + "\n" + qualifiers.get(i);
      if (m.matches()) {
        widths.add(Integer.parseInt(m.group(2)));
      }
      if (!families.contains(family)) {
        families.add(family);
      }
    }
    List<Path> out = new ArrayList<>();
    if (widths.size() < 2) {
      return out;
    }
    for (int b : widths) {
      List<Chart.Series> panel = new ArrayList<>();
      for (int i = 0; i < series.size(); i++) {
        Matcher m = WIDTH.matcher(names.get(i));
        if (!m.matches() || Integer.parseInt(m.group(2)) == b) {
          Chart.Series s = series.get(i);
          String family = (m.matches() ? m.group(1) : names.get(i)) + "\n" + qualifiers.get(i);
          panel.add(new Chart.Series(s.label(), s.x(), s.y(), s.sd(), s.dashed(), families.indexOf(family)));
        }
      }
      Path p = base.resolveSibling(base.getFileName() + "-b" + b);
      Chart.line(p, title + ", b = " + b, xLabel, true, panel);
      out.add(p);
    }
    return out;
  }

  /** The markdown that shows {@code panels} after their combined chart. */
  static String markdown(List<Path> panels, String alt) {
    if (panels.isEmpty()) {
      return "";
    }
    StringBuilder md = new StringBuilder("By ring width:\n\n");
    for (Path p : panels) {
      String b = p.getFileName().toString().replaceAll(".*-b(\\d+)$", "$1");
      md.append("![").append(alt).append(", b = ").append(b).append("](").append(p.getFileName()).append(".png)\n");
    }
    return md.append("\n").toString();
  }
}
