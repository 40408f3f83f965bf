package dev.helmet.protocols.smm;

import dev.helmet.core.learn.Model;
import dev.helmet.core.nn.Adam;
import dev.helmet.core.nn.Examples;
import dev.helmet.core.nn.MlpModel;
import dev.helmet.core.nn.Optimiser;
import dev.helmet.core.nn.Sgd;
import dev.helmet.core.util.Checks;
import dev.helmet.core.util.Parallel;
import dev.helmet.privacy.ledger.PrivacyCharge;
import dev.helmet.privacy.ledger.PrivacyLedger;
import dev.helmet.privacy.mechanism.RandomizedHadamard;
import dev.helmet.privacy.noise.DiscreteNoise;
import dev.helmet.privacy.noise.NoiseFactory;
import dev.helmet.privacy.noise.RandomBits;
import dev.helmet.protocols.algorithm.Aggregate;
import dev.helmet.protocols.algorithm.Contributor;
import dev.helmet.protocols.algorithm.Local;
import dev.helmet.protocols.algorithm.PublicPlan;
import dev.helmet.protocols.algorithm.ServerRole;
import dev.helmet.secagg.ring.FixedPointEncoding;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** {@link SmmPlan} behind the algorithm interface: parties, server and the aggregate simulation. */
final class SmmRun implements PublicPlan {
  /** A party's rows as the MLP reads them. */
  record Rows(Examples examples) implements Local {
    @Override
    public int size() {
      return examples.size();
    }
  }

  private final SmmPlan plan;

  SmmRun(SmmPlan plan) {
    this.plan = plan;
  }

  @Override
  public int rounds() {
    return plan.config().rounds();
  }

  @Override
  public int length() {
    return plan.length();
  }

  @Override
  public FixedPointEncoding encoding() {
    return plan.encoding();
  }

  @Override
  public int minContributors() {
    return plan.minContributors();
  }

  /** The honest parties' total noise std over gamma C (the ring units of one record's clip norm). */
  @Override
  public double noiseMultiplier() {
    SmmConfig c = plan.config();
    return Math.sqrt(plan.mechanism().noiseVariance()) / (c.gamma() * c.clip());
  }

  @Override
  public int colluders() {
    return plan.colluders();
  }

  @Override
  public PrivacyCharge charge() {
    return plan.charge();
  }

  @Override
  public PrivacyLedger ledger(int contributors, String summation, boolean revealsInputs) {
    return plan.ledger(summation, revealsInputs);
  }

  @Override
  public Map<String, Object> summary() {
    SmmConfig c = plan.config();
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("accountant", plan.accountantName());
    m.put("mechanism", plan.mechanism().id());
    m.putAll(plan.mechanism().details());
    m.put("gamma", c.gamma());
    m.put("ring_bits", c.bits());
    m.put("sampling_rate", c.samplingRate());
    m.put("clip", c.clip());
    m.put("learning_rate", c.learningRate());
    m.put("mlp", plan.net().toString());
    m.put("noise_sampler", plan.mechanism().noiseSampler() + " and exact stochastic rounding from SecureRandom");
    m.put("noise_wrap_probability", plan.noiseWrapProbability());
    return m;
  }

  private static RandomBits secret(NoiseFactory noise, long seed) {
    // The sample and the rounding must stay secret: the party's own SecureRandom, seeded only
    // alongside the insecure test noise.
    return noise.isSecure() ? RandomBits.secure() : RandomBits.insecureForTesting(seed);
  }

  @Override
  public Contributor contributor(int party, Local local, NoiseFactory noise, long seed) {
    if (!(local instanceof Rows rows)) {
      throw new IllegalArgumentException("party " + party + "'s local state is not smm's");
    }
    RandomBits bits = secret(noise, seed);
    DiscreteNoise own = noise.discrete(party);
    return (round, state) -> {
      double[] params = unpack(state, plan.net().parameterCount());
      RandomizedHadamard rotation = plan.rotation(round);
      return () -> plan.input(rows.examples(), params, rotation, bits, own);
    };
  }

  @Override
  public ServerRole server() {
    double[] params = plan.net().initialise(plan.config().startSeed());
    SmmConfig c = plan.config();
    Optimiser.State optimiser = (c.adam() ? new Adam(c.learningRate()) : new Sgd(c.learningRate()))
        .start(params.length);
    double normaliser = plan.normaliser();
    return new ServerRole() {
      @Override
      public byte[] state(int round) {
        return pack(params);
      }

      @Override
      public void step(int round, double[] sum, int[] contributors) {
        Checks.require(sum.length == plan.length(), "a sum of " + sum.length + " values; the plan's inputs have "
            + plan.length());
        // Alg. 6: the signed sum (decoded by the ring) over gamma, rotated back: the noisy sum of
        // the clipped gradients; over |B| it is the step's gradient estimate.
        double[] y = new double[sum.length];
        for (int j = 0; j < y.length; j++) {
          y[j] = sum[j] / c.gamma();
        }
        double[] g = plan.rotation(round).inverse(y);
        for (int j = 0; j < g.length; j++) {
          g[j] /= normaliser;
        }
        optimiser.update(params, g);
      }

      @Override
      public Model model() {
        return new MlpModel(plan.net(), params.clone());
      }
    };
  }

  /**
   * For experiments: every party's sampled, rounded records summed at once and the parties' noise
   * drawn as one Skellam of their summed parameter (Skellam is closed under sums), reduced modulo
   * 2^b as secure aggregation would output it; no messages.
   */
  @Override
  public Aggregate aggregate(List<? extends Local> locals, long[] seeds, NoiseFactory noise) {
    int w = locals.size();
    Examples[] rows = new Examples[w];
    RandomBits[] bits = new RandomBits[w];
    for (int i = 0; i < w; i++) {
      rows[i] = ((Rows) locals.get(i)).examples();
      bits[i] = secret(noise, seeds[i]);
    }
    DiscreteNoise centre = noise.discrete(w);
    return new Aggregate() {
      @Override
      public String description() {
        return "simulated (summed in the clear modulo 2^" + plan.config().bits() + ", the parties' noise shares "
            + "drawn together; the same sum secure aggregation outputs)";
      }

      @Override
      public double[] sum(int round, byte[] state, int threads) {
        double[] params = unpack(state, plan.net().parameterCount());
        RandomizedHadamard rotation = plan.rotation(round);
        int d = plan.length();
        int chunks = Math.min(w, Math.max(1, threads));
        long[][] partial = new long[chunks][d];
        Parallel.forEach(threads, chunks, k -> {
          for (int i = k; i < w; i += chunks) {
            plan.addRecords(rows[i], params, rotation, bits[i], partial[k]);
          }
        });
        long[] total = new long[d];
        plan.mechanism().addPartiesNoise(total, centre, w);
        for (long[] p : partial) {
          for (int j = 0; j < d; j++) {
            total[j] += p[j];
          }
        }
        FixedPointEncoding e = plan.encoding();
        double[] out = new double[d];
        for (int j = 0; j < d; j++) {
          out[j] = e.decode(total[j] & e.mask());
        }
        return out;
      }
    };
  }

  /** A round's state ({@link dev.helmet.protocols.algorithm.ModelState}). */
  static byte[] pack(double[] params) {
    return dev.helmet.protocols.algorithm.ModelState.pack(params);
  }

  /** Reads a round's state, refusing another version, a wrong length or a non-finite value. */
  static double[] unpack(byte[] state, int length) {
    return dev.helmet.protocols.algorithm.ModelState.unpack(state, length, "smm");
  }
}
