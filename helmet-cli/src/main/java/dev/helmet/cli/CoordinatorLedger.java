package dev.helmet.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.helmet.transport.Coordinator;
import dev.helmet.transport.SessionFile;
import dev.helmet.transport.store.DatabaseInUseException;
import dev.helmet.transport.store.LedgerReport;
import dev.helmet.transport.store.Store;
import java.io.IOException;
import java.io.PrintWriter;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Locale;

/**
 * {@code helmet ledger show|settle --config SESSION.yaml}: the coordinator's side of the privacy
 * ledger. It reads the database the session file names; while a coordinator holds an H2 database
 * (one process per file), it asks that coordinator instead, through the status page whose address
 * and token the coordinator left next to the database (owner-only file).
 */
final class CoordinatorLedger {
  private CoordinatorLedger() {}

  /** The report, read from the database or from the coordinator that holds it. */
  static ObjectNode report(Path config, String dataset) throws IOException, InterruptedException {
    Coordinator.Settings s = SessionFile.read(config);
    String name = dataset != null ? dataset : s.config().getDataset();
    try (Store store = Store.open(s.databaseUrl(), s.databaseUser(), s.databasePassword())) {
      ObjectNode j = LedgerReport.of(store, name);
      j.put("source", store.describe());
      return j;
    } catch (DatabaseInUseException e) {
      return fromRunningCoordinator(s, name, e);
    }
  }

