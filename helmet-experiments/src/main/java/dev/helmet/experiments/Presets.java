package dev.helmet.experiments;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.ServiceLoader;

/**
 * The registry of built-in experiments: every {@link Preset} of every {@link Preset.Provider} on
 * the class path (one per algorithm's sub-package: {@code blind} for the Helmet papers' figures 5
 * and 6 and table 2, {@code wddp}, {@code smm}, {@code crosssilo}). Help and errors list the
 * learning grids first, then the computed presets, each in their providers' order.
 */
public final class Presets {
  private Presets() {}

  private static final Map<String, Preset> BY_ID = load();

  /** The presets that are experiment grids ({@link #get}). */
  public static final List<String> NAMES = BY_ID.values().stream().filter(p -> p instanceof GridPreset)
      .map(Preset::id).toList();

  /** The presets that are computations, not experiment grids: each has its own runner. */
  public static final List<String> COMPUTED = BY_ID.values().stream().filter(p -> p instanceof ComputedPreset)
      .map(Preset::id).toList();

  /** Every preset's name, for help and errors. */
  public static final List<String> ALL = java.util.stream.Stream.concat(NAMES.stream(), COMPUTED.stream()).toList();

  private static Map<String, Preset> load() {
    List<Preset> all = new ArrayList<>();
    for (Preset.Provider p : ServiceLoader.load(Preset.Provider.class, Presets.class.getClassLoader())) {
      all.addAll(p.presets());
    }
    Map<String, Preset> byId = new LinkedHashMap<>();
    for (boolean grids : new boolean[] {true, false}) {
      for (Preset p : all) {
        if ((p instanceof GridPreset) == grids && byId.put(p.id(), p) != null) {
          throw new IllegalStateException("two presets are named " + p.id());
        }
      }
    }
    return java.util.Collections.unmodifiableMap(byId);
  }

  /** Every registered preset, in the order of {@link #ALL}. */
  public static List<Preset> all() {
    return List.copyOf(BY_ID.values());
  }

  /**
   * The preset {@code name} (case and surrounding blanks ignored).
   *
   * @throws IllegalArgumentException naming every registered preset, if none has that name
   */
  public static Preset named(String name) {
    Preset p = BY_ID.get(name.trim().toLowerCase(Locale.ROOT));
    if (p == null) {
      throw new IllegalArgumentException("unknown preset " + name.toLowerCase(Locale.ROOT) + "; presets: " + String.join(", ", ALL));
    }
    return p;
  }

  /** The presets that have a networked form ({@code --network}), by name. */
  public static List<String> networked() {
    return BY_ID.values().stream().filter(p -> p.network() != null).map(Preset::id).sorted().toList();
  }

  /**
   * The claims sections a report checks: the preset's own, or, for an experiment file ({@code
   * preset} null), every registered preset's (each written only where it applies to the results).
   */
  public static List<Claims> claims(Preset preset) {
    if (preset != null) {
      return preset.claims() == null ? List.of() : List.of(preset.claims());
    }
    return BY_ID.values().stream().map(Preset::claims).filter(java.util.Objects::nonNull).distinct().toList();
  }

  /** The data set a preset runs on when none is named (mnist for a name that is no grid). */
  public static String defaultDataset(String name) {
    Preset p = BY_ID.get(name.trim().toLowerCase(Locale.ROOT));
    return p != null && p.defaultDataset() != null ? p.defaultDataset() : "mnist";
  }

  /** The preset {@code name} for {@code dataset}, on raw pixels. */
  public static ExperimentConfig get(String name, String dataset, boolean quick) {
    return get(name, dataset, quick, "raw");
  }

  /**
   * The grid preset {@code name} for {@code dataset} on the feature set {@code features} (raw,
   * scatter, hog). A feature set other than raw is part of the name ({@code fig5-mnist-scatter}), so
   * the report says it and results of different feature sets are told apart at a glance (a folder
   * holding another feature set's results is refused in any case: the configurations differ).
   *
   * @throws IllegalArgumentException if there is no such preset, or it is not a grid
   */
  public static ExperimentConfig get(String name, String dataset, boolean quick, String features) {
    Preset p = named(name);
    if (!(p instanceof GridPreset g)) {
      throw new IllegalArgumentException(p.id() + " is not an experiment grid (run it with helmet experiment run "
          + "--preset " + p.id() + ")");
    }
    return g.config(dataset, quick, features);
  }
}
