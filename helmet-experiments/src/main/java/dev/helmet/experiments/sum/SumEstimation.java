package dev.helmet.experiments.sum;

import dev.helmet.core.util.Parallel;
import dev.helmet.core.util.Progress;
import dev.helmet.experiments.Chart;
import dev.helmet.privacy.noise.RandomBits;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.SplittableRandom;

/**
 * The {@code smm-sum} preset: distributed sum estimation as in Bao et al. (PVLDB 2022, Section 6.1,
 * after Kairouz et al. 2021). n = 100 points drawn uniformly from the unit L2 sphere in d = 65,536
 * dimensions (synthetic, public); each client sends one message of b bits per coordinate; the
 * server's estimate of the sum is compared with the true sum as the mean squared error per
 * coordinate, for every mechanism, bit width b with its two scales gamma, and eps, at delta 1e-5.
 * The ring mechanisms' messages are summed in the clear modulo 2^b, which is what secure
 * aggregation outputs; the central Gaussian (trusted server) adds its noise to the true sum.
 */
public final class SumEstimation {
  /** The grid. */
  public record Grid(int clients, int dimension, List<Integer> bits, int gammasPerBits, List<Double> epsilons,
      double delta, int repeats, List<SumMechanism> mechanisms) {}

  /** The paper's grid, or a small one that runs in seconds. */
  public static Grid grid(boolean quick) {
    List<SumMechanism> m = new ArrayList<>(List.of(new SmmSum()));
    m.addAll(Baselines.all());
    return quick
        ? new Grid(20, 4096, List.of(10, 14), 2, List.of(1.0, 3.0, 5.0), 1e-5, 1, m)
        : new Grid(100, 65536, List.of(10, 12, 14, 16, 18), 2, List.of(1.0, 2.0, 3.0, 4.0, 5.0), 1e-5, 3, m);
  }

  /** The paper's scales for b bits: gamma = 2^(b-8) and 2^(b-7) (4 and 8 for b = 10 ... 1024 and 2048 for 18). */
  static List<Double> gammas(int bits, int count) {
    List<Double> g = new ArrayList<>();
    for (int k = 0; k < count; k++) {
      g.add(Math.scalb(1.0, bits - 8 + k));
    }
    return g;
  }

  /** One measurement. */
  public record Row(String mechanism, int bits, double gamma, double epsilon, int repeat, double mse,
      String parameters) {}

  private SumEstimation() {}

  /** Runs the grid, writing results.csv, the plots and report.md into {@code out}; returns the rows. */
  public static List<Row> run(Grid g, Path out, int threads, Progress progress) throws IOException {
    Files.createDirectories(out);
    List<Row> rows = new ArrayList<>();
    int cells = g.repeats() * g.bits().size() * g.gammasPerBits() * g.epsilons().size() * (g.mechanisms().size() + 1);
    progress.start("smm-sum: " + cells + " cells", cells);
    for (int rep = 0; rep < g.repeats(); rep++) {
      double[][] points = sphere(g.clients(), g.dimension(), 1000L + rep);
      double[] truth = new double[g.dimension()];
      for (double[] p : points) {
        for (int j = 0; j < truth.length; j++) {
          truth[j] += p[j];
        }
      }
      for (int b : g.bits()) {
        for (double gamma : gammas(b, g.gammasPerBits())) {
          for (double eps : g.epsilons()) {
            for (SumMechanism m : g.mechanisms()) {
              // n - 1: under add-or-remove-one-client neighbours only the other clients' noise is in
              // both neighbouring sums (the removed client's share leaves with it).
              SumMechanism.Calibrated c = m.calibrate(g.clients() - 1, g.dimension(), b, gamma, eps, g.delta(),
                  31L * rep + b);
              double[] est = c.decode(sumOfMessages(c, points, b, threads));
              rows.add(new Row(m.name(), b, gamma, eps, rep, mse(est, truth), c.describe()));
              progress.advance(1);
            }
            double sigma = GaussianSum.sigma(eps, g.delta());
            double[] est = GaussianSum.estimate(truth, sigma, 7L * rep + Double.doubleToLongBits(eps));
            rows.add(new Row("gaussian", b, gamma, eps, rep, mse(est, truth),
                String.format(Locale.ROOT, "sigma %.4g (central, trusted server)", sigma)));
            progress.advance(1);
          }
        }
      }
    }
    progress.finish();
    writeCsv(rows, out.resolve("results.csv"));
    return rows;
  }

