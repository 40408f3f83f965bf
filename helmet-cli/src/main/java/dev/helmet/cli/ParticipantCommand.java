package dev.helmet.cli;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.helmet.core.data.BuiltinDataset;
import dev.helmet.core.data.DataReader;
import dev.helmet.core.data.Dataset;
import dev.helmet.core.eval.Evaluation;
import dev.helmet.core.partition.Partition;
import dev.helmet.core.partition.PartitionStrategy;
import dev.helmet.protocols.model.ModelFile;
import dev.helmet.transport.LocalLedger;
import dev.helmet.transport.Participant;
import dev.helmet.transport.ParticipantPolicy;
import dev.helmet.transport.Tls;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.SplittableRandom;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/** {@code helmet participant}: takes part in a networked session with local data. */
@Command(
    name = "participant",
    mixinStandardHelpOptions = true,
    sortOptions = false,
    description = {
      "Joins the session the coordinator runs: reads its published configuration, refuses it if it breaks "
          + "this participant's policy (--max-epsilon, --min-contributors, --learners, --honest-fraction), "
          + "trains locally on --data, adds its own noise and takes part in secure aggregation. The data and the "
          + "local model never leave this machine; only protocol messages do."
    })
final class ParticipantCommand implements Callable<Integer> {
  @Option(names = "--coordinator", paramLabel = "HOST:PORT", required = true, description = "The coordinator.")
  String coordinator;

  @Option(names = "--data", paramLabel = "FILE|NAME", required = true,
      description = "The local training data: CSV, TSV, LIBSVM, .npy (with --labels), .npz or IDX; or a built-in "
          + "data set (mnist, fashion-mnist) with --shard for demos.")
  String data;

  @Option(names = "--labels", paramLabel = "FILE", description = "Label file for a .npy or IDX --data file.")
  Path labels;

  @Option(names = "--format", paramLabel = "FMT", description = "csv, tsv, libsvm, npy, npz or idx. Default: detected.")
  String format;

  @Option(names = "--label-column", paramLabel = "COL", description = "CSV/TSV label column. Default: the last.")
  String labelColumn;

  @Option(names = "--header", paramLabel = "auto|yes|no", defaultValue = "auto",
      description = "Whether a CSV/TSV file has a header row. Default: ${DEFAULT-VALUE}.")
  String header;

  @Option(names = "--skip-rows", paramLabel = "N", defaultValue = "0",
      description = "CSV/TSV lines to skip before the data or header. Default: ${DEFAULT-VALUE}.")
  int skipRows;

  @Option(names = "--shard", paramLabel = "K/N",
      description = "With a built-in data set: use the K-th of N disjoint random shards of its training images "
          + "(60 each, the same shards on every machine), so a demo deployment needs no data files.")
  String shard;

  @Option(names = "--shard-size", paramLabel = "M", defaultValue = "60",
      description = "Images per --shard. Default: ${DEFAULT-VALUE}.")
  int shardSize;

  @Option(names = "--cache-dir", paramLabel = "DIR", description = "Where built-in data sets are kept.")
  Path cacheDir;

  @Option(names = "--tls-dir", paramLabel = "DIR",
      description = "Folder with ca.pem, NAME.pem and NAME-key.pem (as written by `helmet certs`).")
  Path tlsDir;

  @Option(names = "--name", paramLabel = "NAME", description = "This participant's certificate name in --tls-dir, "
      + "e.g. participant-3.")
  String name;

  @Option(names = "--cert", paramLabel = "FILE", description = "This participant's certificate (PEM).")
  Path cert;

  @Option(names = "--key", paramLabel = "FILE", description = "Its private key (PKCS#8 PEM).")
  Path key;

  @Option(names = "--ca", paramLabel = "FILE", description = "The CA certificate the coordinator must be signed by.")
  Path ca;

  @Option(names = "--plaintext", description = "No TLS (loopback tests only; the coordinator must allow it too).")
  boolean plaintext;

  @Option(names = "--max-epsilon", paramLabel = "E", defaultValue = "1",
      description = "Refuse sessions that spend more than eps = E on this data. Default: ${DEFAULT-VALUE}.")
  double maxEpsilon;

