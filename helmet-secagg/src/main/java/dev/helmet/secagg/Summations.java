package dev.helmet.secagg;

import dev.helmet.secagg.protocol.InProcessSecAgg;
import dev.helmet.secagg.servers.ComputeServerSummation;
import dev.helmet.secagg.summation.DropoutPlan;
import dev.helmet.secagg.summation.GroupMaskSummation;
import dev.helmet.secagg.summation.PlainSummation;
import dev.helmet.secagg.summation.SecureSummation;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.Function;

/**
 * The in-process summations by name: one registry for every runner that lets its user choose one
 * (train, audit, experiments, the benchmarks), so a new summation is one entry here. Each entry
 * makes its summation from the same {@link Settings}; an entry reads only the settings it needs.
 *
 * <p>What a summation protects against is the summation's own statement ({@link
 * SecureSummation#name}, {@link SecureSummation#revealsInputs}); the registry only names them.
 */
public final class Summations {
  private Summations() {}

  /**
   * What every summation may be made from.
   *
   * @param colluding the fraction of parties that may collude with the server (SecAgg's sizing)
   * @param maxDropout the dropout fraction SecAgg is sized for, or {@link
   *     InProcessSecAgg#DROPOUTS_FROM_THRESHOLD} to derive it from the contributors threshold
   * @param dropouts which parties drop out, and when (simulated)
   * @param threads worker threads
   * @param computeNodes the compute nodes of {@code dca} (at least 2)
   * @param groupSize the mask group size of {@code groups} and {@code harary} (at least 2)
   */
  public record Settings(double colluding, double maxDropout, DropoutPlan dropouts, int threads, int computeNodes,
      int groupSize) {
    /**
     * No colluders, sized from the threshold, no dropouts, one thread, 2 nodes, groups of 3 (the
     * smallest a Harary graph takes).
     */
    public static Settings defaults() {
      return new Settings(0, InProcessSecAgg.DROPOUTS_FROM_THRESHOLD, DropoutPlan.NONE, 1, 2, 3);
    }
  }

  /** One registered summation: its name, other names it answers to, a line for people, and its maker. */
  public record Entry(String name, List<String> aliases, String summary, Function<Settings, SecureSummation> make) {
    public Entry {
      aliases = List.copyOf(aliases);
    }
  }

  private static final Map<String, Entry> ENTRIES = new LinkedHashMap<>();

  static {
    add(new Entry("secagg+", List.of(), "SecAgg+ (Bell et al. 2020): masks over a sparse random graph",
        s -> new InProcessSecAgg(InProcessSecAgg.Variant.SECAGG_PLUS, s.colluding(), s.maxDropout(), s.dropouts(),
            s.threads())));
    add(new Entry("secagg", List.of(), "SecAgg (Bonawitz et al. 2017): masks between every pair of parties",
        s -> new InProcessSecAgg(InProcessSecAgg.Variant.SECAGG, s.colluding(), s.maxDropout(), s.dropouts(),
            s.threads())));
    add(new Entry("dca", List.of("compute-servers"),
        "additive shares to compute nodes, private if one node is honest",
        s -> new ComputeServerSummation(s.computeNodes(), s.dropouts(), s.threads())));
    add(new Entry("groups", List.of(), "pairwise masks within disjoint groups (Heikkila et al.'s Fig. 5)",
        s -> new GroupMaskSummation(s.groupSize(), GroupMaskSummation.Graph.DISJOINT, s.dropouts(), s.threads())));
    add(new Entry("harary", List.of(), "pairwise masks over a Harary graph",
        s -> new GroupMaskSummation(s.groupSize(), GroupMaskSummation.Graph.HARARY, s.dropouts(), s.threads())));
    add(new Entry("plain", List.of(), "the sum in the clear: no secure aggregation (trusted server)",
        s -> new PlainSummation()));
  }

  private static void add(Entry e) {
    ENTRIES.put(e.name(), e);
  }

  /** Every registered summation, in the order they are listed to users. */
  public static List<Entry> all() {
    return Collections.unmodifiableList(new ArrayList<>(ENTRIES.values()));
  }

  /** The entry named {@code name} (a name or an alias, any case), or null. */
  public static Entry find(String name) {
    if (name == null) {
      return null;
    }
    String n = name.trim().toLowerCase(Locale.ROOT);
    for (Entry e : ENTRIES.values()) {
      if (e.name().equals(n) || e.aliases().contains(n)) {
        return e;
      }
    }
    return null;
  }

  /**
   * The summation {@code name} made from {@code settings}.
   *
   * @throws IllegalArgumentException naming the registered summations when none is called {@code name}
   */
  public static SecureSummation make(String name, Settings settings) {
    Entry e = find(name);
    if (e == null) {
      throw new IllegalArgumentException("no summation is called '" + name + "'; registered: " + names());
    }
    return e.make().apply(settings);
  }

  /** The registered names with their aliases, for messages and help: "secagg+, secagg, dca (or compute-servers), ...". */
  public static String names() {
    List<String> out = new ArrayList<>();
    for (Entry e : ENTRIES.values()) {
      out.add(e.aliases().isEmpty() ? e.name() : e.name() + " (or " + String.join(", ", e.aliases()) + ")");
    }
    return String.join(", ", out);
  }
}