  private static long[] sumOfMessages(SumMechanism.Calibrated c, double[][] points, int bits, int threads) {
    int n = points.length;
    int chunks = Math.max(1, Math.min(threads, n));
    int d = -1;
    long[][] partial = new long[chunks][];
    Parallel.forEach(threads, chunks, k -> {
      RandomBits random = RandomBits.secure();
      long[] acc = null;
      for (int i = k; i < n; i += chunks) {
        long[] msg = c.encode(points[i], random);
        if (acc == null) {
          acc = new long[msg.length];
        }
        for (int j = 0; j < msg.length; j++) {
          acc[j] += msg[j];
        }
      }
      partial[k] = acc;
    });
    long mask = bits == 64 ? -1L : (1L << bits) - 1;
    long[] sum = partial[0].clone();
    for (int k = 1; k < chunks; k++) {
      for (int j = 0; j < sum.length; j++) {
        sum[j] += partial[k][j];
      }
    }
    for (int j = 0; j < sum.length; j++) {
      sum[j] &= mask;
    }
    return sum;
  }

  /** n points uniform on the unit L2 sphere in d dimensions (normalised Gaussians), from a public seed. */
  static double[][] sphere(int n, int d, long seed) {
    SplittableRandom r = new SplittableRandom(seed);
    double[][] out = new double[n][d];
    for (double[] p : out) {
      double norm = 0;
      for (int j = 0; j < d; j++) {
        p[j] = r.nextGaussian();
        norm += p[j] * p[j];
      }
      norm = Math.sqrt(norm) * (1 + 1e-15); // a hair inside the sphere: norm <= 1 after rounding
      for (int j = 0; j < d; j++) {
        p[j] /= norm;
      }
    }
    return out;
  }

  static double mse(double[] est, double[] truth) {
    double s = 0;
    for (int j = 0; j < truth.length; j++) {
      double e = est[j] - truth[j];
      s += e * e;
    }
    return s / truth.length;
  }

  private static void writeCsv(List<Row> rows, Path file) throws IOException {
    StringBuilder sb = new StringBuilder("mechanism,bits,gamma,epsilon,repeat,mse_per_coordinate,parameters\n");
    for (Row r : rows) {
      sb.append(String.format(Locale.ROOT, "%s,%d,%s,%s,%d,%s,\"%s\"%n", r.mechanism(), r.bits(), r.gamma(),
          r.epsilon(), r.repeat(), r.mse(), r.parameters()));
    }
    Files.writeString(file, sb, StandardCharsets.UTF_8);
  }

  /** Means over repeats: key mechanism|bits|gamma -> eps -> {mean, sd}. */
  static Map<String, Map<Double, double[]>> means(List<Row> rows) {
    Map<String, Map<Double, List<Double>>> acc = new LinkedHashMap<>();
    for (Row r : rows) {
      acc.computeIfAbsent(key(r), k -> new java.util.TreeMap<>()).computeIfAbsent(r.epsilon(), e -> new ArrayList<>())
          .add(r.mse());
    }
    Map<String, Map<Double, double[]>> out = new LinkedHashMap<>();
    acc.forEach((k, byEps) -> {
      Map<Double, double[]> m = new java.util.TreeMap<>();
      byEps.forEach((e, v) -> {
        double mean = v.stream().mapToDouble(Double::doubleValue).average().orElse(Double.NaN);
        double var = v.stream().mapToDouble(x -> (x - mean) * (x - mean)).sum() / Math.max(1, v.size() - 1);
        m.put(e, new double[] {mean, Math.sqrt(var)});
      });
      out.put(k, m);
    });
    return out;
  }

  static String key(Row r) {
    return r.mechanism() + "|" + r.bits() + "|" + r.gamma();
  }

