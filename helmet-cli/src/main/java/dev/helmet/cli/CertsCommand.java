package dev.helmet.cli;

import dev.helmet.transport.Certificates;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/** {@code helmet certs}: a small CA and certificates for a demo or test deployment. */
@Command(
    name = "certs",
    mixinStandardHelpOptions = true,
    sortOptions = false,
    description = {
      "Creates a certificate authority (ca.pem, ca-key.pem), a server certificate for the coordinator "
          + "(coordinator.pem, coordinator-key.pem) and one client certificate per participant "
          + "(participant-1.pem, participant-1-key.pem, ...), ECDSA P-256, for a demo or test deployment. "
          + "Give each machine ca.pem and its own pair; keep ca-key.pem off the participants' machines."
    })
final class CertsCommand implements Callable<Integer> {
  @Option(names = "--out", paramLabel = "DIR", required = true, description = "Folder to write the files to.")
  Path out;

  @Option(names = "--participants", paramLabel = "N", defaultValue = "2",
      description = "Participant certificates to create. Default: ${DEFAULT-VALUE}.")
  int participants;

  @Option(names = "--host", paramLabel = "NAME|ADDRESS", split = ",", defaultValue = "localhost,127.0.0.1",
      description = "The coordinator's host names and addresses, as participants will dial them "
          + "(comma-separated or repeated). Default: ${DEFAULT-VALUE}.")
  List<String> hosts;

  @Option(names = "--days", paramLabel = "D", defaultValue = "30",
      description = "Validity in days. Default: ${DEFAULT-VALUE}.")
  int days;

  @Spec picocli.CommandLine.Model.CommandSpec spec;

  @Override
  public Integer call() throws IOException {
    if (participants < 0 || participants > 100_000) {
      throw new IllegalArgumentException("participants must be in [0, 100000]. Provided value: " + participants);
    }
    if (days < 1) {
      throw new IllegalArgumentException("days must be positive. Provided value: " + days);
    }
    Certificates.Written w = Certificates.create(out, hosts, participants, Duration.ofDays(days));
    PrintWriter o = spec.commandLine().getOut();
    o.printf("wrote %s (CA), %s (coordinator, hosts %s) and %d participant certificates to %s%n",
        w.ca().getFileName(), w.coordinator().getFileName(), String.join(", ", hosts), w.participants().size(), out);
    o.flush();
    return Main.OK;
  }
}
