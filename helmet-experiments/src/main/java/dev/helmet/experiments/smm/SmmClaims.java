package dev.helmet.experiments.smm;

import dev.helmet.experiments.Chart;
import dev.helmet.experiments.Claims;
import dev.helmet.experiments.ExperimentConfig;
import dev.helmet.experiments.Report;
import dev.helmet.experiments.Results;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The report section that checks the Skellam mixture mechanism paper's qualitative claims (Bao et
 * al., PVLDB 15(11), 2022, Section 6.2) against a grid's results, for grids whose variants are
 * named as the smm-fl presets name them: {@code MECHANISM-bB} (mechanism smm, ddg, skellam or cpsgd, ring
 * of B bits), optionally {@code @X} for a sweep's point X, and {@code dp-sgd[@X]} for central
 * DP-SGD. Every figure is the mean test accuracy with hyperparameters selected on validation data
 * (the honest selection; these presets have one candidate per variant, so both selections agree).
 *
 * <p>The claims, with the thresholds this check uses (the paper states none):
 *
 * <ol>
 *   <li>below the largest ring width of the grid, SMM is ahead of both DDG and Skellam: its mean
 *       exceeds the better baseline's by more than {@value #AHEAD} points;
 *   <li>at the largest width the three are comparable: the best and the worst of SMM, DDG and
 *       Skellam within {@value #COMPARABLE} points;
 *   <li>central DP-SGD (a trusted server, no ring) is at least as accurate as every ring mechanism,
 *       up to {@value #COMPARABLE} points;
 *   <li>cpSGD is far behind: at every width, the best of SMM, DDG and Skellam exceeds it by more
 *       than {@value #FAR} points (checked where the grid has cpSGD variants).
 * </ol>
 *
 * The thresholds compare means and ignore the spread over the
 * repeats, which the accuracy tables give. Only the grid's first partition and party count are
 * read. In a sweep (|B| or gamma) each claim is checked at every point of the sweep.
 */
final class SmmClaims implements Claims {
  /** The section, as the smm-fl presets name it ({@link SmmPresets}). */
  static final SmmClaims SECTION = new SmmClaims();

  private SmmClaims() {}

  /** Points (percent) by which SMM must lead the better baseline to count as ahead. */
  static final double AHEAD = 1;
  /** Points (percent) within which two figures count as comparable. */
  static final double COMPARABLE = 3;
  /** Points (percent) by which cpSGD must trail the best other ring mechanism to count as far behind. */
  static final double FAR = 10;

  private static final Pattern RING = Pattern.compile("(smm|ddg|skellam|cpsgd)-b(\\d+)(?:@(.+))?");
  private static final Pattern CENTRAL = Pattern.compile("dp-sgd(?:@(.+))?");
  /** The three the paper's claims 1 and 2 compare; cpSGD has a column and a claim of its own. */
  private static final String[] MECHANISMS = {"smm", "ddg", "skellam"};

  /** Mean accuracy (percent) by setting (eps, or the sweep's x), then bits, then mechanism; -1 bits: DP-SGD. */
  private record Grid(String settingName, TreeMap<Double, TreeMap<Integer, Map<String, Double>>> cells) {}

  /** Whether the summary has ring variants of at least two mechanisms at some width: the section applies. */
  @Override
  public boolean applies(Map<String, Map<String, Map<String, Map<Integer, Map<Double, Results.Cell>>>>> summary) {
    Map<Integer, TreeSet<String>> byBits = new TreeMap<>();
    for (String variant : summary.getOrDefault("validation", Map.of()).keySet()) {
      Matcher m = RING.matcher(variant);
      if (m.matches()) {
        byBits.computeIfAbsent(Integer.parseInt(m.group(2)), k -> new TreeSet<>()).add(m.group(1));
      }
    }
    return byBits.values().stream().anyMatch(s -> s.contains("smm") && s.size() > 1);
  }

  /**
   * Appends the section: a table of SMM against the baselines for every width and setting, then
   * each claim with the settings where it fails.
   */
  @Override
  public void write(ExperimentConfig c, Map<String, Map<String, Map<String, Map<Integer, Map<Double,
      Results.Cell>>>>> summary, StringBuilder md) {
    Grid g = collect(c, summary.getOrDefault("validation", Map.of()));
    md.append("## The Skellam mixture paper's claims, checked\n\n");
    md.append("Mean test accuracy % (selected on validation; ").append(c.partitions().get(0)).append(", ")
        .append(c.parties().get(0)).append(" parties) of each ring mechanism at each width, by ")
        .append(g.settingName()).append(". *lead*: SMM minus the better of DDG and Skellam, in points. The "
            + "thresholds compare means; the spread over repeats is in the tables above.\n\n");
    boolean cpsgd = g.cells().values().stream().anyMatch(byBits -> byBits.values().stream()
        .anyMatch(m -> m.containsKey("cpsgd")));
    md.append("| b | ").append(g.settingName()).append(" | SMM | DDG | Skellam | lead |")
        .append(cpsgd ? " cpSGD |" : "").append(" central DP-SGD |\n")
        .append("|---|---|---|---|---|---|").append(cpsgd ? "---|" : "").append("---|\n");
    TreeSet<Integer> widths = new TreeSet<>();
    g.cells().values().forEach(byBits -> byBits.keySet().stream().filter(b -> b > 0).forEach(widths::add));
    for (int b : widths) {
      g.cells().forEach((x, byBits) -> {
        Map<String, Double> m = byBits.get(b);
        if (m == null) {
          return;
        }
        Double central = byBits.getOrDefault(-1, Map.of()).get("dp-sgd");
        md.append("| ").append(b).append(" | ").append(Chart.fmt(x)).append(" |");
        for (String mech : MECHANISMS) {
          md.append(' ').append(pct(m.get(mech))).append(" |");
        }
        Double lead = lead(m);
        md.append(' ').append(lead == null ? "-" : signed(lead)).append(" |");
        if (cpsgd) {
          md.append(' ').append(pct(m.get("cpsgd"))).append(" |");
        }
        md.append(' ').append(pct(central)).append(" |\n");
      });
    }
    md.append('\n');
    // The widths the grid is made of, finished or not: a report of the cells finished so far checks
    // claim 2 at the grid's largest width, not at the largest one that has finished.
    TreeSet<Integer> planned = new TreeSet<>(widths);
    for (ExperimentConfig.Variant v : c.variants()) {
      Matcher m = RING.matcher(v.name());
      if (m.matches()) {
        planned.add(Integer.parseInt(m.group(2)));
      }
    }
    if (planned.size() < 2) {
      md.append(planned.isEmpty() ? "No ring variants to compare.\n\n"
          : "One ring width only: the claims compare small and large widths, so they are not checked here.\n\n");
      return;
    }
    int largest = planned.last();
    List<String> ahead = new ArrayList<>();
    List<String> behind = new ArrayList<>();
    for (int b : widths.headSet(largest, false)) {
      g.cells().forEach((x, byBits) -> {
        Double d = byBits.containsKey(b) ? lead(byBits.get(b)) : null;
        if (d != null) {
          (d > AHEAD ? ahead : behind).add(where(b, g, x, d));
        }
      });
    }
    claim(md, "1. Below " + largest + " bits SMM is ahead of DDG and Skellam (lead above " + Chart.fmt(AHEAD)
        + " point)", ahead, behind);
    List<String> close = new ArrayList<>();
    List<String> apart = new ArrayList<>();
    // mechanisms with no result yet at the largest width (a report of a grid still running)
    java.util.Set<String> unfinished = new java.util.TreeSet<>();
    g.cells().forEach((x, byBits) -> {
      Map<String, Double> m = three(byBits.get(largest));
      if (m != null && m.size() > 1 && m.containsKey("smm")) {
        double spread = m.values().stream().mapToDouble(Double::doubleValue).max().getAsDouble()
            - m.values().stream().mapToDouble(Double::doubleValue).min().getAsDouble();
        for (String k : MECHANISMS) {
          if (!m.containsKey(k)) {
            unfinished.add(k);
          }
        }
        (spread <= COMPARABLE ? close : apart).add("b " + largest + ", " + g.settingName() + " " + Chart.fmt(x)
            + " (" + String.format(Locale.ROOT, "%.1f", spread) + " points between the best and the worst)");
      }
    });
    claim(md, "2. At " + largest + " bits the three are comparable (the best and the worst within "
        + Chart.fmt(COMPARABLE) + " points)" + (unfinished.isEmpty() ? "" : ", checked without "
        + String.join(" and ", unfinished) + " (not finished yet in some settings)"), close, apart);
    List<String> first = new ArrayList<>();
    List<String> not = new ArrayList<>();
    g.cells().forEach((x, byBits) -> {
      Double central = byBits.getOrDefault(-1, Map.of()).get("dp-sgd");
      if (central == null) {
        return;
      }
      double best = byBits.entrySet().stream().filter(e -> e.getKey() > 0).flatMap(e -> e.getValue().values()
          .stream()).mapToDouble(Double::doubleValue).max().orElse(Double.NaN);
      if (!Double.isNaN(best)) {
        String at = g.settingName() + " " + Chart.fmt(x) + " (" + signed(central - best) + " against the best ring)";
        (central >= best - COMPARABLE ? first : not).add(at);
      }
    });
    if (!first.isEmpty() || !not.isEmpty()) {
      claim(md, "3. Central DP-SGD is at least as accurate as every ring mechanism (up to " + Chart.fmt(COMPARABLE)
          + " points)", first, not);
    }
    List<String> far = new ArrayList<>();
    List<String> near = new ArrayList<>();
    for (int b : widths) {
      g.cells().forEach((x, byBits) -> {
        Map<String, Double> m = byBits.get(b);
        Map<String, Double> others = three(m);
        if (m == null || !m.containsKey("cpsgd") || others.isEmpty()) {
          return;
        }
        double gap = others.values().stream().mapToDouble(Double::doubleValue).max().getAsDouble() - m.get("cpsgd");
        (gap > FAR ? far : near).add(where(b, g, x, -gap));
      });
    }
    if (far.isEmpty() && near.isEmpty()) {
      boolean cpsgdPlanned = c.variants().stream().anyMatch(v -> v.name().startsWith("cpsgd-"));
      md.append(cpsgdPlanned ? "cpSGD has no finished results beside the others yet, so \"cpSGD far behind\" is not "
          + "checked yet.\n\n" : "cpSGD is not in this grid, so \"cpSGD far behind\" is not checked here.\n\n");
    } else {
      claim(md, "4. cpSGD is far behind (the best of SMM, DDG and Skellam ahead of it by more than " + Chart.fmt(FAR)
          + " points; in brackets cpSGD minus that best)", far, near);
    }
  }

  /** The results of SMM, DDG and Skellam alone (null for null). */
  private static Map<String, Double> three(Map<String, Double> m) {
    if (m == null) {
      return null;
    }
    Map<String, Double> t = new TreeMap<>(m);
    t.remove("cpsgd");
    return t;
  }

  private static Grid collect(ExperimentConfig c, Map<String, Map<String, Map<Integer, Map<Double,
      Results.Cell>>>> byVariant) {
    String partition = c.partitions().get(0);
    int parties = c.parties().get(0);
    boolean sweep = c.sweepLabel() != null;
    double plotEps = c.plotEpsilon();
    TreeMap<Double, TreeMap<Integer, Map<String, Double>>> cells = new TreeMap<>();
    byVariant.forEach((variant, byPartition) -> {
      Matcher ring = RING.matcher(variant);
      Matcher central = CENTRAL.matcher(variant);
      String point;
      int bits;
      String mech;
      if (ring.matches()) {
        mech = ring.group(1);
        bits = Integer.parseInt(ring.group(2));
        point = ring.group(3);
      } else if (central.matches()) {
        mech = "dp-sgd";
        bits = -1;
        point = central.group(1);
      } else {
        return;
      }
      if (sweep != (point != null) || sweep && Report.sweepPoint(variant) == null) {
        return; // a sweep's points (numeric, as the sweep plot reads them), or an eps grid's plain variants
      }
      var byEps = byPartition.getOrDefault(partition, Map.of()).get(parties);
      if (byEps == null) {
        return;
      }
      byEps.forEach((eps, cell) -> {
        if (sweep && eps != plotEps) {
          return;
        }
        double x = sweep ? Double.parseDouble(point) : eps;
        cells.computeIfAbsent(x, k -> new TreeMap<>()).computeIfAbsent(bits, k -> new TreeMap<>())
            .put(mech, 100 * cell.mean());
      });
    });
    return new Grid(sweep ? c.sweepLabel() : "eps", cells);
  }

  /** SMM minus the better baseline present, or null without SMM or without a baseline. */
  private static Double lead(Map<String, Double> m) {
    Double smm = m.get("smm");
    double best = Math.max(m.getOrDefault("ddg", Double.NEGATIVE_INFINITY),
        m.getOrDefault("skellam", Double.NEGATIVE_INFINITY));
    return smm == null || best == Double.NEGATIVE_INFINITY ? null : smm - best;
  }

  private static String where(int b, Grid g, double x, double lead) {
    return "b " + b + ", " + g.settingName() + " " + Chart.fmt(x) + " (" + signed(lead) + ")";
  }

  private static void claim(StringBuilder md, String claim, List<String> holds, List<String> fails) {
    int n = holds.size() + fails.size();
    md.append("**").append(claim).append("**: ");
    if (n == 0) {
      md.append("no settings to check.\n\n");
      return;
    }
    md.append(fails.isEmpty() ? "holds in all " + n + " settings." : "holds in " + holds.size() + " of " + n
        + " settings; not in " + String.join("; ", fails) + ".").append("\n\n");
  }

  private static String pct(Double v) {
    return v == null ? "-" : String.format(Locale.ROOT, "%.1f", v);
  }

  private static String signed(double v) {
    return String.format(Locale.ROOT, "%+.1f", v);
  }
}
