package dev.helmet.experiments.crosssilo;

import dev.helmet.core.util.Checks;
import dev.helmet.core.util.Progress;
import dev.helmet.experiments.crosssilo.SummationTiming.Inputs;
import dev.helmet.experiments.crosssilo.SummationTiming.Reference;
import dev.helmet.experiments.crosssilo.SummationTiming.Run;
import dev.helmet.experiments.crosssilo.SummationTiming.Spread;
import dev.helmet.secagg.summation.DropoutPlan;
import dev.helmet.secagg.summation.GroupMaskSummation;
import dev.helmet.secagg.summation.GroupMaskSummation.Graph;
import dev.helmet.secagg.summation.PlainSummation;
import dev.helmet.secagg.summation.SecureSummation;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;

/**
 * The {@code crosssilo-groups} preset: Heikkilä et al.'s Fig. 5 ("Differentially private cross-silo
 * federated learning", Appendix A, Algorithm 4), the running time of pairwise-mask summation
 * against the number of parties N and the group size g ({@link GroupMaskSummation}, disjoint groups
 * of g consecutive parties, g | N, g = N full pairwise masking), a pure summation benchmark of the
 * paper's 1m model (1,001,794 values), in process ({@link SummationTiming}). Beside it, the same
 * (N, g) on the Harary mask graph where it exists (g odd or g = N), plain summation per N, and the
 * <em>honest noise factor</em> the paper's figure leaves out (design note, doubt 8).
 *
 * <p><b>The honest noise factor.</b> Disjoint groups reveal every group's sum, so each must be
 * differentially private by itself: with T colluders (and the observing party) possibly all in one
 * group, each party adds variance sigma^2/(g - T - 1), and the released total carries
 * N/(g - T - 1) times the central sigma^2. A summation that reveals only the total (Harary while the
 * coalition cannot disconnect its graph, or g = N) needs only sigma^2/(N - T - 1) per party, a
 * total of N/(N - T - 1) times sigma^2: for N = 32, g = 2, T = 0, 32 against 1.03.
 */
public final class GroupMaskTiming {
  private GroupMaskTiming() {}

  /** The preset's name. */
  public static final String NAME = "crosssilo-groups";

  /** In a grid's group sizes: "g = N". */
  public static final int ALL = 0;

  /**
   * The settings.
   *
   * @param parties the N
   * @param groupSizes the g ({@link #ALL} for g = N); each (N, g) with g <= N and g | N is run
   * @param length d
   * @param ringBits b
   * @param colluders T of the noise factor
   * @param repeats timed runs per configuration (after the untimed ones; the first agrees the keys)
   * @param seed the inputs' seed
   */
  public record Grid(List<Integer> parties, List<Integer> groupSizes, int length, int ringBits, int colluders,
      int repeats, long seed) {
    public Grid {
      parties = List.copyOf(parties);
      groupSizes = List.copyOf(groupSizes);
      Checks.require(parties.stream().allMatch(n -> n >= 2), "parties must be >= 2. Provided values: " + parties);
      Checks.require(groupSizes.stream().allMatch(g -> g == ALL || g >= 2), "group sizes must be >= 2 (or 0 for N). "
          + "Provided values: " + groupSizes);
      Checks.nonNegative("colluders", colluders);
      Checks.positive("repeats", repeats);
    }
  }

  /**
   * The paper's setting (N in {2, 16, 32}, g in {2, 16, N}, 1,001,794 values, T = 0, 5 repeats), or
   * the CI form (N in {2, 4}, g in {2, N}, 10,000 values, 1 repeat).
   */
  public static Grid grid(boolean quick) {
    return quick ? new Grid(List.of(2, 4), List.of(2, ALL), 10_000, 32, 0, 1, 19)
        : new Grid(List.of(2, 16, 32), List.of(2, 16, ALL), ComputeNodesTiming.MLP_PARAMETERS, 32, 0, 5, 19);
  }

  /**
   * One configuration.
   *
   * @param summation "groups", "harary" or "plain"
   * @param parties N
   * @param groupSize g (N for plain: it reveals every input, which is no group at all)
   */
  public record Setting(String summation, int parties, int groupSize) {
    /** Whether this is the baseline without encryption. */
    public boolean plain() {
      return summation.equals("plain");
    }
  }

  /** The (N, g) to run: per N, plain, then each valid disjoint g, then Harary where g is odd or g = N. */
  public static List<Setting> settings(Grid g) {
    List<Setting> out = new ArrayList<>();
    for (int n : g.parties()) {
      Set<Integer> sizes = new LinkedHashSet<>();
      for (int s : g.groupSizes()) {
        int size = s == ALL ? n : s;
        if (size <= n && n % size == 0) {
          sizes.add(size);
        }
      }
      out.add(new Setting("plain", n, n));
      for (int s : sizes) {
        out.add(new Setting("groups", n, s));
      }
      for (int s : sizes) {
        if (s % 2 == 1 || s == n) {
          out.add(new Setting("harary", n, s));
        }
      }
    }
    return out;
  }