  /**
   * The report from the coordinator that holds the database, through its status page. Every way
   * this fails is the same condition, the database in use (exit 4), said with what to do instead:
   * a page that does not answer from here (another host, another network namespace), none at all,
   * or one that refuses the request.
   */
  private static ObjectNode fromRunningCoordinator(Coordinator.Settings s, String dataset, DatabaseInUseException e)
      throws IOException, InterruptedException {
    Path discovery = StatusPage.discoveryFile(s.databaseUrl());
    if (discovery == null || !Files.exists(discovery)) {
      throw new DatabaseInUseException(e.getMessage() + ". That coordinator serves no status page (it was started "
          + "with --status-listen none), so its ledger can be read only once it stops", e);
    }
    JsonNode where = Json.MAPPER.readTree(discovery.toFile());
    String url = where.path("url").asText();
    boolean https = url.startsWith("https://");
    if (!https && !url.startsWith("http://")) {
      throw new DatabaseInUseException(e.getMessage() + "; " + discovery + " does not hold a status page address", e);
    }
    HttpRequest.Builder get = HttpRequest.newBuilder(URI.create(url + "api/ledger")).timeout(Duration.ofSeconds(10));
    if (where.hasNonNull("token")) {
      get.header("Authorization", "Bearer " + where.get("token").asText());
    }
    HttpResponse<String> answer;
    try {
      HttpClient.Builder client = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5));
      if (https) {
        client.sslContext(trusting(Path.of(where.path("ca").asText())));
      }
      answer = client.build().send(get.build(), HttpResponse.BodyHandlers.ofString());
    } catch (IOException ex) {
      String why = ex.getMessage() == null ? ex.getClass().getSimpleName() : ex.getMessage();
      throw new DatabaseInUseException(e.getMessage() + "; the coordinator's status page at " + url + " (from "
          + discovery + ") does not answer from here (" + why + "): run this on the "
          + "coordinator's machine, where that address is reachable, or once the coordinator stops (if it has just "
          + "stopped, try again)", ex);
    }
    if (answer.statusCode() != 200) {
      throw new DatabaseInUseException(e.getMessage() + "; the running coordinator's status page at " + url
          + " answered HTTP " + answer.statusCode() + " for its ledger (" + discovery + " holds its token; is it that "
          + "coordinator's?)", e);
    }
    ObjectNode j = (ObjectNode) Json.MAPPER.readTree(answer.body());
    if (!dataset.equals(j.path("dataset").asText())) {
      throw new DatabaseInUseException(e.getMessage() + "; the running coordinator spends data set '"
          + j.path("dataset").asText() + "' and reports only its ledger; read '" + dataset + "' once it stops", e);
    }
    j.put("source", "the running coordinator (session " + where.path("session").asText() + "), through its status "
        + "page " + url);
    return j;
  }

  /** TLS trusting only the deployment's CA (the page off loopback is HTTPS with the coordinator's certificate). */
  private static javax.net.ssl.SSLContext trusting(Path ca) throws IOException {
    try (var in = Files.newInputStream(ca)) {
      java.security.KeyStore trust = java.security.KeyStore.getInstance("PKCS12");
      trust.load(null, null);
      trust.setCertificateEntry("ca", java.security.cert.CertificateFactory.getInstance("X.509").generateCertificate(in));
      javax.net.ssl.TrustManagerFactory tmf = javax.net.ssl.TrustManagerFactory.getInstance("PKIX");
      tmf.init(trust);
      javax.net.ssl.SSLContext ssl = javax.net.ssl.SSLContext.getInstance("TLS");
      ssl.init(null, tmf.getTrustManagers(), null);
      return ssl;
    } catch (java.security.GeneralSecurityException e) {
      throw new IOException("cannot trust the deployment's CA " + ca + " for the status page: " + e.getMessage(), e);
    }
  }

  /** Prints the report as text. */
  static void print(ObjectNode j, PrintWriter out) {
    JsonNode b = j.path("budget");
    out.printf(Locale.ROOT, "data set '%s' (%s)%n", j.path("dataset").asText(), j.path("source").asText());
    if (b.isNull() || b.isMissingNode()) {
      out.println("  no privacy budget yet (a session file's `budget` sets the first one)");
    } else {
      out.printf(Locale.ROOT, "  budget eps = %s, delta = %s; spent or reserved eps = %s, delta = %s; left eps = %s%s%n",
          Trainer.fmtBound(b.path("epsilon").asDouble()), Trainer.fmtBound(b.path("delta").asDouble()),
          Trainer.fmtBound(j.path("used").path("epsilon").asDouble()),
          Trainer.fmtBound(j.path("used").path("delta").asDouble()), Trainer.fmtLeft(j.path("left_epsilon").asDouble()),
          j.path("neighbours").isNull() ? "" : " (neighbours: " + j.path("neighbours").asText() + ")");
    }
    for (JsonNode e : j.path("entries")) {
      boolean open = e.path("status").asText().equals("reserved");
      boolean stale = open && !e.path("session_status").asText().matches("enrolling|running");
      out.printf(Locale.ROOT, "  %-32s %-9s eps = %s, delta = %s, %d round(s) released; session %s; %s%s%n",
          e.path("session").asText(), e.path("status").asText(), Trainer.fmtBound(e.path("epsilon").asDouble()),
          Trainer.fmtBound(e.path("delta").asDouble()), e.path("released_rounds").asInt(),
          e.path("session_status").asText(),
          e.path("updated").asText(), open && !stale ? "  (reserved while it runs; a coordinator that died leaves it "
              + "so until its next start or `helmet ledger settle`)" : "");
    }
  }

  /**
   * Settles a session a crashed coordinator left unfinished, charged exactly the rounds it
   * recorded as released (refunded if none), recorded with the operator's reason.
   *
   * @return the eps charged
   */
  static double settle(Path config, String session, String reason) {
    Coordinator.Settings s = SessionFile.read(config);
    try (Store store = Store.open(s.databaseUrl(), s.databaseUser(), s.databasePassword())) {
      return store.settleStale(session, reason);
    } catch (DatabaseInUseException e) {
      throw new DatabaseInUseException(e.getMessage() + "; the session it runs is not stale (when a coordinator "
          + "starts it settles what a previous one left)", e);
    } catch (IllegalStateException e) {
      throw new IllegalArgumentException(e.getMessage() + " (`helmet ledger show --config " + config + "` lists them)",
          e);
    }
  }
}
