package dev.helmet.privacy.accounting;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.helmet.privacy.event.NeighbourRelation;
import org.apache.commons.numbers.gamma.RegularizedGamma;
import org.apache.commons.statistics.distribution.NormalDistribution;
import org.junit.jupiter.api.Test;

class ProjectionSensitivityTest {
  private static final int[] DIMENSIONS = {10, 50, 100, 200, 400};

  /**
   * clip_ratio = sqrt(chi^2_k.isf(delta')/k), golden values from scipy ({@code gamma.ppf} checked
   * against {@code chi2.isf}) in docs/design/cross-silo.md 1.5; six decimals for delta' in {1e-5,
   * 5e-6, 1e-8}, four for the per-step budgets 4e-9 and 2e-9 of doubt 4 (k = 10 not tabulated).
   */
  @Test
  void clipRatioMatchesTheScipyTable() {
    double[][] six = {{1e-5, 2.032146, 1.445971, 1.311865, 1.218599, 1.153542},
        {5e-6, 2.073327, 1.462983, 1.323579, 1.226707, 1.159180},
        {1e-8, 2.401332, 1.598130, 1.416446, 1.290852, 1.203706}};
    for (double[] row : six) {
      for (int i = 0; i < DIMENSIONS.length; i++) {
        assertEquals(row[1 + i], ProjectionSensitivity.clipRatio(DIMENSIONS[i], row[0]), 5e-7,
            "k " + DIMENSIONS[i] + " delta' " + row[0]);
      }
    }
    double[][] four = {{4e-9, 1.6160, 1.4287, 1.2993, 1.2096}, {2e-9, 1.6293, 1.4378, 1.3056, 1.2139}};
    for (double[] row : four) {
      for (int i = 1; i < DIMENSIONS.length; i++) {
        assertEquals(row[i], ProjectionSensitivity.clipRatio(DIMENSIONS[i], row[0]), 5e-5,
            "k " + DIMENSIONS[i] + " delta' " + row[0]);
      }
    }
  }

  /**
   * An independent code path: bisection on t for Q(k/2, k t/2) = delta' with commons-numbers'
   * regularised upper gamma function (the survival function of Gamma(k/2, 2/k) at t), 200 halvings.
   * Agreement to 1e-9 relative, and the library value is never below (it is rounded up).
   */
  @Test
  void clipRatioAgreesWithBisectionOnTheRegularisedGamma() {
    for (int k : new int[] {1, 2, 10, 100, 1000, 10_000}) {
      for (double dp : new double[] {0.1, 1e-5, 1e-9, 1e-15}) {
        double lo = 0;
        double hi = 1;
        while (RegularizedGamma.Q.value(k / 2.0, k * hi / 2) > dp) {
          hi *= 2;
        }
        for (int i = 0; i < 200; i++) {
          double mid = 0.5 * (lo + hi);
          if (RegularizedGamma.Q.value(k / 2.0, k * mid / 2) > dp) {
            lo = mid;
          } else {
            hi = mid;
          }
        }
        double bisected = Math.sqrt(hi);
        double r = ProjectionSensitivity.clipRatio(k, dp);
        assertEquals(bisected, r, 1e-9 * bisected, "k " + k + " delta' " + dp);
        assertTrue(r >= bisected * (1 - 1e-14), "k " + k + " delta' " + dp + ": " + r + " below " + bisected);
      }
    }
  }

  /**
   * A rough third check: the Wilson-Hilferty cube-root normal approximation chi^2_k.isf(p) ~ k (1 -
   * 2/(9k) + z sqrt(2/(9k)))^3, z = Phi^-1(1 - p), within 1 % for k >= 50 (it is an approximation;
   * its error shrinks with k).
   */
  @Test
  void clipRatioIsNearWilsonHilferty() {
    for (int k : new int[] {50, 100, 400, 5000}) {
      for (double dp : new double[] {1e-5, 1e-8}) {
        double z = NormalDistribution.of(0, 1).inverseSurvivalProbability(dp);
        double c = 1 - 2.0 / (9 * k) + z * Math.sqrt(2.0 / (9 * k));
        double wh = Math.sqrt(c * c * c);
        assertEquals(wh, ProjectionSensitivity.clipRatio(k, dp), 0.01 * wh, "k " + k + " delta' " + dp);
      }
    }
  }

  /** c delta' per step (c = 1 add/remove, 2 replace-one; doubt 3) and 1 - (1 - s)^K over K steps. */
  @Test
  void slackPerStepAndInTotal() {
    assertEquals(1e-5, ProjectionSensitivity.perStepSlack(NeighbourRelation.ADD_OR_REMOVE_ONE, 1e-5));
    assertEquals(2e-5, ProjectionSensitivity.perStepSlack(NeighbourRelation.REPLACE_ONE, 1e-5));
    // doubt 4: 2e-9 per step under replace-one over 1250 steps stays within the 5e-6 the authors spend once
    double total = ProjectionSensitivity.totalSlack(4e-9, 1250);
    assertTrue(total >= 5e-6 * (1 - 1250 * 4e-9 / 2) && total <= 5e-6, "total " + total);
    double exact = 1 - Math.pow(1 - 0.01, 100); // 0.633967..., where pow is accurate
    assertEquals(exact, ProjectionSensitivity.totalSlack(0.01, 100), 2e-12); // rounded up by 1e-12 relative
    assertTrue(ProjectionSensitivity.totalSlack(0.01, 100) >= exact);
    assertEquals(1, ProjectionSensitivity.totalSlack(1, 3));
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
        () -> ProjectionSensitivity.clipRatio(100, 0));
    assertEquals("projection slack delta' must be in (0, 1). Provided value: 0.0", e.getMessage());
    assertThrows(IllegalArgumentException.class, () -> ProjectionSensitivity.clipRatio(0, 1e-5));
  }
}