  /**
   * The total noise variance on the released sum, in units of the central sigma^2, when each party
   * sizes its share for the smallest sum the aggregator learns: N/(g - T - 1) for disjoint groups,
   * N/(N - T - 1) for a summation that reveals only the total; NaN for plain summation (it reveals
   * every input) or where the coalition of T + 1 covers a whole released sum (g - T - 1 < 1), and
   * for Harary where T + 1 parties can disconnect its (g - 1)-connected graph (T > g - 3, g < N).
   */
  public static double noiseFactor(Setting s, int colluders) {
    int n = s.parties();
    int g = s.groupSize();
    return switch (s.summation()) {
      case "groups" -> g - colluders - 1 >= 1 ? (double) n / (g - colluders - 1) : Double.NaN;
      case "harary" -> g < n && colluders > g - 3 ? Double.NaN : totalOnlyFactor(n, colluders);
      default -> Double.NaN;
    };
  }

  /** N/(N - T - 1): the noise factor of a summation that reveals only the total. */
  public static double totalOnlyFactor(int parties, int colluders) {
    return parties - colluders - 1 >= 1 ? (double) parties / (parties - colluders - 1) : Double.NaN;
  }

  /**
   * One configuration's runs.
   *
   * @param setting what ran
   * @param runs the timed runs
   * @param setupBytesPerParty the key exchange's bytes per party, paid once, in the first untimed run
   * @param generateSeconds mean seconds to generate one party's input (part of every party's time)
   */
  public record Config(Setting setting, List<Run> runs, long setupBytesPerParty, double generateSeconds) {
    public Config {
      runs = List.copyOf(runs);
    }

    /** Wall seconds over the runs. */
    public Spread wall() {
      return Spread.of(runs, Run::wallSeconds);
    }
  }

  /** The result, with the load average before and after ({@link SummationTiming#loadAverage}). */
  public record Result(Grid grid, int threads, List<Config> configs, double loadBefore, double loadAfter) {}

  /** Runs every setting: untimed runs (the first, for masking, agrees the keys), then the timed rounds. */
  public static Result run(Grid g, int threads, Progress progress) {
    double load = SummationTiming.loadAverage();
    List<Setting> settings = settings(g);
    progress.start(String.format(Locale.ROOT, "%s: %d settings x %d repeats, %d values", NAME, settings.size(),
        g.repeats(), g.length()), (long) settings.size() * g.repeats());
    List<Config> configs = new ArrayList<>();
    Inputs in = null;
    Reference ref = null;
    for (Setting s : settings) {
      if (in == null || in.parties() != s.parties()) {
        in = new Inputs(s.parties(), g.length(), g.ringBits(), g.seed());
        ref = in.reference();
      }
      SecureSummation sum = switch (s.summation()) {
        case "plain" -> new PlainSummation();
        case "groups" -> new GroupMaskSummation(s.groupSize(), Graph.DISJOINT, DropoutPlan.NONE, threads);
        default -> new GroupMaskSummation(s.groupSize(), Graph.HARARY, DropoutPlan.NONE, threads);
      };
      SummationTiming.Timed t = SummationTiming.time(sum, in, ref, g.repeats(), () -> progress.advance(1));
      Object setup = t.warmupParameters().get("setup_bytes_per_party");
      configs.add(new Config(s, t.runs(), setup instanceof Number b ? b.longValue() : 0, t.generateSeconds()));
    }
    progress.finish();
    return new Result(g, threads, configs, load, SummationTiming.loadAverage());
  }

  /** The columns of results.csv, one line per timed run. */
  static final String HEADER = "summation,parties,group_size,length,ring_bits,threads,repeat,wall_seconds,"
      + "party_seconds_mean,server_seconds,bytes_per_party,setup_bytes_per_party,server_bytes,exact_sum,colluders,"
      + "noise_factor,noise_factor_total_only,revealed_sums";

  /** Writes results.csv. */
  public static Path writeCsv(Result r, Path out) throws IOException {
    Grid g = r.grid();
    StringBuilder sb = new StringBuilder(HEADER).append('\n');
    for (Config c : r.configs()) {
      Setting s = c.setting();
      for (Run run : c.runs()) {
        sb.append(String.format(Locale.ROOT, "%s,%d,%d,%d,%d,%d,%d,%s,%s,%s,%d,%d,%d,%s,%d,%s,%s,%d%n", s.summation(),
            s.parties(), s.groupSize(), g.length(), g.ringBits(), s.plain() ? 1 : r.threads(), run.repeat(),
            SummationTiming.num(run.wallSeconds()), SummationTiming.num(s.plain() ? Double.NaN : run.partySeconds()),
            SummationTiming.num(run.serverSeconds()), run.bytesPerParty(), c.setupBytesPerParty(), run.serverBytes(),
            run.exact(), g.colluders(), SummationTiming.num(noiseFactor(s, g.colluders())),
            SummationTiming.num(totalOnlyFactor(s.parties(), g.colluders())), revealedSums(s)));
      }
    }
    Path csv = out.resolve("results.csv");
    Files.writeString(csv, sb, StandardCharsets.UTF_8);
    return csv;
  }

  /** How many sums the aggregator learns: N / g groups, 1 for Harary, N inputs for plain. */
  static int revealedSums(Setting s) {
    return switch (s.summation()) {
      case "groups" -> s.parties() / s.groupSize();
      case "harary" -> 1;
      default -> s.parties();
    };
  }
}
