package dev.helmet.privacy.calculator;

import dev.helmet.core.util.Checks;
import dev.helmet.privacy.accounting.Calibration;
import dev.helmet.privacy.accounting.GaussianAccountant;
import dev.helmet.privacy.accounting.GaussianReleases;
import dev.helmet.privacy.accounting.PldAccountant;
import dev.helmet.privacy.accounting.PrivacyAccountant;
import dev.helmet.privacy.accounting.RdpAccountant;
import dev.helmet.privacy.event.DpEvent;
import dev.helmet.privacy.event.GaussianDpEvent;
import dev.helmet.privacy.event.NeighbourRelation;
import dev.helmet.privacy.event.PoissonSampledDpEvent;
import dev.helmet.privacy.event.SelfComposedDpEvent;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Supplier;

/**
 * Gaussian releases with noise multiplier S (sensitivity 1 per release): K unsampled releases of
 * groups of G records (multiplier S/G each), or T steps of the Poisson-subsampled Gaussian (DP-SGD),
 * accounted exactly ({@code gaussian}: {@link GaussianAccountant}, unsampled only), with RDP or with
 * PLD. The free parameter is {@code --noise-multiplier}.
 */
final class GaussianCalculator implements PrivacyCalculator {
  /** The exact Gaussian curve (Sommer et al. 2019 Thm 5, the analytic Gaussian). */
  static final GaussianCalculator EXACT = new GaussianCalculator("gaussian", "gaussian (exact, unsampled releases only)",
      GaussianAccountant::new, 1e-10);
  /** Renyi DP; its calibration stops at 1e-8 relative. */
  static final GaussianCalculator RDP = new GaussianCalculator("rdp", "rdp", RdpAccountant::new, 1e-8);
  /** Privacy loss distributions; every evaluation is costly and its grid coarser, so calibration stops at 1e-4. */
  static final GaussianCalculator PLD = new GaussianCalculator("pld", "pld", PldAccountant::new, 1e-4);

  /** Who the printed epsilon protects against (JSON key {@code against}). */
  static final String AGAINST = "anyone who sees what is released";

  private static final String SIGMA = "--noise-multiplier";

  private final String name;
  private final String summary;
  private final Supplier<PrivacyAccountant> accountants;
  private final double tolerance;

  private GaussianCalculator(String name, String summary, Supplier<PrivacyAccountant> accountants, double tolerance) {
    this.name = name;
    this.summary = summary;
    this.accountants = accountants;
    this.tolerance = tolerance;
  }

  @Override
  public String name() {
    return name;
  }

  @Override
  public String summary() {
    return summary;
  }

  @Override
  public String parameter() {
    return SIGMA;
  }

  @Override
  public List<String> options() {
    return List.of(SIGMA);
  }

  @Override
  public void validate(CalculatorInput in) {
    Checks.require(this != PLD || !(in.delta() < PldAccountant.SMALLEST_DELTA), "--accountant pld resolves"
        + " delta down to " + PldAccountant.SMALLEST_DELTA + "; use --accountant rdp for --delta " + in.delta());
  }

  @Override
  public Calculation bind(CalculatorInput in, NeighbourRelation relation) {
    if (in.sampled()) {
      in.requireSampling();
      Checks.require(in.compositions() == 1 && in.groupSize() == 1,
          "--compositions and --group-size apply to unsampled releases; with --sampling-rate give --steps");
      Checks.require(this != EXACT, "the exact Gaussian accountant has no subsampling; use --accountant rdp or pld");
      Checks.require(relation == NeighbourRelation.ADD_OR_REMOVE_ONE || this == PLD,
          "replace-one neighbours need --accountant pld (the RDP bound here is for add-remove)");
    } else if (in.steps() != null) {
      throw new IllegalArgumentException("--steps goes with --sampling-rate; for unsampled releases use --compositions");
    }
    return new Releases(in, relation);
  }

  /** The bound releases. */
  private final class Releases implements Calculation {
    private final CalculatorInput in;
    private final NeighbourRelation relation;

    Releases(CalculatorInput in, NeighbourRelation relation) {
      this.in = in;
      this.relation = relation;
    }

