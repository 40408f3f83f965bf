package dev.helmet.cli;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.helmet.protocols.algorithm.Algorithm;
import dev.helmet.protocols.algorithm.Algorithms;
import dev.helmet.protocols.algorithm.Parameter;
import java.io.PrintWriter;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/** {@code helmet algorithms}: every registered algorithm, with its parameters and their defaults. */
@Command(
    name = "algorithms",
    mixinStandardHelpOptions = true,
    description = {
      "Lists the learning algorithms (--algorithm NAME of train, demo, and `algorithm:` of a session file) with "
          + "a one-line description and their parameters: the command-line option, the session-file key and the "
          + "default (--json: keys name, summary, default, default_parties, old_keys (old section name: current), parameters: option, key, type, default, "
          + "description, old_options)."
    })
final class AlgorithmsCommand implements Callable<Integer> {
  @Option(names = "--json", description = "Print one JSON object instead.")
  boolean json;

  @Spec picocli.CommandLine.Model.CommandSpec spec;

  @Override
  public Integer call() {
    PrintWriter out = spec.commandLine().getOut();
    if (json) {
      ObjectNode root = Json.object();
      ArrayNode all = root.putArray("algorithms");
      for (Algorithm a : Algorithms.all()) {
        ObjectNode o = all.addObject();
        o.put("name", a.id());
        o.put("summary", a.summary());
        o.put("default", a.id().equals(Algorithms.DEFAULT));
        o.put("default_parties", a.defaultParties());
        ObjectNode old = o.putObject("old_keys");
        a.oldKeys().forEach(old::put);
        ArrayNode ps = o.putArray("parameters");
        for (Parameter p : a.parameters()) {
          ObjectNode po = ps.addObject().put("option", p.flag()).put("key", p.path())
              .put("type", p.type().name().toLowerCase()).put("default", p.defaultValue())
              .put("description", p.description());
          p.aliases().forEach(po.putArray("old_options")::add);
        }
      }
      out.println(Json.print(root));
    } else {
      for (Algorithm a : Algorithms.all()) {
        out.printf("%s%s%n  %s%n", a.id(), a.id().equals(Algorithms.DEFAULT) ? " (default)" : "", a.summary());
        a.oldKeys().forEach((old, now) -> out.printf("    session-file section %s: was %s (still read)%n", now, old));
        out.printf("    %-18s %-22s default %d: the parties train simulates%n", "--parties", "", a.defaultParties());
        for (Parameter p : a.parameters()) {
          out.printf("    %-18s %-22s default %s: %s%s%n", p.flag(), p.path(), p.defaultValue(), p.description(),
              p.aliases().isEmpty() ? "" : " (old name " + String.join(", ", p.aliases()) + ", kept as an alias)");
        }
        out.println();
      }
    }
    out.flush();
    return Main.OK;
  }
}
