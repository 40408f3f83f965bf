package dev.helmet.protocols.simulation;

import dev.helmet.core.data.Dataset;
import dev.helmet.core.learn.Model;
import dev.helmet.core.partition.Partition;
import dev.helmet.core.preprocess.DesignMatrix;
import dev.helmet.core.util.Checks;
import dev.helmet.core.util.Parallel;
import dev.helmet.core.util.Progress;
import dev.helmet.privacy.ledger.PrivacyLedger;
import dev.helmet.privacy.noise.NoiseFactory;
import dev.helmet.protocols.algorithm.Aggregate;
import dev.helmet.protocols.algorithm.AlgorithmSpec;
import dev.helmet.protocols.algorithm.Contributor;
import dev.helmet.protocols.algorithm.Local;
import dev.helmet.protocols.algorithm.PublicPlan;
import dev.helmet.protocols.algorithm.ServerRole;
import dev.helmet.secagg.summation.SecureSummation;
import dev.helmet.secagg.summation.SummationOutcome;
import dev.helmet.secagg.summation.SummationSpec;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * The in-process runner: every party of a partition and the server in one process, any algorithm,
 * any summation. Parties prepare (train) in parallel; each round the server's public state goes to
 * every party, their inputs (each with its own noise) go through one summation, and the server
 * steps on the decoded sum. It knows no algorithm: everything specific comes through
 * {@link AlgorithmSpec} and {@link PublicPlan}.
 */
public final class Simulation {
  private Simulation() {}

  /**
   * Every party's private state after its preparation.
   *
   * @param seeds party i's seed: the i-th value of the stream of the seed given to {@link #prepare}
   */
  public record Prepared(AlgorithmSpec spec, List<Local> locals, int[] sizes, long[] seeds, String partition) {
    public Prepared {
      locals = List.copyOf(locals);
    }

    public int parties() {
      return locals.size();
    }
  }

  /**
   * Prepares every party on its own rows of {@code data}, on {@code threads} threads. Party i's
   * seed is the i-th value of {@code seed}'s stream, so nothing depends on the thread count.
   */
  public static Prepared prepare(AlgorithmSpec spec, Dataset data, Partition partition, long seed, int threads,
      Progress progress) {
    Checks.positive("threads", threads);
    Checks.require(data.dimension() == spec.common().features(), "the data has " + data.dimension()
        + " features; the configuration expects " + spec.common().features());
    int w = partition.count();
    long[] seeds = partition.partySeeds(seed);
    Local[] locals = new Local[w];
    progress.start("preparing " + w + " parties (" + spec.algorithm().id() + ")", w);
    Parallel.forEach(threads, w, i -> {
      DesignMatrix rows = spec.preprocessing().design(data, partition.indices(i));
      locals[i] = spec.prepare(rows, seeds[i]);
      progress.advance(1);
    });
    progress.finish();
    int[] sizes = new int[w];
    for (int i = 0; i < w; i++) {
      sizes[i] = locals[i].size();
    }
    return new Prepared(spec, Arrays.asList(locals), sizes, seeds, partition.description());
  }

  /**
   * What a run released and cost.
   *
   * @param last the last round's summation outcome (null in an aggregate simulation)
   * @param bytesPerParty bytes each party sent and received, over all rounds
   */
  public record Result(
      Model model,
      PrivacyLedger ledger,
      PublicPlan plan,
      int rounds,
      int contributors,
      SummationOutcome last,
      long bytesPerParty,
      long serverBytes,
      double summationSeconds) {}

  /**
   * Runs every round: the public state, every party's input through {@code summation} (or, with
   * {@code summation} null, the algorithm's aggregate simulation), the server's step.
   *
   * @param minContributors the fewest contributors a round may sum (the noise is sized for them)
   * @param noise the parties' noise: {@link NoiseFactory#secure()} outside tests
   * @throws IllegalStateException if a summation aborts (nothing further is released)
   * @throws UnsupportedOperationException if {@code summation} is null and the algorithm has no
   *     aggregate simulation
   */
  public static Result run(Prepared p, int minContributors, SecureSummation summation, NoiseFactory noise,
      int threads, Progress progress) {
    return run(p, p.spec().plan(p.sizes(), minContributors, noise.isSecure()), summation, noise, threads, progress);
  }

  /**
   * Runs every round with a plan already derived from {@code p}'s sizes ({@link AlgorithmSpec#plan}):
   * for callers that run one preparation many times (an audit's trials), so the calibration is done once.
   */
  public static Result run(Prepared p, PublicPlan plan, SecureSummation summation, NoiseFactory noise,
      int threads, Progress progress) {
    int w = p.parties();
    if (summation != null) {
      plan.admit(summation, p.sizes().length);
    }
    Aggregate aggregate = null;
    Contributor[] parties = new Contributor[w];
    if (summation == null) {
      aggregate = plan.aggregate(p.locals(), p.seeds(), noise);
      if (aggregate == null) {
        throw new UnsupportedOperationException(p.spec().algorithm().id() + " has no aggregate simulation; choose a "
            + "summation");
      }
    } else {
      for (int i = 0; i < w; i++) {
        parties[i] = plan.contributor(i, p.locals().get(i), noise, p.seeds()[i]);
      }
    }
    ServerRole server = plan.server();
    int rounds = plan.rounds();
    boolean perRound = rounds > 1;
    if (perRound) {
      progress.start(p.spec().algorithm().id() + ": " + rounds + " rounds of " + w + " parties "
          + (summation == null ? "(aggregate simulation)" : "through " + summation.name()), rounds);
    }
    int[] all = new int[w];
    Arrays.setAll(all, i -> i);
    int fewest = w;
    SummationOutcome last = null;
    long bytesPerParty = 0;
    long serverBytes = 0;
    double seconds = 0;
    for (int r = 0; r < rounds; r++) {
      byte[] state = server.state(r);
      if (aggregate != null) {
        server.step(r, aggregate.sum(r, state, threads), all);
      } else {
        int round = r;
        List<long[]> inputs = new ArrayList<>(Arrays.asList(new long[w][]));
        Parallel.forEach(threads, w, i -> inputs.set(i, parties[i].open(round, state).get()));
        SummationOutcome out = summation.run(new SummationSpec(w, plan.length(), plan.encoding(),
            plan.minContributors()), i -> {
              long[] in = inputs.get(i);
              inputs.set(i, null); // each party's vector is needed once; let it go
              return in;
            }, perRound ? Progress.NONE : progress);
        if (out.status() != SummationOutcome.Status.COMPLETED) {
          throw new IllegalStateException((perRound ? "round " + (r + 1) + " of " + rounds + ": " : "")
              + "the summation aborted (" + out.abortReason() + "; " + out.dropped().size() + " of " + w
              + " parties dropped, " + plan.minContributors() + " contributors needed); nothing"
              + (r > 0 ? " further" : "") + " was released");
        }
        int[] contributors = out.contributors().stream().mapToInt(Integer::intValue).toArray();
        fewest = Math.min(fewest, contributors.length);
        server.step(r, plan.encoding().decode(out.sum()), contributors);
        last = out;
        bytesPerParty += out.bytesPerParty();
        serverBytes += out.serverBytes();
        seconds += out.seconds();
      }
      if (perRound) {
        progress.advance(1);
      }
    }
    if (perRound) {
      progress.finish();
    }
    PrivacyLedger ledger = aggregate != null ? plan.ledger(w, aggregate.description(), false)
        : plan.ledger(fewest, summation.name(), summation.revealsInputs());
    return new Result(server.model(), ledger, plan, rounds, fewest, last, bytesPerParty, serverBytes, seconds);
  }
}
