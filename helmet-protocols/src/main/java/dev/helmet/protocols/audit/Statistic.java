package dev.helmet.protocols.audit;

import dev.helmet.core.util.Checks;
import dev.helmet.protocols.simulation.Simulation;
import java.util.List;

/**
 * A test statistic over one release, fixed from pilot runs before any scored trial is drawn (so the
 * threshold chosen later is the only thing the scored trials decide, and on their first half only).
 */
public interface Statistic {
  /** Scores one release; larger means "more like D'". */
  interface Score {
    double of(Simulation.Result release);
  }

  /** Its name in reports. */
  String id();

  /**
   * The score, fixed from pilot releases on D and on D' drawn with the same noise seeds pairwise
   * ({@code onD.get(i)} and {@code onNeighbour.get(i)} share theirs).
   */
  Score fit(List<Simulation.Result> onD, List<Simulation.Result> onNeighbour);

  /**
   * {@code <theta, m' - m>}: the released parameters projected on the mean difference of the pilot
   * pairs. The pilots share their noise, so the difference is what D' moves the release by, noise
   * cancelled; for a Gaussian release it is the likelihood-ratio test, the most powerful there is.
   */
  Statistic PROJECTION = new Statistic() {
    @Override
    public String id() {
      return "projection";
    }

    @Override
    public Score fit(List<Simulation.Result> onD, List<Simulation.Result> onNeighbour) {
      Checks.require(!onD.isEmpty() && onD.size() == onNeighbour.size(),
          "the projection needs pilot pairs, got " + onD.size() + " and " + onNeighbour.size());
      int n = onD.get(0).model().parameters().length;
      double[] direction = new double[n];
      for (int t = 0; t < onD.size(); t++) {
        double[] a = onD.get(t).model().parameters();
        double[] b = onNeighbour.get(t).model().parameters();
        Checks.require(a.length == n && b.length == n, "releases of different lengths: " + a.length + " and "
            + b.length + " (expected " + n + ")");
        for (int i = 0; i < n; i++) {
          direction[i] += (b[i] - a[i]) / onD.size();
        }
      }
      return r -> {
        double[] theta = r.model().parameters();
        double s = 0;
        for (int i = 0; i < n; i++) {
          s += theta[i] * direction[i];
        }
        return s;
      };
    }
  };
}
