package dev.helmet.protocols.audit;

import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.helmet.core.data.Dataset;
import dev.helmet.core.testdata.TestData;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * The audit of dp-fl's release (federated DP-SGD of the softmax model, 5 full-batch rounds on iris
 * in 3 parties; {@link AuditSpecs#dpFl}), against the guarantee to a holder of the released model,
 * per record: sound (eps_lb stays under the printed eps and the canary is seen) and powerful (noise
 * sized for eps 30 would be caught were it printed as eps 1), under replace-one neighbours with the
 * gradient canary and under add-or-remove ones with the add-one canary.
 *
 * <p>False failures: a sound test fails by refutation with probability at most 5 % over the trials
 * when the printed eps is true (the bound's confidence), and far less here, where the test's
 * separation supports an eps well below the printed one; its separation floor is more than 3
 * standard errors ({@code sqrt(2 / trials)}) under the mean separation measured over 5 seeds.
 */
@Tag("statistical")
class DpFlAuditTest {
  @Test
  void gradientCanaryAuditStaysUnderThePrintedEpsilon() throws Exception {
    Dataset iris = TestData.iris();
    ReleaseAudit.Outcome o = AuditSpecs.audit("dp-fl, replace-one, noise for eps 1", AuditSpecs.dpFl(1, iris),
        "gradient", iris, 5_000, 11);
    assertTrue(!o.refutes(), "eps_lb " + o.bound().epsilon() + " above the printed " + o.printedEpsilon());
    // Measured 0.11 on average (5 seeds, 2,000 trials each: 0.06 to 0.15); the standard error at
    // 5,000 is 0.020. The canary moves the sum by about sqrt(2) C of the 2C the noise is sized for:
    // its gradient is nearly orthogonal to the replaced record's.
    assertTrue(o.separation() > 0.03, "the test lost the canary: separation " + o.separation());
  }

  @Test
  void underScaledNoiseIsCaughtByTheGradientCanary() throws Exception {
    // Noise sized for eps 30, as a ledger printing eps 1 over it would be (under-scaled about
    // twentyfold): the audit's bound must exceed 1. Measured 2.5 at 1,000 trials (separation 1.9).
    Dataset iris = TestData.iris();
    ReleaseAudit.Outcome o = AuditSpecs.audit("dp-fl, replace-one, noise for eps 30", AuditSpecs.dpFl(30, iris),
        "gradient", iris, 1_000, 13);
    assertTrue(o.bound().epsilon() > 1, "eps_lb " + o.bound().epsilon() + " does not catch noise sized for eps 30");
    assertTrue(!o.refutes(), "eps_lb " + o.bound().epsilon() + " above the true " + o.printedEpsilon());
  }

  @Test
  void addOneAuditUnderAddOrRemoveStaysUnderThePrintedEpsilon() throws Exception {
    // D' has one record more in party 0; each side's plan is derived from its own sizes, and dp-fl's
    // step divides by the public expected batch 150, so nothing but the canary's gradient differs.
    Dataset iris = TestData.iris();
    ReleaseAudit.Outcome o = AuditSpecs.audit("dp-fl, add-remove, noise for eps 1",
        AuditSpecs.dpFlAddRemove(1, iris), "add-one", iris, 3_000, 17);
    assertTrue(!o.refutes(), "eps_lb " + o.bound().epsilon() + " above the printed " + o.printedEpsilon());
    // Measured 0.19 on average (5 seeds, 2,000 trials each: 0.15 to 0.24; standard error at 3,000
    // 0.026): the canary's clipped gradient, of norm C, is the whole difference.
    assertTrue(o.separation() > 0.08, "the test lost the canary: separation " + o.separation());
  }

  @Test
  void underScaledNoiseIsCaughtByTheAddOneCanary() throws Exception {
    // Measured eps_lb 4.3 at 1,000 trials (separation 3.6).
    Dataset iris = TestData.iris();
    ReleaseAudit.Outcome o = AuditSpecs.audit("dp-fl, add-remove, noise for eps 30",
        AuditSpecs.dpFlAddRemove(30, iris), "add-one", iris, 1_000, 19);
    assertTrue(o.bound().epsilon() > 2, "eps_lb " + o.bound().epsilon() + " does not catch noise sized for eps 30");
    assertTrue(!o.refutes(), "eps_lb " + o.bound().epsilon() + " above the true " + o.printedEpsilon());
  }

  @Test
  void sampledReleaseAuditStaysUnderThePrintedEpsilon() throws Exception {
    // Poisson sampling at rate 0.2: the printed eps is amplified by secret batches, which each trial
    // redraws (when the trials shared their party seeds, every trial had the same batches: a
    // different mechanism from the one printed). Measured: eps_lb 0.02 and 0, separation 0.14 and
    // 0.06 in two seedings (standard error at 3,000 trials 0.026): the floor is only that it is seen. The batches of the other records now vary from trial to trial
    // too, and they move the model more than the noise does: noise sized for eps 30 gave separation
    // 0.21 and eps_lb 0 at 1,000 trials, so this projection test has little power under sampling,
    // and none is asserted.
    Dataset iris = TestData.iris();
    ReleaseAudit.Outcome o = AuditSpecs.audit("dp-fl, add-remove, q 0.2, noise for eps 1",
        AuditSpecs.dpFlSampled(1, iris), "add-one", iris, 3_000, 23);
    assertTrue(!o.refutes(), "eps_lb " + o.bound().epsilon() + " above the printed " + o.printedEpsilon());
    assertTrue(o.separation() > 0, "the test lost the canary: separation " + o.separation());
  }
}