  @Option(names = "--min-contributors", paramLabel = "M", defaultValue = "10",
      description = "Refuse sessions that may release a sum of fewer than M parties. Default: ${DEFAULT-VALUE}.")
  int minContributors;

  @Option(names = "--algorithm", paramLabel = "NAME", split = ",",
      description = "The algorithms this participant takes part in (`helmet algorithms`); a session running another "
          + "is refused. Default: any.")
  List<String> algorithms;

  @Option(names = "--learners", paramLabel = "L", split = ",", defaultValue = "softmax,svm,logreg",
      description = "Learners this participant accepts (linreg: wd-dp's linear regression, for a session with numeric "
          + "targets; the label column is then read as numbers). Default: ${DEFAULT-VALUE}.")
  List<String> learners;

  @Option(names = {"--honest-fraction", "--min-honest-fraction"}, paramLabel = "T", defaultValue = "0.5",
      description = "The largest fraction of parties this participant trusts to add their noise: refuse sessions "
          + "that count on more honest parties (less noise) or whose secure aggregation withstands fewer than "
          + "1 - T colluding parties. --min-honest-fraction is the old name, kept as an alias with this meaning. "
          + "Default: ${DEFAULT-VALUE}.")
  double honestFraction;

  @Option(names = "--max-colluders", paramLabel = "K", defaultValue = "0",
      description = "The most parties you believe may collude with the coordinator, as a number you know (e.g. "
          + "half of your federation): refuse sessions whose noise or secure aggregation assumes fewer. 0 relies on "
          + "the session's published parties times 1 - --honest-fraction, a number the coordinator chose. "
          + "Default: ${DEFAULT-VALUE}.")
  int maxColluders;

  @Option(names = "--trusted-node", paramLabel = "SHA256",
      description = "A compute node you trust to stay honest, by the SHA-256 of its certificate (hex; repeatable). "
          + "A dca session must list at least one: its privacy needs one honest node, and the coordinator chose the "
          + "list. Nodes that share a certificate subject or key are refused as one holder whatever you trust. "
          + "Default: none (no dca session).")
  List<String> trustedNodes;

  @Option(names = "--max-delta", paramLabel = "D", defaultValue = "1e-5",
      description = "Refuse sessions whose delta is larger (a larger delta buys less noise). Default: ${DEFAULT-VALUE}.")
  double maxDelta;

  @Option(names = "--protections", paramLabel = "UNIT", split = ",", defaultValue = "record,group,user",
      description = "Protection units this participant accepts. Default: ${DEFAULT-VALUE}.")
  List<String> protections;

  @Option(names = "--noise-splits", paramLabel = "SPLIT", split = ",", defaultValue = "honest,own",
      description = "Noise splits this participant accepts (honest, own, all-trusted, sqrt-w-penalty): own (wd-dp) "
          + "means each party's own noise protects its records alone; all-trusted and sqrt-w-penalty assume more "
          + "honest parties than the honest fraction. Default: ${DEFAULT-VALUE}.")
  List<String> noiseSplits;

  @Option(names = "--allow-float-noise",
      description = "Join sessions whose noise is drawn in floating point (continuous Gaussian, or any algorithm whose noise is not exact). By "
          + "default only exact discrete Gaussian noise is accepted.")
  boolean allowFloatNoise;

  @Option(names = "--min-neighbours", paramLabel = "K", defaultValue = "1",
      description = "Refuse a summation that gives each party fewer SecAgg+ neighbours. Default: ${DEFAULT-VALUE}.")
  int minNeighbours;

  @Option(names = "--max-points", paramLabel = "N", defaultValue = "1000000",
      description = "Refuse sessions that let one party claim more training points (its weight in the average). "
          + "Default: ${DEFAULT-VALUE}.")
  long maxPoints;

  @Option(names = "--ledger", paramLabel = "FILE",
      description = "This participant's own privacy ledger for its data (JSON; created if missing): a session's "
          + "target is reserved when joined (refused if it would exceed --budget-epsilon / --budget-delta), and when "
          + "this participant stops its data is charged what its own accountant computes for the rounds it sent "
          + "(refunded only if it sent none), never a number from the coordinator. Default: a file for this data "
          + "in --ledger-dir (KEY.json, KEY a keyed digest of the records as loaded, in any order, so the same "
          + "records share one ledger whatever their file is called).")
  Path ledger;

