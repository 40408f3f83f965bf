package dev.helmet.protocols.crosssilo;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.helmet.core.learn.LearnerConfig;
import dev.helmet.core.learn.Model;
import dev.helmet.core.preprocess.DesignMatrix;
import dev.helmet.core.preprocess.Preprocessing;
import dev.helmet.privacy.ledger.PrivacyCharge;
import dev.helmet.privacy.ledger.PrivacyLedger;
import dev.helmet.privacy.mechanism.GaussianProjection;
import dev.helmet.privacy.noise.GaussianNoise;
import dev.helmet.privacy.noise.NoiseFactory;
import dev.helmet.privacy.noise.RandomBits;
import dev.helmet.protocols.algorithm.Algorithm;
import dev.helmet.protocols.algorithm.AlgorithmSpec;
import dev.helmet.protocols.algorithm.Common;
import dev.helmet.protocols.algorithm.Contributor;
import dev.helmet.protocols.algorithm.Local;
import dev.helmet.protocols.algorithm.ModelState;
import dev.helmet.protocols.algorithm.PublicPlan;
import dev.helmet.protocols.algorithm.ServerRole;
import dev.helmet.protocols.algorithm.Terms;
import dev.helmet.protocols.dpsgd.DpSgdModel;
import dev.helmet.secagg.ring.FixedPointEncoding;
import dev.helmet.secagg.summation.SecureSummation;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.WeakHashMap;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Test-only wrappers of a cross-silo spec for its audits (never main-code flags).
 *
 * <ul>
 *   <li>{@link #everyRound}: today's release, every run with a plan of its own and the release
 *       scored as every round's model. Both are needed by the SWOR audit: {@code ReleaseAudit}
 *       derives one plan per data set and runs every trial on it, but a SWOR plan holds its batch
 *       sampler and caches the batch of the step last asked for, so with one round every trial
 *       would sum the same batch, and with trials on two threads one trial's parties could take
 *       their records from two different batches. And the fixed-size-batch pair shows in each
 *       step; the final model alone is their sum, which no test can tell from the Poisson pair's.
 *       The ledger covers every round's model, so the transcript is within what it claims.
 *   <li>{@link #projectingTheSum}: the release as at a5230d4, before each record's projection was
 *       clipped: a party sends P_t^T of its sum of clipped gradients, with the same noise share.
 * </ul>
 */
public final class CrossSiloAuditVariants {
  private CrossSiloAuditVariants() {}

  /** Today's release, a fresh plan per run (as every real run derives its own) and every round's model released. */
  public static AlgorithmSpec everyRound(AlgorithmSpec spec) {
    CrossSiloSpec s = (CrossSiloSpec) spec;
    return new Wrapped(s) {
      @Override
      public PublicPlan plan(int[] sizes, int minContributors, boolean secureNoise) {
        return new PerRunPlan(s, sizes, minContributors, secureNoise);
      }
    };
  }

  /**
   * The a5230d4 release, whose projected input was P_t^T of the sum of clipped gradients, with no
   * clip after projecting; {@code clamped} counts the input coordinates the ring's bound cut
   * (the test requires none, so the variant is that release and not a clamped one).
   */
  public static AlgorithmSpec projectingTheSum(AlgorithmSpec spec, AtomicLong clamped) {
    CrossSiloSpec s = (CrossSiloSpec) spec;
    return new Wrapped(s) {
      @Override
      public PublicPlan plan(int[] sizes, int minContributors, boolean secureNoise) {
        PublicPlan base = s.plan(sizes, minContributors, secureNoise);
        Common c = s.common();
        CrossSiloPlan plan = new CrossSiloPlan(s.config(), s.model(), sizes, minContributors, c.epsilon(), c.delta(),
            c.ringBits(), c.honestFraction());
        return new Delegating(base) {
          @Override
          public Contributor contributor(int party, Local local, NoiseFactory noise, long seed) {
            DpSgdModel.Records rows = (DpSgdModel.Records) local;
            RandomBits sampling = noise.isSecure() ? RandomBits.secure() : RandomBits.insecureForTesting(seed);
            GaussianNoise own = noise.gaussian(party);
            FixedPointEncoding enc = plan.encoding();
            double bound = plan.bound();
            return (round, state) -> {
              double[] theta = ModelState.unpack(state, plan.model().length(), CrossSiloAlgorithm.ID);
              return () -> {
                int[] sample = DpSgdModel.poissonSample(rows.size(), plan.config().samplingRate(), sampling);
                double[] g = new double[theta.length];
                plan.model().addClippedGradients(rows, theta, plan.config().clip(), sample, g);
                GaussianProjection p = plan.projection(round);
                double[] y = p.project(g);
                own.addTo(y, plan.partyStd());
                long[] e = new long[y.length];
                for (int j = 0; j < y.length; j++) {
                  if (Math.abs(y[j]) > bound) {
                    clamped.incrementAndGet();
                  }
                  e[j] = enc.encode(Math.max(-bound, Math.min(bound, y[j])));
                }
                return e;
              };
            };
          }
        };
      }
    };
  }

  /** A plan per run (keyed by the run's noise factory, one per run), every round's model recorded. */
  private static final class PerRunPlan extends Delegating {
    private final CrossSiloSpec spec;
    private final int[] sizes;
    private final int minContributors;
    private final boolean secureNoise;
    private final Map<NoiseFactory, PublicPlan> runs = Collections.synchronizedMap(new WeakHashMap<>());
    private volatile SecureSummation summation;

    PerRunPlan(CrossSiloSpec spec, int[] sizes, int minContributors, boolean secureNoise) {
      super(spec.plan(sizes, minContributors, secureNoise));
      this.spec = spec;
      this.sizes = sizes.clone();
      this.minContributors = minContributors;
      this.secureNoise = secureNoise;
    }

    @Override
    public void admit(SecureSummation s, int parties) {
      base.admit(s, parties);
      summation = s;
    }

    @Override
    public Contributor contributor(int party, Local local, NoiseFactory noise, long seed) {
      PublicPlan own = runs.computeIfAbsent(noise, k -> {
        PublicPlan p = spec.plan(sizes, minContributors, secureNoise);
        if (summation != null) {
          p.admit(summation, sizes.length); // marks it in process, so it runs its batch sampler itself
        }
        return p;
      });
      return own.contributor(party, local, noise, seed);
    }

    @Override
    public ServerRole server() {
      ServerRole inner = base.server();
      List<double[]> models = new ArrayList<>();
      models.add(inner.model().parameters().clone()); // the public start, then one model per step
      return new ServerRole() {
        @Override
        public byte[] state(int round) {
          return inner.state(round);
        }

        @Override
        public void step(int round, double[] sum, int[] contributors) {
          inner.step(round, sum, contributors);
          models.add(inner.model().parameters().clone());
        }

        @Override
        public Model model() {
          Model last = inner.model();
          int n = 0;
          for (double[] m : models) {
            n += m.length;
          }
          double[] all = new double[n];
          int at = 0;
          for (double[] m : models) {
            System.arraycopy(m, 0, all, at, m.length);
            at += m.length;
          }
          return new Model() {
            @Override
            public int numClasses() {
              return last.numClasses();
            }

            @Override
            public int inputColumns() {
              return last.inputColumns();
            }

            @Override
            public int[] predict(DesignMatrix data) {
              return last.predict(data);
            }

            @Override
            public double[] parameters() {
              return all;
            }

            @Override
            public String describe() {
              return "the start and every round's " + last.describe() + " (" + (models.size() - 1) + " rounds)";
            }
          };
        }
      };
    }
  }

  /** A plan that hands everything to {@code base}. */
  private static class Delegating implements PublicPlan {
    final PublicPlan base;

    Delegating(PublicPlan base) {
      this.base = base;
    }

    @Override
    public int rounds() {
      return base.rounds();
    }

    @Override
    public int length() {
      return base.length();
    }

    @Override
    public FixedPointEncoding encoding() {
      return base.encoding();
    }

    @Override
    public int minContributors() {
      return base.minContributors();
    }

    @Override
    public double noiseMultiplier() {
      return base.noiseMultiplier();
    }

    @Override
    public int colluders() {
      return base.colluders();
    }

    @Override
    public PrivacyCharge charge() {
      return base.charge();
    }

    @Override
    public PrivacyLedger ledger(int contributors, String summation, boolean revealsInputs) {
      return base.ledger(contributors, summation, revealsInputs);
    }

    @Override
    public Map<String, Object> summary() {
      return base.summary();
    }

    @Override
    public void admit(SecureSummation summation, int parties) {
      base.admit(summation, parties);
    }

    @Override
    public Contributor contributor(int party, Local local, NoiseFactory noise, long seed) {
      return base.contributor(party, local, noise, seed);
    }

    @Override
    public ServerRole server() {
      return base.server();
    }
  }

  /** A spec that hands everything but its plan to cross-silo's. */
  private abstract static class Wrapped implements AlgorithmSpec {
    final CrossSiloSpec inner;

    Wrapped(CrossSiloSpec inner) {
      this.inner = inner;
    }

    @Override
    public Algorithm algorithm() {
      return inner.algorithm();
    }

    @Override
    public Common common() {
      return inner.common();
    }

    @Override
    public ObjectNode toConfig() {
      return inner.toConfig();
    }

    @Override
    public Preprocessing preprocessing() {
      return inner.preprocessing();
    }

    @Override
    public dev.helmet.core.learn.LearnerKind modelKind() {
      return inner.modelKind();
    }

    @Override
    public Reference reference(dev.helmet.core.preprocess.DesignMatrix pooled, java.util.SplittableRandom rng) {
      return inner.reference(pooled, rng);
    }

    @Override
    public int rounds() {
      return inner.rounds();
    }

    @Override
    public int length() {
      return inner.length();
    }

    @Override
    public int modelParameters() {
      return inner.modelParameters();
    }

    @Override
    public String describe() {
      return inner.describe();
    }

    @Override
    public Terms terms() {
      return inner.terms();
    }

    @Override
    public dev.helmet.privacy.event.NeighbourRelation neighbours() {
      return inner.neighbours();
    }

    @Override
    public boolean planDependsOnSizes() {
      return inner.planDependsOnSizes();
    }

    @Override
    public Local prepare(DesignMatrix data, long seed) {
      return inner.prepare(data, seed);
    }
  }
}
