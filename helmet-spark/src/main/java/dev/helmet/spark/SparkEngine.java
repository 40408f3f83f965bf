package dev.helmet.spark;

import dev.helmet.core.data.DatasetImage;
import dev.helmet.core.util.Checks;
import dev.helmet.core.util.Progress;
import dev.helmet.protocols.algorithm.PublicPlan;
import dev.helmet.protocols.algorithm.ServerRole;
import dev.helmet.protocols.simulation.Engine;
import dev.helmet.protocols.simulation.Simulation;
import dev.helmet.secagg.summation.SummationSpec;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.stream.IntStream;
import org.apache.spark.api.java.JavaRDD;
import org.apache.spark.api.java.JavaSparkContext;
import org.apache.spark.broadcast.Broadcast;
import org.apache.spark.storage.StorageLevel;

/**
 * The simulation on Apache Spark. Parties are the elements of an RDD split into tasks; an executor
 * prepares (trains) the parties of its tasks on their own rows of the broadcast data set and keeps
 * them in memory; every round the server's public state is broadcast, each task returns the ring
 * sum of its parties' noised inputs, and a tree aggregation adds those partial sums, so the driver
 * holds one vector, never the parties' models. The driver runs the server role.
 *
 * <p>The summation is plain (as {@code --summation plain}): the server sees the sum, and an
 * executor sees the partial sum of the parties it holds, all of them simulated. Secure aggregation's
 * cost is measured by the local engine and {@code helmet bench secagg}.
 */
public final class SparkEngine implements Engine {
  private final SparkSettings settings;
  private final int tasks;

  /**
   * @param master the Spark master ({@code local[*]}, {@code spark://host:7077}, {@code yarn},
   *     {@code k8s://...}), or null to take the one the context (or spark-submit) has
   * @param tasks tasks the parties are split into, or 0 for four times Spark's default parallelism
   */
  public SparkEngine(String master, int tasks) {
    this(tasks, new SparkSettings(master, Map.of()));
  }

  SparkEngine(int tasks, SparkSettings settings) {
    Checks.require(tasks >= 0, "tasks must be 0 (automatic) or positive. Provided value: " + tasks);
    this.settings = settings;
    this.tasks = tasks;
  }

  @Override
  public Simulation.Result run(Job job, Progress progress) {
    String problem = problem(job.spec());
    if (problem != null) {
      throw new IllegalArgumentException("the Spark engine cannot run " + job.spec().algorithm().id() + ": " + problem);
    }
    JavaSparkContext sc = settings.context("helmet " + job.spec().algorithm().id());
    String id = UUID.randomUUID().toString();
    try {
      return run(sc, id, job, progress);
    } finally {
      Workers.forget(id);
    }
  }

  /**
   * One round in one pass (Helmet's blind averaging): the plan is made from the roster's sizes
   * (each party's number of rows, public), and every task prepares, contributes and lets go of its
   * parties one at a time; nothing is cached, so a task holds one party's model at a time.
   */
  private static Simulation.Result oneRound(JavaSparkContext sc, Job job, Broadcast<Recipe> recipe,
      Broadcast<DatasetImage> image, Broadcast<int[][]> rows, Broadcast<long[]> seeds, int slices, Progress progress) {
    int w = job.partition().count();
    int[] sizes = new int[w];
    for (int i = 0; i < w; i++) {
      sizes[i] = job.partition().size(i);
    }
    PublicPlan plan = job.spec().plan(sizes, job.minContributors(), job.testNoiseSeed() == null);
    ServerRole server = plan.server();
    Broadcast<int[]> sizesB = sc.broadcast(sizes);
    Broadcast<byte[]> state = sc.broadcast(server.state(0));
    long mask = plan.encoding().mask();
    int length = plan.length();
    int depth = Math.max(2, (int) Math.ceil(Math.log(slices) / Math.log(8)));
    List<Integer> ids = IntStream.range(0, w).boxed().toList();
    progress.start(job.spec().algorithm().id() + ": " + w + " parties prepare and contribute on Spark, " + slices
        + " tasks", slices);
    // Progress by finished task (each holds about w / slices parties).
    java.util.concurrent.atomic.AtomicInteger partiesStage = new java.util.concurrent.atomic.AtomicInteger(-1);
    org.apache.spark.scheduler.SparkListener tasks = new org.apache.spark.scheduler.SparkListener() {
      @Override
      public void onTaskEnd(org.apache.spark.scheduler.SparkListenerTaskEnd end) {
        // The job's first stage holds the parties; the tree aggregation's stages follow it.
        partiesStage.compareAndSet(-1, end.stageId());
        if (end.stageId() == partiesStage.get()) {
          progress.advance(1);
        }
      }
    };
    sc.sc().addSparkListener(tasks);
    long t0 = System.nanoTime();
    long[] sum;
    try {
      sum = sc.parallelize(ids, slices)
          .mapPartitions(it -> Workers.prepareAndContribute(it, recipe, image, rows, seeds, sizesB, state))
          .treeAggregate(new long[length], (a, b) -> Workers.add(a, b, mask), (a, b) -> Workers.add(a, b, mask), depth);
    } finally {
      sc.sc().removeSparkListener(tasks);
      progress.finish();
      for (Broadcast<?> b : List.of(recipe, image, rows, seeds, sizesB, state)) {
        b.destroy();
      }
    }
    double seconds = (System.nanoTime() - t0) / 1e9;
    server.step(0, plan.encoding().decode(sum), IntStream.range(0, w).toArray());
    long message = new SummationSpec(w, length, plan.encoding(), plan.minContributors()).packedBytes();
    return new Simulation.Result(server.model(), plan.ledger(w, "plain", true), plan, 1, w, null, message,
        message * w, seconds);
  }