  @Option(names = "--ledger-dir", paramLabel = "DIR",
      description = "Where the default ledgers are kept (state, not cache: deleting it forgets what the data "
          + "spent). Default: $HELMET_LEDGERS, else $XDG_DATA_HOME/helmet/ledgers, else "
          + "~/.local/share/helmet/ledgers.")
  Path ledgerDir;

  @Option(names = "--no-ledger",
      description = "Keep no ledger: nothing records what this data spent across runs, so a run joins no further "
          + "session (after a restarted coordinator) once it has sent any input.")
  boolean noLedger;

  @Option(names = "--budget-epsilon", paramLabel = "E",
      description = "The total eps the ledger lets this data spend, over every run and session. Default: "
          + "--max-epsilon (a bare command never spends more than one session's eps).")
  Double budgetEpsilon;

  @Option(names = "--budget-delta", paramLabel = "D", defaultValue = "1e-4",
      description = "The ledger's total delta. Default: ${DEFAULT-VALUE}.")
  double budgetDelta;

  @Option(names = {"-o", "--model-out"}, paramLabel = "FILE", description = "Write the released model here.")
  Path modelOut;

  @Option(names = "--wait", paramLabel = "SECONDS", defaultValue = "" + Participant.DEFAULT_WAIT_SECONDS,
      description = "How long to wait for the coordinator to answer, at start and after losing it. A coordinator "
          + "restarted within this time opens a new session, which this participant joins by itself if its policy "
          + "still accepts it (a lost session is charged the rounds this participant sent, as always). 0: do not "
          + "wait. Default: ${DEFAULT-VALUE}.")
  long waitSeconds;

  @Option(names = "--features", paramLabel = "raw|scatter|hog", split = ",",
      description = "Feature stages this participant takes part with (comma-separated). The session publishes "
          + "one, and the participant computes it itself on its own raw rows (images of the session's shape). "
          + "Default: any.")
  List<String> features;

  @Option(names = "--test", paramLabel = "FILE|builtin",
      description = "Held-out rows of this party (same format options as --data), or `builtin` for a built-in data "
          + "set's public test split: the released model is evaluated on them and accuracy (or MSE, RMSE, R^2) is "
          + "printed here. A statistic of this party's own data: shown to it only, in no released artifact, and "
          + "covered by no guarantee.")
  String test;

  @Option(names = "--json", description = "Print one JSON object when the session ends (stdout), and each phase as "
      + "one JSON object per line on stderr instead of a line of text.")
  boolean json;

  @Spec picocli.CommandLine.Model.CommandSpec spec;

