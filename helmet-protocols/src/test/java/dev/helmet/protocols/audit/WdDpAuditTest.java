package dev.helmet.protocols.audit;

import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.helmet.core.data.Dataset;
import dev.helmet.core.testdata.TestData;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * The audit of wd-dp's release (each party's 5 full-batch noisy gradient steps of the softmax
 * model, averaged by size, on iris in 3 parties; {@link AuditSpecs#wdDp}), against the guarantee to
 * a holder of the released model, per record under replace-one neighbours, with the gradient
 * canary: sound at eps 1, and powerful against noise sized for eps 100 printed as eps 1.
 *
 * <p>wd-dp's accounted sensitivity is loose against any record: each step's noise is sized for
 * {@code 2G / n} with {@code G = sqrt(2) c'}, which a record reaches only where the model is
 * confidently wrong about it, and the released average carries the other parties' noise too,
 * which the per-party guarantee does not count. So the audit needs a larger under-scale to catch
 * than dp-fl's (noise for eps 30 gave eps_lb 0.27, for eps 100 1.8, at 1,000 trials).
 *
 * <p>False failures: refutation at most 5 % by the bound's confidence when the printed eps is true
 * (far less here); the separation test is described where it is made.
 */
@Tag("statistical")
class WdDpAuditTest {
  @Test
  void gradientCanaryAuditStaysUnderThePrintedEpsilon() throws Exception {
    Dataset iris = TestData.iris();
    ReleaseAudit.Outcome o = AuditSpecs.audit("wd-dp, noise for eps 1", AuditSpecs.wdDp(1, iris), "gradient", iris,
        10_000, 23);
    assertTrue(!o.refutes(), "eps_lb " + o.bound().epsilon() + " above the printed " + o.printedEpsilon());
    // Measured 0.045 on average (5 seeds, 2,000 trials each: 0.006 to 0.085); the standard error at
    // 10,000 is 0.014, so a positive separation is 3.2 of them from the mean (false failure about 1 in
    // 1,500 seeds).
    assertTrue(o.separation() > 0, "the test lost the canary: separation " + o.separation());
  }

  @Test
  void underScaledNoiseIsCaught() throws Exception {
    Dataset iris = TestData.iris();
    ReleaseAudit.Outcome o = AuditSpecs.audit("wd-dp, noise for eps 100", AuditSpecs.wdDp(100, iris), "gradient",
        iris, 2_000, 29);
    assertTrue(o.bound().epsilon() > 1, "eps_lb " + o.bound().epsilon() + " does not catch noise sized for eps 100");
    assertTrue(!o.refutes(), "eps_lb " + o.bound().epsilon() + " above the true " + o.printedEpsilon());
  }
}
