package dev.helmet.experiments;

import java.awt.BasicStroke;
import java.awt.Color;
import java.awt.Font;
import java.awt.Graphics2D;
import java.awt.RenderingHints;
import java.awt.geom.AffineTransform;
import java.awt.geom.Line2D;
import java.awt.geom.Rectangle2D;
import java.awt.image.BufferedImage;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import javax.imageio.ImageIO;

/**
 * Small publication-style charts written both as SVG (text, for papers and diffs) and PNG (for the
 * README), from one drawing routine: line charts with error bars (accuracy against eps or against
 * the number of parties) and grouped bar charts (the partition comparison). Drawn with Java2D for
 * PNG and as SVG elements for SVG, through the {@link Canvas} both implement.
 */
public final class Chart {
  private static final int WIDTH = 780;
  private static final int HEIGHT = 460;
  private static final int LEFT = 70;
  private static final int RIGHT = 270;
  private static final int TOP = 40;
  private static final int BOTTOM = 60;
  /** Colour-blind-safe palette (Okabe-Ito). */
  private static final String[] COLOURS = {"#0072B2", "#D55E00", "#009E73", "#CC79A7", "#E69F00", "#56B4E9",
      "#000000", "#F0E442"};

  /**
   * One line: points (x, mean, sd); {@code colour} indexes the palette (-1: the series' position),
   * so that related lines (one variant, two selections) can share a colour and differ by dashing.
   */
  public record Series(String label, double[] x, double[] y, double[] sd, boolean dashed, int colour) {
    public Series(String label, double[] x, double[] y, double[] sd, boolean dashed) {
      this(label, x, y, sd, dashed, -1);
    }
  }

  /** One group of bars: a label and one value (and sd) per bar kind. */
  public record BarGroup(String label, double[] y, double[] sd) {}

  private Chart() {}

  /** Draws on one output. */
  interface Canvas {
    void line(double x1, double y1, double x2, double y2, String colour, double width, boolean dashed);

    void rect(double x, double y, double w, double h, String colour);

    void circle(double x, double y, double r, String colour);

    /** anchor: start, middle or end; rotated: 90 degrees anticlockwise. */
    void text(double x, double y, String s, double size, String anchor, boolean rotated);
  }

  /**
   * A y axis: its label, whether values are fractions drawn in percent (accuracy), and whether the
   * scale is logarithmic (optimality gaps span orders of magnitude).
   */
  public record YAxis(String label, boolean percent, boolean log) {
    static final YAxis ACCURACY = new YAxis("test accuracy (%)", true, false);
  }

  /** A line chart of accuracy (0-1, drawn in percent) against x. */
  public static void line(Path base, String title, String xLabel, boolean logX, List<Series> series)
      throws IOException {
    write(base, c -> drawLine(c, title, null, xLabel, logX, YAxis.ACCURACY, series));
  }

  /** A line chart against x with the given y axis and a second title line (the settings), or none. */
  public static void line(Path base, String title, String subtitle, String xLabel, boolean logX, YAxis y,
      List<Series> series) throws IOException {
    write(base, c -> drawLine(c, title, subtitle, xLabel, logX, y, series));
  }

  /** A grouped bar chart of accuracy. */
  public static void bars(Path base, String title, List<String> kinds, List<BarGroup> groups) throws IOException {
    write(base, c -> drawBars(c, title, kinds, groups));
  }

  private interface Drawing {
    void draw(Canvas c);
  }

  /** Writes base.svg and base.png; a machine without fonts still gets the SVG and a clear error for the PNG. */
  private static void write(Path base, Drawing d) throws IOException {
    Svg svg = new Svg();
    d.draw(svg);
    Files.writeString(base.resolveSibling(base.getFileName() + ".svg"), svg.finish(), StandardCharsets.UTF_8);
    try {
      Png png = new Png();
      d.draw(png);
      ImageIO.write(png.image, "png", base.resolveSibling(base.getFileName() + ".png").toFile());
    } catch (RuntimeException | LinkageError e) {
      throw new IOException("cannot render " + base.getFileName() + ".png (Java2D needs a font; install fontconfig "
          + "fonts such as fonts-dejavu-core): " + e, e);
    }
  }