  private Simulation.Result run(JavaSparkContext sc, String id, Job job, Progress progress) {
    int w = job.partition().count();
    int[][] rows = new int[w][];
    for (int i = 0; i < w; i++) {
      rows[i] = job.partition().indices(i);
    }
    Broadcast<Recipe> recipe = sc.broadcast(Recipe.of(id, job.spec(), job.minContributors(), job.testNoiseSeed()));
    Broadcast<DatasetImage> image = sc.broadcast(DatasetImage.of(job.data()));
    Broadcast<int[][]> rowsB = sc.broadcast(rows);
    Broadcast<long[]> seeds = sc.broadcast(job.partition().partySeeds(job.partySeed()));
    int slices = tasks > 0 ? tasks : Math.max(1, Math.min(w, 4 * sc.defaultParallelism()));
    List<Integer> ids = IntStream.range(0, w).boxed().toList();

    if (job.spec().rounds() == 1) {
      return oneRound(sc, job, recipe, image, rowsB, seeds, slices, progress);
    }
    progress.start("preparing " + w + " parties (" + job.spec().algorithm().id() + ") on Spark, " + slices
        + " tasks", 1);
    JavaRDD<Workers.Party> parties = sc.parallelize(ids, slices)
        .mapPartitions(it -> Workers.prepare(it, recipe, image, rowsB, seeds))
        .persist(StorageLevel.MEMORY_ONLY());
    int[] sizes = new int[w];
    for (int[] s : parties.map(p -> new int[] {p.index, p.local.size()}).collect()) {
      sizes[s[0]] = s[1];
    }
    progress.advance(1);
    progress.finish();
    // The parties hold their rows now; the driver keeps the data for a recomputed task's lineage.
    image.unpersist(false);

    PublicPlan plan = job.spec().plan(sizes, job.minContributors(), job.testNoiseSeed() == null);
    Broadcast<int[]> sizesB = sc.broadcast(sizes);
    ServerRole server = plan.server();
    int rounds = plan.rounds();
    long mask = plan.encoding().mask();
    int length = plan.length();
    int depth = Math.max(2, (int) Math.ceil(Math.log(slices) / Math.log(8)));
    int[] all = IntStream.range(0, w).toArray();
    long message = new SummationSpec(w, length, plan.encoding(), plan.minContributors()).packedBytes();
    double seconds = 0;
    progress.start(job.spec().algorithm().id() + ": " + rounds + " round(s) of " + w + " parties on Spark", rounds);
    try {
      for (int r = 0; r < rounds; r++) {
        int round = r;
        Broadcast<byte[]> state = sc.broadcast(server.state(r));
        long t0 = System.nanoTime();
        long[] sum = parties.mapPartitions(it -> Workers.contribute(it, recipe, sizesB, seeds, round, state))
            .treeAggregate(new long[length], (a, b) -> Workers.add(a, b, mask), (a, b) -> Workers.add(a, b, mask),
                depth);
        seconds += (System.nanoTime() - t0) / 1e9;
        state.destroy();
        server.step(r, plan.encoding().decode(sum), all);
        progress.advance(1);
      }
    } finally {
      progress.finish();
      parties.unpersist(false);
      for (Broadcast<?> b : List.of(recipe, image, rowsB, seeds, sizesB)) {
        b.destroy();
      }
    }
    return new Simulation.Result(server.model(), plan.ledger(w, "plain", true), plan, rounds, w, null,
        message * rounds, message * w * rounds, seconds);
  }
}
