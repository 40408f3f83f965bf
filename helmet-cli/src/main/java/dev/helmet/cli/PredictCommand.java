package dev.helmet.cli;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.helmet.core.data.DataFormat;
import dev.helmet.core.data.DataReader;
import dev.helmet.core.data.Dataset;
import dev.helmet.core.data.ReadOptions;
import dev.helmet.core.eval.Evaluation;
import dev.helmet.protocols.model.ModelFile;
import dev.helmet.protocols.model.ReleasedModel;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/** {@code helmet predict}: apply a released model to new data, replaying its preprocessing. */
@Command(
    name = "predict",
    mixinStandardHelpOptions = true,
    sortOptions = false,
    description = "Predict a label for every row of a data file with a released model. Prints one label per "
        + "line (or writes them to --output); when the file has labels, also reports accuracy.")
final class PredictCommand implements Callable<Integer> {
  @Option(names = "--model", paramLabel = "FILE", required = true, description = "A model written by train or demo.")
  Path model;

  @Option(names = "--data", paramLabel = "FILE|NAME", required = true,
      description = "Data file (CSV, TSV, LIBSVM, .npy with --labels, .npz, IDX with --labels), or the name of a "
          + "built-in data set (`helmet data list`), whose public test split is used.")
  Path data;

  @Option(names = "--cache-dir", paramLabel = "DIR", description = "Where built-in data sets are kept.")
  Path cacheDir;

  @Option(names = "--labels", paramLabel = "FILE", description = "Label file for .npy or IDX data.")
  Path labels;

  @Option(names = "--format", paramLabel = "FMT", description = "File format; default from the name or content.")
  String format;

  @Option(names = "--label-column", paramLabel = "COL",
      description = "CSV/TSV label column (name or 0-based index), or 'none' for a file without labels. "
          + "Default: the last column.")
  String labelColumn;

  @Option(names = "--skip-rows", paramLabel = "N", defaultValue = "0",
      description = "CSV/TSV lines to skip before the data or header. Default: ${DEFAULT-VALUE}.")
  int skipRows;

  @Option(names = "--output", paramLabel = "FILE", description = "Write the predicted labels here, one per line.")
  Path output;

  @Option(names = "--json", description = "Print one JSON object with predictions and, if labelled, accuracy.")
  boolean json;

  @Spec picocli.CommandLine.Model.CommandSpec spec;

  /** A regression model: one number per row; with targets in the file, MSE, RMSE and R^2 too. */
  private int predictValues(ReleasedModel m, boolean unlabelled) {
    ReadOptions opts = new ReadOptions(format == null ? null : DataFormat.parse(format), labels, labelColumn, null,
        null, 0, null, skipRows);
    Dataset d = DataReader.read(data, unlabelled ? opts : opts.numericTargets());
    double[] pred = m.values(d);
    Evaluation eval = unlabelled ? null : Evaluation.regression(d.targets(), pred);
    PrintWriter out = spec.commandLine().getOut();
    StringBuilder sb = new StringBuilder();
    for (double p : pred) {
      sb.append(p).append('\n');
    }
    if (output != null) {
      try {
        Files.writeString(output, sb, StandardCharsets.UTF_8);
      } catch (IOException e) {
        throw new UncheckedIOException("cannot write " + output + ": " + e.getMessage(), e);
      }
    }
    if (json) {
      ObjectNode j = Json.object();
      j.put("model", model.toString());
      j.put("rows", pred.length);
      if (eval != null) {
        j.put("mse", eval.regression().mse());
        j.put("rmse", eval.regression().rmse());
        Json.put(j, "r2", eval.regression().r2());
      }
      if (output == null) {
        ArrayNode a = j.putArray("predictions");
        for (double p : pred) {
          a.add(p);
        }
      } else {
        j.put("output", output.toString());
      }
      out.println(Json.print(j));
    } else {
      if (output == null) {
        out.print(sb);
      }
      PrintWriter err = spec.commandLine().getErr();
      err.printf("predicted %d rows%s%n", pred.length, eval == null ? "" : "; " + eval.headline());
      err.flush();
    }
    out.flush();
    return 0;
  }

  /**
   * The rows to predict: a built-in data set's public test split when {@code --data} names one (and
   * no such file exists), else the file; a label the model does not know gets a hint when the file
   * may simply have no label column.
   */
  private Dataset read(ReadOptions opts, ReleasedModel m) {
    dev.helmet.core.data.BuiltinDataset builtin = Files.exists(data) ? null
        : dev.helmet.core.data.BuiltinDataset.byId(data.toString());
    if (builtin != null) {
      Dataset test = builtin.load(cacheDir != null ? cacheDir : dev.helmet.core.data.BuiltinDataset.defaultCache())
          .test();
      return "none".equals(labelColumn) ? test : test.withLabelSet(m.labels());
    }
    try {
      return DataReader.read(data, opts);
    } catch (dev.helmet.core.data.DataFormatException e) {
      if (labelColumn == null && e.getMessage().contains("unknown label")) {
        throw new dev.helmet.core.data.DataFormatException(e.getMessage() + " (if " + data.getFileName()
            + " has no label column, pass --label-column none)");
      }
      throw e;
    }
  }

  @Override
  public Integer call() {
    ReleasedModel m = ModelFile.read(model);
    boolean unlabelled = "none".equals(labelColumn);
    if (m.regression()) {
      return predictValues(m, unlabelled);
    }
    ReadOptions opts = new ReadOptions(format == null ? null : DataFormat.parse(format), labels, labelColumn, null,
        null, 0, unlabelled ? null : m.labels(), skipRows);
    Dataset d = read(opts, m);
    int[] pred = m.predict(d);
    PrintWriter out = spec.commandLine().getOut();
    Evaluation eval = unlabelled ? null : Evaluation.of(d.labels(), pred, m.labels().size());
    if (output != null) {
      StringBuilder sb = new StringBuilder();
      for (int p : pred) {
        sb.append(m.labels().name(p)).append('\n');
      }
      try {
        Files.writeString(output, sb, StandardCharsets.UTF_8);
      } catch (IOException e) {
        throw new UncheckedIOException("cannot write " + output + ": " + e.getMessage(), e);
      }
    }
    if (json) {
      ObjectNode j = Json.object();
      j.put("model", model.toString());
      j.put("rows", pred.length);
      if (eval != null) {
        j.put("accuracy", eval.accuracy());
        j.put("macro_f1", eval.macroF1());
      }
      if (output == null) {
        ArrayNode a = j.putArray("predictions");
        for (int p : pred) {
          a.add(m.labels().name(p));
        }
      } else {
        j.put("output", output.toString());
      }
      out.println(Json.print(j));
    } else {
      if (output == null) {
        for (int p : pred) {
          out.println(m.labels().name(p));
        }
      }
      PrintWriter err = spec.commandLine().getErr();
      err.printf("predicted %d rows%s%n", pred.length,
          eval == null ? "" : String.format("; accuracy %.2f %% (macro-F1 %.3f)", 100 * eval.accuracy(), eval.macroF1()));
      err.flush();
    }
    out.flush();
    return Main.OK;
  }
}
