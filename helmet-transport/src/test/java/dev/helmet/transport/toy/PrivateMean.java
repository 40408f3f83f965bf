package dev.helmet.transport.toy;

import dev.helmet.protocols.shared.HonestParties;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.helmet.core.learn.LearnerKind;
import dev.helmet.core.learn.LinearModel;
import dev.helmet.core.preprocess.DesignMatrix;
import dev.helmet.core.preprocess.Preprocessing;
import dev.helmet.core.util.Checks;
import dev.helmet.privacy.accounting.Calibration;
import dev.helmet.privacy.accounting.GaussianAccountant;
import dev.helmet.privacy.event.GaussianDpEvent;
import dev.helmet.privacy.ledger.Guarantee;
import dev.helmet.privacy.ledger.PrivacyCharge;
import dev.helmet.privacy.ledger.PrivacyLedger;
import dev.helmet.privacy.noise.NoiseFactory;
import dev.helmet.protocols.algorithm.Algorithm;
import dev.helmet.protocols.algorithm.AlgorithmSpec;
import dev.helmet.protocols.algorithm.Common;
import dev.helmet.protocols.algorithm.Contributor;
import dev.helmet.protocols.algorithm.Local;
import dev.helmet.protocols.algorithm.Parameter;
import dev.helmet.protocols.algorithm.PublicPlan;
import dev.helmet.protocols.algorithm.ServerRole;
import dev.helmet.protocols.algorithm.Terms;
import dev.helmet.protocols.config.StrictNode;
import dev.helmet.protocols.privacy.Audience;
import dev.helmet.protocols.privacy.Protection;
import dev.helmet.secagg.ring.FixedPointEncoding;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * A toy algorithm that lives only in the tests, to prove the algorithm interface complete: private
 * class means. One round; every party sends, per class, the sum of its rows [1, x] of that class
 * (x clipped to norm c) divided by the public total of records, plus its share of Gaussian noise.
 * The released "model" is the noisy class means, a K x (p + 1) linear model that scores a row by its
 * dot product with each class's mean (the intercept weight is the class's frequency).
 *
 * <p>Privacy: replacing one record moves at most two class rows, each by at most r / n (r =
 * sqrt(1 + c^2), the row's norm bound), so the
 * L2 sensitivity of the sum is sqrt(2) r / n; the honest parties' noise alone has std sigma times
 * that (each of the h guaranteed honest parties adds variance (sigma S)^2 / h), one Gaussian
 * release. It is registered through the same {@code META-INF/services} file mechanism as the
 * built-in algorithms (test resources), and no runner names it.
 */
public final class PrivateMean implements Algorithm {
  public static final String ID = "private-mean";

  @Override
  public String id() {
    return ID;
  }

  @Override
  public String summary() {
    return "test only: private class means in one round";
  }

  @Override
  public List<Parameter> parameters() {
    return List.of(new Parameter("mean.clip", "--mean-clip", Parameter.Type.NUMBER, "1", "row norm bound c"),
        new Parameter("mean.ring_bits", "--mean-ring-bits", Parameter.Type.INTEGER, "0",
            "summation ring: 0 for 64 bits and 40 fractional bits, or 2..64 bits (coarse, to test small rings)"));
  }

  @Override
  public Set<String> keys() {
    return Set.of("mean");
  }

  @Override
  public AlgorithmSpec configure(StrictNode config, Common common) {
    StrictNode m = config.child("mean");
    m.allow("clip", "ring_bits");
    double clip = m.number("clip", 1.0, 1e-9, 1e9);
    int ringBits = m.integer("ring_bits", 0, 0, 64);
    Checks.require(ringBits == 0 || ringBits >= 2, "ring_bits must be 0 or in [2, 64]. Provided value: " + ringBits);
    Checks.require(common.protection().unit() == Protection.Unit.RECORD, "private-mean protects records");
    return new Spec(this, common, clip, ringBits);
  }

  private record Sums(DesignMatrix rows) implements Local {
    @Override
    public int size() {
      return rows.rows();
    }
  }

  private record Spec(Algorithm algorithm, Common common, double clip, int ringBits) implements AlgorithmSpec {
    @Override
    public ObjectNode toConfig() {
      ObjectNode o = JsonNodeFactory.instance.objectNode();
      ObjectNode m = o.putObject("mean").put("clip", clip);
      if (ringBits != 0) {
        m.put("ring_bits", ringBits);
      }
      return o;
    }

    @Override
    public Preprocessing preprocessing() {
      return new Preprocessing(clip, false);
    }

    /** The class means score like a softmax model's rows (the predicted class is the largest score). */
    @Override
    public LearnerKind modelKind() {
      return LearnerKind.SOFTMAX;
    }

    /** The same class means on the pooled rows, without noise. */
    @Override
    public Reference reference(DesignMatrix pooled, java.util.SplittableRandom rng) {
      int cols = pooled.cols();
      double[] means = new double[common.classes() * cols];
      for (int i = 0; i < pooled.rows(); i++) {
        pooled.axpy(i, 1.0 / pooled.rows(), means, pooled.label(i) * cols);
      }
      return new Reference(new LinearModel(common.classes(), cols, means),
          "non-private class means on the pooled data", 0);
    }

    @Override
    public int rounds() {
      return 1;
    }

    @Override
    public int length() {
      return common.classes() * (common.features() + 1);
    }

    @Override
    public String describe() {
      return "class means of rows clipped to norm " + clip;
    }

    @Override
    public Terms terms() {
      return new Terms("centroid", false, "honest");
    }

    @Override
    public Local prepare(DesignMatrix data, long seed) {
      return new Sums(data);
    }

    @Override
    public PublicPlan plan(int[] sizes, int minContributors, boolean secureNoise) {
      return new Plan(this, sizes, minContributors);
    }
  }

  private static final class Plan implements PublicPlan {
    private final Spec spec;
    private final int parties;
    private final int minContributors;
    private final long total;
    private final double sigma;
    private final double partyStd;
    private final double bound;
    private final FixedPointEncoding encoding;
    private final int honest;

    Plan(Spec spec, int[] sizes, int minContributors) {
      this.spec = spec;
      this.parties = sizes.length;
      this.minContributors = minContributors;
      long n = 0;
      for (int s : sizes) {
        n += s;
      }
      this.total = n;
      Common c = spec.common();
      this.honest = HonestParties.honestContributors(minContributors, parties, c.honestFraction());
      Checks.require(honest >= 1, "no honest contributor is guaranteed");
      // The clamp below sits 40 noise standard deviations out: the chance it fires (under 1e-300
      // for any count of values here) is charged to delta as 1e-300.
      this.sigma = Calibration.noiseMultiplier(GaussianDpEvent::new, GaussianAccountant::new, c.epsilon(),
          c.delta() - 1e-300);
      // A row [1, x] has norm at most the preprocessing's bound r = sqrt(1 + c^2).
      double r = spec.preprocessing().inputNormBound();
      double sensitivity = Math.sqrt(2) * r / total;
      this.partyStd = sigma * sensitivity / Math.sqrt(honest);
      this.bound = r + 40 * partyStd;
      this.encoding = spec.ringBits() == 0 ? FixedPointEncoding.forBound(64, bound, parties, 40)
          : coarse(spec.ringBits(), bound, parties);
    }

    /**
     * The most fractional bits a b-bit ring holds without wrapping, even fewer than a real
     * algorithm would accept: the means come out coarse, but a small ring (a 6-bit ring keeps one
     * fractional bit here) travels through both runners.
     */
    private static FixedPointEncoding coarse(int bits, double bound, int parties) {
      for (int f = bits - 2; f >= 0; f--) {
        FixedPointEncoding e = new FixedPointEncoding(bits, f);
        if (e.holds(bound, parties)) {
          return e;
        }
      }
      throw new IllegalArgumentException("a " + bits + "-bit ring cannot hold " + parties + " means");
    }

    @Override
    public int rounds() {
      return 1;
    }

    @Override
    public int length() {
      return spec.length();
    }

    @Override
    public FixedPointEncoding encoding() {
      return encoding;
    }

    @Override
    public int minContributors() {
      return minContributors;
    }

    @Override
    public double noiseMultiplier() {
      return sigma;
    }

    @Override
    public int colluders() {
      return parties - honest;
    }

    @Override
    public PrivacyCharge charge() {
      Common c = spec.common();
      return new PrivacyCharge("gaussian", new GaussianDpEvent(sigma), 1, c.delta() - 1e-300, c.delta(),
          "replace one record", "record");
    }

    @Override
    public PrivacyLedger ledger(int contributors, String summation, boolean revealsInputs) {
      Common c = spec.common();
      double eps = charge().epsilon(1);
      return new PrivacyLedger("private-mean (test only)", "replace one record", "record",
          new GaussianDpEvent(sigma).describe(), "gaussian", eps, c.delta(), Map.of("noise_multiplier", sigma),
          List.of(new Guarantee(Audience.releasedModel(summation, revealsInputs, colluders()), "replace one record",
              "record", eps, c.delta())));
    }

    @Override
    public Map<String, Object> summary() {
      return Map.of("noise_multiplier", sigma);
    }

    @Override
    public Contributor contributor(int party, Local local, NoiseFactory noise, long seed) {
      DesignMatrix rows = ((Sums) local).rows();
      return (round, state) -> {
        Checks.require(round == 0 && state.length == 0, "private-mean has one round with no state");
        return () -> {
          int cols = rows.cols();
          double[] sum = new double[length()];
          for (int i = 0; i < rows.rows(); i++) {
            rows.axpy(i, 1.0 / total, sum, rows.label(i) * cols);
          }
          noise.gaussian(party).addTo(sum, partyStd);
          long[] e = new long[sum.length];
          for (int j = 0; j < sum.length; j++) {
            e[j] = encoding.encode(Math.max(-bound, Math.min(bound, sum[j])));
          }
          return e;
        };
      };
    }

    @Override
    public ServerRole server() {
      int classes = spec.common().classes();
      int cols = spec.common().features() + 1;
      return new ServerRole() {
        private double[] means;

        @Override
        public byte[] state(int round) {
          return new byte[0];
        }

        @Override
        public void step(int round, double[] sum, int[] contributors) {
          means = sum.clone();
        }

        @Override
        public LinearModel model() {
          return new LinearModel(classes, cols, means);
        }
      };
    }
  }
}