  private static void drawLine(Canvas c, String title, String subtitle, String xLabel, boolean logX, YAxis y,
      List<Series> series) {
    double xmin = Double.POSITIVE_INFINITY;
    double xmax = Double.NEGATIVE_INFINITY;
    double ymin = Double.POSITIVE_INFINITY;
    double ymax = Double.NEGATIVE_INFINITY;
    for (Series s : series) {
      for (int i = 0; i < s.x().length; i++) {
        xmin = Math.min(xmin, s.x()[i]);
        xmax = Math.max(xmax, s.x()[i]);
        double lo = s.y()[i] - s.sd()[i];
        ymin = Math.min(ymin, y.log() && lo <= 0 ? s.y()[i] : lo);
        ymax = Math.max(ymax, s.y()[i] + s.sd()[i]);
      }
    }
    if (xmin == xmax) {
      xmin = logX ? xmin / 2 : xmin - 1;
      xmax = logX ? xmax * 2 : xmax + 1;
    }
    double[] yr;
    List<Double> yt;
    if (y.log()) {
      double lo = Math.pow(10, Math.floor(Math.log10(Math.max(ymin, 1e-300))));
      double hi = Math.pow(10, Math.ceil(Math.log10(Math.max(ymax, lo * 10))));
      yr = new double[] {lo, hi};
      yt = new ArrayList<>();
      for (double t = lo; t <= hi * 1.0001; t *= 10) {
        yt.add(t);
      }
    } else if (y.percent()) {
      yr = niceRange(Math.max(0, Math.min(1, ymin) - 0.02), Math.min(1, Math.max(0, ymax) + 0.02));
      yt = ticks(yr[0], yr[1]);
    } else {
      double pad = 0.04 * Math.max(ymax - ymin, Math.abs(ymax) * 1e-3 + 1e-12);
      yr = niceRange(ymin - pad, ymax + pad);
      yt = ticks(yr[0], yr[1]);
    }
    Axes a = new Axes(xmin, xmax, logX, yr[0], yr[1], y.log());
    frame(c, title, xLabel, y.label());
    if (subtitle != null) {
      c.text((LEFT + WIDTH - RIGHT) / 2.0, TOP - 2, subtitle, 11, "middle", false);
    }
    // y grid and ticks
    for (double t : yt) {
      double py = a.py(t);
      c.line(LEFT, py, WIDTH - RIGHT, py, "#dddddd", 1, false);
      c.text(LEFT - 6, py + 4, y.log() ? String.format(Locale.ROOT, "%.0e", t) : fmt(y.percent() ? 100 * t : t), 12,
          "end", false);
    }
    List<Double> xt = logX ? logTicks(xmin, xmax) : ticks(xmin, xmax);
    for (double t : xt) {
      double px = a.px(t);
      c.line(px, HEIGHT - BOTTOM, px, HEIGHT - BOTTOM + 5, "#000000", 1, false);
      c.text(px, HEIGHT - BOTTOM + 20, fmt(t), 12, "middle", false);
    }
    for (int k = 0; k < series.size(); k++) {
      Series s = series.get(k);
      String colour = COLOURS[(s.colour() >= 0 ? s.colour() : k) % COLOURS.length];
      for (int i = 0; i < s.x().length; i++) {
        double px = a.px(s.x()[i]);
        if (i > 0) {
          c.line(a.px(s.x()[i - 1]), a.py(s.y()[i - 1]), px, a.py(s.y()[i]), colour, 2, s.dashed());
        }
        if (s.sd()[i] > 0) {
          c.line(px, a.py(s.y()[i] - s.sd()[i]), px, a.py(s.y()[i] + s.sd()[i]), colour, 1, false);
        }
        c.circle(px, a.py(s.y()[i]), 3, colour);
      }
      legend(c, k, s.label(), colour, s.dashed(), false);
    }
  }