    @Override
    public double delta() {
      return in.delta();
    }

    @Override
    public DpEvent event(double sigma) {
      if (in.sampled()) {
        return new SelfComposedDpEvent(new PoissonSampledDpEvent(in.samplingRate(), new GaussianDpEvent(sigma),
            relation), in.steps());
      }
      if (GaussianCalculator.this == EXACT) {
        return GaussianReleases.event(sigma / in.groupSize(), in.compositions());
      }
      return new SelfComposedDpEvent(new GaussianDpEvent(sigma / in.groupSize()), in.compositions());
    }

    @Override
    public Supplier<PrivacyAccountant> accountants() {
      return accountants;
    }

    /**
     * The exact curve is searched per record (multiplier S/G, then times G: group privacy scales the
     * multiplier exactly); the others over S itself.
     */
    @Override
    public Calibration.Search search() {
      return GaussianCalculator.this == EXACT && !in.sampled()
          ? Calibration.Search.noiseMultiplier(x -> GaussianReleases.event(x, in.compositions()))
          : Calibration.Search.noiseMultiplier(this::event).withTolerance(tolerance);
    }

    @Override
    public double value(double x) {
      return GaussianCalculator.this == EXACT && !in.sampled() ? in.groupSize() * x : x;
    }

    @Override
    public double given() {
      Double sigma = in.real(SIGMA);
      if (sigma == null) {
        throw new IllegalArgumentException("--noise-multiplier is required (or --accountant smm with --skellam-lambda)");
      }
      Checks.positive("noise multiplier", sigma);
      return sigma;
    }

    @Override
    public Report epsilonReport(double sigma, double epsilon) {
      Map<String, Object> j = header();
      j.put("epsilon", epsilon);
      j.put("noise_multiplier", sigma);
      return new Report(j, String.format("epsilon = %.6f at delta = %s for %s with noise multiplier %s, against "
          + "%s, for neighbours that %s (sensitivity 1 per release)", epsilon, dev.helmet.core.util.Numbers.fmt(in.delta()), describe(),
          dev.helmet.core.util.Numbers.fmt(sigma), AGAINST, relationWords()));
    }

    /** The target is what is printed as epsilon: the calibrated multiplier's own eps is at most it. */
    @Override
    public Report noiseReport(double sigma, double target, double epsilon) {
      Map<String, Object> j = header();
      j.put("noise_multiplier", sigma);
      j.put("epsilon", target);
      return new Report(j, String.format("noise multiplier = %.6f for epsilon = %s, delta = %s over %s, against %s; "
          + "neighbours: %s", sigma, dev.helmet.core.util.Numbers.fmt(target), dev.helmet.core.util.Numbers.fmt(in.delta()), describe(), AGAINST, relationWords()));
    }

    private Map<String, Object> header() {
      Map<String, Object> j = new LinkedHashMap<>();
      j.put("delta", in.delta());
      j.put("compositions", in.compositions());
      j.put("group_size", in.groupSize());
      j.put("accountant", GaussianCalculator.this == EXACT ? "gaussian-exact" : name);
      if (in.sampled()) {
        j.put("sampling_rate", in.samplingRate());
        j.put("steps", in.steps());
        j.put("neighbours", in.neighbours());
      }
      j.put("against", AGAINST);
      j.put("relation", relationWords());
      return j;
    }

    /** The neighbouring relation in words (sampled releases name theirs; Gaussian releases hold for either). */
    private String relationWords() {
      if (in.sampled()) {
        return NeighbourRelation.parse(in.neighbours()).describe();
      }
      return "change the released value by at most the sensitivity (replace one record for Helmet's learners)";
    }

    private String describe() {
      if (in.sampled()) {
        return in.steps() + " steps of the Poisson-subsampled Gaussian (q = " + dev.helmet.core.util.Numbers.fmt(in.samplingRate()) + ", "
            + in.neighbours() + ", " + name + " accountant)";
      }
      return in.compositions() + " Gaussian release(s)" + (in.groupSize() > 1 ? " (groups of " + in.groupSize() + ")"
          : "") + (GaussianCalculator.this == EXACT ? "" : " (" + name + " accountant)");
    }
  }
}