  /** One plot per bit width: MSE per coordinate (log) against eps, a line per mechanism and gamma. */
  public static List<Path> plots(Grid g, List<Row> rows, Path out) {
    Map<String, Map<Double, double[]>> m = means(rows);
    List<Path> written = new ArrayList<>();
    for (int b : g.bits()) {
      List<Chart.Series> series = new ArrayList<>();
      int colour = 0;
      for (String mech : names(g)) {
        List<Double> gs = gammas(b, g.gammasPerBits());
        for (int k = 0; k < gs.size(); k++) {
          Map<Double, double[]> byEps = m.get(mech + "|" + b + "|" + gs.get(k));
          if (byEps == null || (mech.equals("gaussian") && k > 0)) {
            continue;
          }
          double[] x = byEps.keySet().stream().mapToDouble(Double::doubleValue).toArray();
          double[] y = byEps.values().stream().mapToDouble(v -> v[0]).toArray();
          double[] sd = byEps.values().stream().mapToDouble(v -> v[1]).toArray();
          String label = mech.equals("gaussian") ? "central Gaussian" : mech + ", gamma " + Chart.fmt(gs.get(k));
          series.add(new Chart.Series(label, x, y, sd, k > 0, colour));
        }
        colour++;
      }
      Path base = out.resolve("mse-vs-eps-b" + b);
      try {
        Chart.line(base, "Distributed sum, " + b + " bits per coordinate", String.format(Locale.ROOT,
            "n = %d on the unit sphere in d = %d; delta = %s; %d repeat(s)", g.clients(), g.dimension(),
            Chart.fmt(g.delta()), g.repeats()), "epsilon", false, new Chart.YAxis("MSE per coordinate", false, true),
            series);
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
      written.add(base);
    }
    return written;
  }

  private static List<String> names(Grid g) {
    List<String> n = new ArrayList<>();
    g.mechanisms().forEach(x -> n.add(x.name()));
    n.add("gaussian");
    return n;
  }

  /** report.md: what ran, the plots, and the mean MSE per coordinate of every mechanism, b, gamma and eps. */
  public static Path report(Grid g, List<Row> rows, List<Path> plots, Path out, String command, double seconds)
      throws IOException {
    StringBuilder sb = new StringBuilder("# smm-sum\n\n");
    sb.append(String.format(Locale.ROOT, "Made by `%s` in %.0f s. Distributed sum estimation (Bao et al. 2022, "
        + "Sec. 6.1): n = %d points uniform on the unit L2 sphere in d = %d, one message per client of b bits per "
        + "coordinate, summed modulo 2^b in the clear (what secure aggregation outputs), delta = %s, one release, "
        + "add-or-remove-one-client neighbours (each client's noise share calibrated so that the other n - 1 "
        + "clients' shares reach the target); the central Gaussian (trusted server, floating-point noise) is the "
        + "reference. Each figure is the mean over %d repeat(s) of the squared error per coordinate of the estimated "
        + "sum; every run is in `results.csv` with its calibrated parameters.%n%n", command, seconds, g.clients(),
        g.dimension(), Chart.fmt(g.delta()), g.repeats()));
    for (Path p : plots) {
      String f = p.getFileName().toString();
      sb.append("![").append(f).append("](").append(f).append(".png)\n\n");
    }
    sb.append("| mechanism | bits | gamma |");
    for (double e : g.epsilons()) {
      sb.append(" eps ").append(Chart.fmt(e)).append(" |");
    }
    sb.append("\n|---|---|---|");
    g.epsilons().forEach(e -> sb.append("---|"));
    sb.append("\n");
    Map<String, Map<Double, double[]>> m = means(rows);
    for (int b : g.bits()) {
      List<Double> gs = gammas(b, g.gammasPerBits());
      for (double gamma : gs) {
        for (String mech : names(g)) {
          Map<Double, double[]> byEps = m.get(mech + "|" + b + "|" + gamma);
          if (byEps == null || mech.equals("gaussian") && gamma != gs.get(0)) {
            continue; // the central Gaussian has no gamma: one row per b
          }
          sb.append("| ").append(mech).append(" | ").append(b).append(" | ")
              .append(mech.equals("gaussian") ? "-" : Chart.fmt(gamma)).append(" |");
          for (double e : g.epsilons()) {
            double[] v = byEps.get(e);
            sb.append(v == null ? " |" : String.format(Locale.ROOT, " %.3g |", v[0]));
          }
          sb.append("\n");
        }
      }
    }
    Path file = out.resolve("report.md");
    Files.writeString(file, sb, StandardCharsets.UTF_8);
    return file;
  }
}