  private static void drawBars(Canvas c, String title, List<String> kinds, List<BarGroup> groups) {
    double ymax = 0;
    for (BarGroup g : groups) {
      for (int i = 0; i < g.y().length; i++) {
        ymax = Math.max(ymax, g.y()[i] + g.sd()[i]);
      }
    }
    double[] yr = niceRange(0, Math.min(1, ymax + 0.05));
    Axes a = new Axes(0, groups.size(), false, yr[0], yr[1]);
    frame(c, title, "", "test accuracy (%)");
    for (double t : ticks(yr[0], yr[1])) {
      double py = a.py(t);
      c.line(LEFT, py, WIDTH - RIGHT, py, "#dddddd", 1, false);
      c.text(LEFT - 6, py + 4, fmt(100 * t), 12, "end", false);
    }
    double slot = (a.px(1) - a.px(0));
    double barW = slot * 0.8 / Math.max(1, kinds.size());
    for (int gi = 0; gi < groups.size(); gi++) {
      BarGroup g = groups.get(gi);
      double x0 = a.px(gi) + slot * 0.1;
      for (int k = 0; k < g.y().length; k++) {
        double x = x0 + k * barW;
        double top = a.py(g.y()[k]);
        c.rect(x + 1, top, barW - 2, a.py(yr[0]) - top, COLOURS[k % COLOURS.length]);
        if (g.sd()[k] > 0) {
          c.line(x + barW / 2, a.py(g.y()[k] - g.sd()[k]), x + barW / 2, a.py(g.y()[k] + g.sd()[k]), "#000000", 1,
              false);
        }
        // The value above its error bar, so neither hides the other.
        c.text(x + barW / 2, a.py(g.y()[k] + g.sd()[k]) - 4, fmt(100 * g.y()[k]), 10, "middle", false);
      }
      c.text(a.px(gi) + slot / 2, HEIGHT - BOTTOM + 20, g.label(), 12, "middle", false);
    }
    for (int k = 0; k < kinds.size(); k++) {
      legend(c, k, kinds.get(k), COLOURS[k % COLOURS.length], false, true);
    }
  }

  private static void frame(Canvas c, String title, String xLabel, String yLabel) {
    c.rect(0, 0, WIDTH, HEIGHT, "#ffffff");
    c.text((LEFT + WIDTH - RIGHT) / 2.0, TOP - 16, title, 15, "middle", false);
    c.line(LEFT, HEIGHT - BOTTOM, WIDTH - RIGHT, HEIGHT - BOTTOM, "#000000", 1, false);
    c.line(LEFT, TOP, LEFT, HEIGHT - BOTTOM, "#000000", 1, false);
    c.text((LEFT + WIDTH - RIGHT) / 2.0, HEIGHT - 14, xLabel, 13, "middle", false);
    c.text(20, (TOP + HEIGHT - BOTTOM) / 2.0, yLabel, 13, "middle", true);
  }

  private static void legend(Canvas c, int k, String label, String colour, boolean dashed, boolean box) {
    double y = TOP + 10 + 20 * k;
    double x = WIDTH - RIGHT + 15;
    if (box) {
      c.rect(x + 4, y - 7, 16, 14, colour);
    } else {
      c.line(x, y, x + 24, y, colour, 2, dashed);
      c.circle(x + 12, y, 3, colour);
    }
    c.text(x + 30, y + 4, label, 12, "start", false);
  }

  private record Axes(double xmin, double xmax, boolean logX, double ymin, double ymax, boolean logY) {
    Axes(double xmin, double xmax, boolean logX, double ymin, double ymax) {
      this(xmin, xmax, logX, ymin, ymax, false);
    }

    double px(double x) {
      double f = logX ? Math.log(x / xmin) / Math.log(xmax / xmin) : (x - xmin) / (xmax - xmin);
      double pad = 0.04;
      return LEFT + (WIDTH - LEFT - RIGHT) * (pad + (1 - 2 * pad) * f);
    }

    double py(double y) {
      double f = logY ? Math.log(Math.max(y, ymin) / ymin) / Math.log(ymax / ymin) : (y - ymin) / (ymax - ymin);
      return HEIGHT - BOTTOM - (HEIGHT - TOP - BOTTOM) * f;
    }
  }

  private static double step(double lo, double hi) {
    double raw = (hi - lo) / 6;
    double mag = Math.pow(10, Math.floor(Math.log10(raw)));
    double f = raw / mag;
    return (f < 1.5 ? 1 : f < 3 ? 2 : f < 7 ? 5 : 10) * mag;
  }

  private static double[] niceRange(double lo, double hi) {
    if (hi <= lo) {
      hi = lo + 0.1;
    }
    double s = step(lo, hi);
    return new double[] {Math.floor(lo / s) * s, Math.ceil(hi / s) * s};
  }

  private static List<Double> ticks(double lo, double hi) {
    double s = step(lo, hi);
    List<Double> out = new ArrayList<>();
    for (double t = Math.ceil(lo / s - 1e-9) * s; t <= hi + 1e-9 * s; t += s) {
      out.add(Math.abs(t) < 1e-12 ? 0 : t);
    }
    return out;
  }

  private static List<Double> logTicks(double lo, double hi) {
    List<Double> out = new ArrayList<>();
    for (double d = Math.pow(10, Math.floor(Math.log10(lo))); d <= hi * 1.0001; d *= 10) {
      for (double m : new double[] {1, 2, 3, 5}) {
        double t = d * m;
        if (t >= lo * 0.9999 && t <= hi * 1.0001) {
          out.add(t);
        }
      }
    }
    return out;
  }

