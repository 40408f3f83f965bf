package dev.helmet.protocols.audit;

import dev.helmet.core.data.Dataset;
import dev.helmet.core.testdata.TestData;
import dev.helmet.core.util.Progress;
import dev.helmet.protocols.algorithm.AlgorithmSpec;
import dev.helmet.protocols.privacy.Protection;
import org.junit.jupiter.api.Test;

class ScratchProbeTest {
  @Test
  void probe() throws Exception {
    Dataset iris = TestData.iris();
    int trials = Integer.getInteger("t", 1000);
    double eps = Double.parseDouble(System.getProperty("eps", "1"));
    String alg = System.getProperty("alg", "dp-fl");
    String canary = System.getProperty("canary", "gradient");
    AlgorithmSpec spec = switch (alg) {
      case "dp-fl" -> AuditSpecs.dpFl(eps, iris);
      case "dp-fl-ar" -> AuditSpecs.dpFlAddRemove(eps, iris);
      case "wd-dp" -> AuditSpecs.wdDp(eps, iris);
      case "smm" -> AuditSpecs.smm(eps, iris);
      case "helmet-user" -> AuditSpecs.helmet(eps, Protection.user(), iris);
      default -> AuditSpecs.configure(alg.split("@")[0], System.getProperty("json"), eps, Protection.record(), iris);
    };
    System.out.println(spec.describe());
    ReleaseAudit.Outcome o = ReleaseAudit.run(spec, Canaries.named(canary, spec), iris, AuditSpecs.threeParties(iris),
        trials, 4, 0.95, 3, 2, Progress.NONE);
    System.out.printf("PROBE %s %s eps %.3f: eps_lb %.3f, separation %.3f, %d trials, %.2f s, %.3f ms/run%n", alg,
        canary, o.printedEpsilon(), o.bound().epsilon(), o.separation(), o.trials(), o.seconds(),
        1000 * o.seconds() / (2.0 * (trials + 4)));
  }
}