  @Override
  public Integer call() throws Exception {
    // Its phases are printed as lines (or JSON lines) by ParticipantProgress; logs only warn.
    Logging.configure(true);
    if (waitSeconds < 0 || waitSeconds > Participant.MAX_WAIT_SECONDS) {
      throw new IllegalArgumentException("--wait must be 0 to " + Participant.MAX_WAIT_SECONDS + " seconds. Provided "
          + "value: " + waitSeconds);
    }
    checkPolicyOptions();
    Tls.Files tls = tlsFiles();
    if (tls != null) {
      // Before the data is loaded (a built-in set may be fetched): an expired or wrong-role
      // certificate would otherwise fail only at the handshake, as a bare TLS alert.
      Tls.checkParticipantFiles(tls);
    }
    Dataset local = loadData();
    ParticipantPolicy policy = new ParticipantPolicy(maxEpsilon, minContributors, lower(learners), honestFraction,
        maxDelta, lower(protections), lower(noiseSplits), !allowFloatNoise, minNeighbours, maxPoints,
        algorithms == null ? java.util.Set.of() : lower(algorithms))
        .withFeatures(features == null ? java.util.Set.of() : lower(features)).withMaxColluders(maxColluders)
        .withTrustedNodes(trustedNodes == null ? java.util.Set.of() : new java.util.HashSet<>(trustedNodes));
    if (features != null) {
      for (String f : lower(features)) {
        if (!dev.helmet.core.features.FeatureStage.IDS.contains(f)) {
          throw new IllegalArgumentException("--features must list some of " + dev.helmet.core.features.FeatureStage.IDS
              + ". Provided value: " + f);
        }
      }
    }
    if (trustedNodes != null) {
      for (String d : trustedNodes) {
        if (!d.replace(":", "").matches("[0-9a-fA-F]{64}")) {
          throw new IllegalArgumentException("--trusted-node takes the SHA-256 of a compute node's certificate, 64 hex "
              + "digits (openssl x509 -in NODE.pem -outform DER | sha256sum). Provided value: " + d);
        }
      }
    }
    if (noLedger && (ledger != null || ledgerDir != null)) {
      throw new IllegalArgumentException("--no-ledger cannot be combined with --ledger or --ledger-dir");
    }
    if (ledger != null && ledgerDir != null) {
      throw new IllegalArgumentException("--ledger names the file itself; --ledger-dir is for the default file");
    }
    Path ledgerFile = noLedger ? null : ledger != null ? ledger : defaultLedger(local);
    LocalLedger book = ledgerFile == null ? null
        : new LocalLedger(ledgerFile, budgetEpsilon != null ? budgetEpsilon : maxEpsilon, budgetDelta);
    if (book != null) {
      java.math.BigDecimal[] used = book.used();
      spec.commandLine().getErr().printf("ledger %s: eps %s of %s spent or reserved%n", ledgerFile,
          Trainer.fmtBound(used[0].doubleValue()), Trainer.fmt(book.budget()[0]));
    }
    Participant.Result r = Participant.run(new Participant.Settings(coordinator, tls, policy, local, null, 0, book)
        .waiting(waitSeconds), new ParticipantProgress(spec.commandLine().getErr(), json));
    if (r.completed() && modelOut != null) {
      Trainer.write(r.model(), modelOut);
    }
    PrintWriter out = spec.commandLine().getOut();
    Evaluation eval = r.completed() && test != null ? evaluate(r.model()) : null;
    if (json) {
      ObjectNode j = Json.object();
      j.put("status", r.completed() ? "completed" : "aborted");
      j.put("reason", r.reason());
      j.put("party", r.party());
      j.put("contributors", r.contributors().size());
      // This participant's own accounting of the rounds it sent, not the coordinator's number.
      Json.put(j, "epsilon", r.epsilon());
      j.put("epsilon_source", "this participant's own accountant, for the rounds it sent");
      // Every session of this run in which it sent input (a restarted coordinator's included).
      Json.put(j, "epsilon_run_total", r.runEpsilon());
      j.put("sessions_with_inputs", r.sessionsWithInputs());
      if (ledgerFile != null) {
        // The file the user named, or the default's directory: a default ledger's name is a keyed
        // digest of the records, and this summary is an artifact that may leave the machine (the
        // console line above names the file for the local operator).
        j.put("ledger", (ledger != null ? ledgerFile : ledgerFile.getParent()).toString());
      } else {
        j.putNull("ledger");
      }
      j.put("neighbours", r.neighbours());
      if (!r.against().isEmpty()) { // the released model's audience, from this party's own plan
        j.put("against", r.against());
      }
      j.put("bytes_sent", r.bytesSent());
      j.put("bytes_received", r.bytesReceived());
      j.put("wall_seconds", r.seconds());
      if (r.completed()) {
        j.set("privacy", ModelFile.ledgerToJson(r.model().privacy()));
      }
      if (eval != null) {
        // The keys of `train --json`; the values are of this party's own held-out rows.
        ObjectNode e = j.putObject("local_evaluation");
        e.put("test", test);
        if (eval.regression() != null) {
          e.putNull("test_accuracy");
          e.put("test_mse", eval.regression().mse());
          e.put("test_rmse", eval.regression().rmse());
          Json.put(e, "test_r2", eval.regression().r2());
        } else {
          e.put("test_accuracy", eval.accuracy());
          e.put("test_macro_f1", eval.macroF1());
        }
        e.put("note", "builtin".equals(test) ? "the built-in data set's public test split" : LOCAL_NOTE);
      }
      out.println(Json.print(j));
    } else if (r.completed()) {
      // The party number is the roster's 0-based index (as in the coordinator's log), not a count.
      out.printf("session completed with %d contributors; this participant is party %d (its index in the roster, "
          + "from 0); sent %d B, received %d B; %.1f s%s%n",
          r.contributors().size(), r.party(), r.bytesSent(), r.bytesReceived(), r.seconds(),
          modelOut == null ? "" : "; model written to " + modelOut);
      out.printf("  this party's data spent eps = %s (its own accounting; neighbours: %s), against %s%n",
          Trainer.fmtBound(r.epsilon()), r.neighbours(), r.model().privacy().guarantees().get(0).against());
      for (var g : r.model().privacy().guarantees()) {
        out.printf("  released model: %s%n", g.describe());
      }
      if (eval != null) {
        out.printf("  on %s: %s%n", "builtin".equals(test) ? data + "'s public test split" : test,
            eval.headline() + ("builtin".equals(test) ? "" : " (" + LOCAL_NOTE + ")"));
      }
    } else {
      out.printf("session aborted: %s%n", r.reason());
      out.printf("  this party's data spent eps = %s by its own accounting (%s)%n", Trainer.fmtBound(r.epsilon()),
          r.epsilon() == 0 ? "it sent nothing that depends on its data"
              : "neighbours: " + r.neighbours() + "; against " + r.against() + "; the rounds it sent are spent for "
                  + "good");
    }
    if (!json && r.sessionsWithInputs() > 1) {
      out.printf("  this run sent input in %d sessions (a restarted coordinator's): eps = %s in total by its own "
          + "accounting%n", r.sessionsWithInputs(), Trainer.fmtBound(r.runEpsilon()));
    }
    out.flush();
    return r.completed() ? Main.OK : Main.SESSION_FAILED;
  }