  public static String fmt(double v) {
    if (Math.abs(v - Math.rint(v)) < 1e-9) {
      return Long.toString(Math.round(v));
    }
    return String.format(Locale.ROOT, "%.3g", v).replaceAll("0+$", "").replaceAll("\\.$", "");
  }

  private static final class Svg implements Canvas {
    private final StringBuilder b = new StringBuilder();

    Svg() {
      b.append(String.format(Locale.ROOT, "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" "
          + "viewBox=\"0 0 %d %d\" font-family=\"DejaVu Sans, Helvetica, Arial, sans-serif\">%n", WIDTH, HEIGHT,
          WIDTH, HEIGHT));
    }

    @Override
    public void line(double x1, double y1, double x2, double y2, String colour, double width, boolean dashed) {
      b.append(String.format(Locale.ROOT, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"%s\" "
          + "stroke-width=\"%.1f\"%s/>%n", x1, y1, x2, y2, colour, width, dashed ? " stroke-dasharray=\"6,4\"" : ""));
    }

    @Override
    public void rect(double x, double y, double w, double h, String colour) {
      b.append(String.format(Locale.ROOT, "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" fill=\"%s\"/>%n",
          x, y, w, h, colour));
    }

    @Override
    public void circle(double x, double y, double r, String colour) {
      b.append(String.format(Locale.ROOT, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"%.1f\" fill=\"%s\"/>%n", x, y, r,
          colour));
    }

    @Override
    public void text(double x, double y, String s, double size, String anchor, boolean rotated) {
      b.append(String.format(Locale.ROOT, "<text x=\"%.1f\" y=\"%.1f\" font-size=\"%.0f\" text-anchor=\"%s\"%s>%s"
          + "</text>%n", x, y, size, anchor,
          rotated ? String.format(Locale.ROOT, " transform=\"rotate(-90 %.1f %.1f)\"", x, y) : "", escape(s)));
    }

    String finish() {
      return b.append("</svg>\n").toString();
    }

    private static String escape(String s) {
      return s.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;");
    }
  }

  private static final class Png implements Canvas {
    /** Twice the SVG's size, for sharp text. */
    private static final double SCALE = 2;
    final BufferedImage image;
    private final Graphics2D g;

    Png() {
      image = new BufferedImage((int) (WIDTH * SCALE), (int) (HEIGHT * SCALE), BufferedImage.TYPE_INT_RGB);
      g = image.createGraphics();
      g.setRenderingHint(RenderingHints.KEY_ANTIALIASING, RenderingHints.VALUE_ANTIALIAS_ON);
      g.setRenderingHint(RenderingHints.KEY_TEXT_ANTIALIASING, RenderingHints.VALUE_TEXT_ANTIALIAS_ON);
      g.scale(SCALE, SCALE);
    }

    @Override
    public void line(double x1, double y1, double x2, double y2, String colour, double width, boolean dashed) {
      g.setColor(Color.decode(colour));
      g.setStroke(dashed ? new BasicStroke((float) width, BasicStroke.CAP_BUTT, BasicStroke.JOIN_ROUND, 10,
          new float[] {6, 4}, 0) : new BasicStroke((float) width));
      g.draw(new Line2D.Double(x1, y1, x2, y2));
    }

    @Override
    public void rect(double x, double y, double w, double h, String colour) {
      g.setColor(Color.decode(colour));
      g.fill(new Rectangle2D.Double(x, y, w, h));
    }

    @Override
    public void circle(double x, double y, double r, String colour) {
      g.setColor(Color.decode(colour));
      g.fill(new java.awt.geom.Ellipse2D.Double(x - r, y - r, 2 * r, 2 * r));
    }

    @Override
    public void text(double x, double y, String s, double size, String anchor, boolean rotated) {
      g.setColor(Color.BLACK);
      g.setFont(new Font(Font.SANS_SERIF, Font.PLAIN, 1).deriveFont((float) size));
      double w = g.getFontMetrics().getStringBounds(s, g).getWidth();
      double dx = switch (anchor) {
        case "middle" -> -w / 2;
        case "end" -> -w;
        default -> 0;
      };
      AffineTransform saved = g.getTransform();
      g.translate(x, y);
      if (rotated) {
        g.rotate(-Math.PI / 2);
      }
      g.drawString(s, (float) dx, 0f);
      g.setTransform(saved);
    }
  }
}