  /** DIR/KEY.json, KEY a keyed digest of the records as loaded ({@link dev.helmet.core.data.LocalDataKey}). */
  private Path defaultLedger(Dataset local) {
    Path dir = ledgerDir != null ? ledgerDir : defaultLedgerDir();
    return dir.resolve(dev.helmet.core.data.LocalDataKey.of(dir.resolve("ledgers.key"), local) + ".json");
  }

  /** $HELMET_LEDGERS, else $XDG_DATA_HOME/helmet/ledgers, else ~/.local/share/helmet/ledgers. */
  static Path defaultLedgerDir() {
    String env = System.getenv("HELMET_LEDGERS");
    if (env != null && !env.isBlank()) {
      return Path.of(env);
    }
    String xdg = System.getenv("XDG_DATA_HOME");
    Path data = xdg != null && !xdg.isBlank() ? Path.of(xdg) : Path.of(System.getProperty("user.home"), ".local", "share");
    return data.resolve("helmet").resolve("ledgers");
  }

  private static final String LOCAL_NOTE = "this party's own held-out data: a statistic of it, shown to this party "
      + "only and covered by no guarantee";

  /** The released model on this party's held-out rows (--test). */
  private Evaluation evaluate(dev.helmet.protocols.model.ReleasedModel m) {
    Dataset rows;
    BuiltinDataset builtin = BuiltinDataset.byId(data);
    if ("builtin".equals(test)) {
      if (builtin == null) {
        throw new IllegalArgumentException("--test builtin needs a built-in --data set; " + data + " is a file");
      }
      rows = builtin.load(cacheDir != null ? cacheDir : BuiltinDataset.defaultCache()).test();
    } else {
      DataOptions o = new DataOptions();
      o.header = header;
      o.format = format;
      o.labelColumn = labelColumn;
      o.skipRows = skipRows;
      rows = DataReader.read(Path.of(test), o.readOptions());
    }
    if (m.regression()) {
      rows = rows.withNumericTargets();
      return Evaluation.regression(rows.targets(), m.values(rows));
    }
    rows = rows.withLabelSet(m.labels());
    return Evaluation.of(rows.labels(), m.predict(rows), m.labels().size());
  }

  /**
   * The policy's numbers, refused when the options are read (naming the flag) rather than after
   * connecting, where a bound like --max-epsilon -1 used to surface as a refused session (exit 4).
   */
  private void checkPolicyOptions() {
    positive("--max-epsilon", maxEpsilon);
    if (budgetEpsilon != null) {
      positive("--budget-epsilon", budgetEpsilon);
    }
    fraction("--max-delta", maxDelta, "[0, 1)", maxDelta >= 0 && maxDelta < 1);
    fraction("--budget-delta", budgetDelta, "[0, 1]", budgetDelta >= 0 && budgetDelta <= 1);
    fraction("--honest-fraction", honestFraction, "(0, 1]", honestFraction > 0 && honestFraction <= 1);
    atLeast("--min-contributors", minContributors, 1);
    atLeast("--max-colluders", maxColluders, 0);
    atLeast("--min-neighbours", minNeighbours, 0);
    atLeast("--max-points", maxPoints, 1);
    atLeast("--shard-size", shardSize, 1);
    atLeast("--skip-rows", skipRows, 0);
  }

  private void positive(String flag, double value) {
    if (!(value > 0) || !Double.isFinite(value)) {
      throw new ParameterException(spec.commandLine(), flag + " must be > 0 and finite. Provided value: "
          + given(flag, value));
    }
  }

  private void fraction(String flag, double value, String range, boolean ok) {
    if (!ok) { // NaN fails every comparison, so it lands here too
      throw new ParameterException(spec.commandLine(), flag + " must be in " + range + ". Provided value: "
          + given(flag, value));
    }
  }

  private void atLeast(String flag, long value, long least) {
    if (value < least) {
      throw new ParameterException(spec.commandLine(), flag + " must be >= " + least + ". Provided value: " + value);
    }
  }

  /** The value as typed (-1, not -1.0), or as parsed when it came from a default. */
  private String given(String flag, double value) {
    var parsed = spec.commandLine().getParseResult();
    var matched = parsed == null ? null : parsed.matchedOption(flag);
    return matched != null && !matched.stringValues().isEmpty() ? matched.stringValues().get(0) : String.valueOf(value);
  }

  private Tls.Files tlsFiles() {
    if (plaintext) {
      if (tlsDir != null || cert != null) {
        throw new IllegalArgumentException("--plaintext cannot be combined with TLS files");
      }
      if (!Participant.isLoopback(coordinator)) {
        throw new ParameterException(spec.commandLine(), "--plaintext is for loopback tests only; " + coordinator
            + " is not a loopback address: give --tls-dir DIR --name NAME (without TLS nothing checks the "
            + "coordinator's or the other parties' identities)");
      }
      return null;
    }
    if (tlsDir != null) {
      if (name == null) {
        throw new IllegalArgumentException("--tls-dir needs --name (e.g. participant-3)");
      }
      return Tls.Files.in(tlsDir, name);
    }
    if (cert == null || key == null || ca == null) {
      throw new IllegalArgumentException("give --tls-dir DIR --name NAME, or --cert, --key and --ca (or --plaintext "
          + "for a loopback test)");
    }
    return new Tls.Files(cert, key, ca);
  }

  private Dataset loadData() {
    BuiltinDataset builtin = BuiltinDataset.byId(data);
    if (builtin != null) {
      Dataset train = builtin.load(cacheDir != null ? cacheDir : BuiltinDataset.defaultCache()).train();
      if (shard == null) {
        throw new IllegalArgumentException("a built-in data set needs --shard K/N (a participant holds a part of it)");
      }
      String[] kn = shard.split("/");
      int k;
      int n;
      try {
        k = Integer.parseInt(kn[0].trim());
        n = Integer.parseInt(kn[1].trim());
      } catch (RuntimeException e) {
        throw new IllegalArgumentException("--shard must be K/N, e.g. 3/50. Provided value: " + shard);
      }
      if (kn.length != 2 || n < 1 || k < 1 || k > n) {
        throw new IllegalArgumentException("--shard must be K/N with 1 <= K <= N. Provided value: " + shard);
      }
      Partition p = new PartitionStrategy.Iid(n, shardSize).split(train, new SplittableRandom(1));
      return train.subset(p.indices(k - 1), data + " shard " + k + "/" + n);
    }
    if (shard != null) {
      throw new IllegalArgumentException("--shard applies to a built-in data set only");
    }
    DataOptions o = new DataOptions();
    o.header = header;
    o.format = format;
    o.labelColumn = labelColumn;
    o.skipRows = skipRows;
    return DataReader.read(Path.of(data), o.readOptions().withLabels(labels));
  }

  private static java.util.Set<String> lower(List<String> names) {
    return new HashSet<>(names.stream().map(s -> s.trim().toLowerCase(Locale.ROOT)).toList());
  }
}
