package dev.helmet.status;

import dev.helmet.transport.Coordinator;
import dev.helmet.transport.CoordinatorListener;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.Timer;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The coordinator's Prometheus metrics (names in docs/deployment.md). Stage names lose their round
 * prefix in labels ("R3/MASKED_INPUT" is stage="MASKED_INPUT"; setup steps are stage="SETUP"), so
 * a long run has a bounded number of series. Operational figures only.
 */
final class Metrics implements CoordinatorListener {
  final PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
  private final AtomicInteger enrolled = new AtomicInteger();
  private final AtomicInteger expected = new AtomicInteger();
  private final java.util.concurrent.atomic.AtomicLong bytesPerParty = new java.util.concurrent.atomic.AtomicLong();

  Metrics(Coordinator c) {
    String dataset = c.config().getDataset();
    Gauge.builder("helmet.enrolled.parties", enrolled, AtomicInteger::get)
        .description("parties enrolled in the current session").register(registry);
    Gauge.builder("helmet.expected.parties", expected, AtomicInteger::get)
        .description("parties the current session waits for").register(registry);
    Gauge.builder("helmet.budget.epsilon", c, x -> budget(x, dataset, 0)).tag("dataset", dataset)
        .description("the data set's eps budget").register(registry);
    Gauge.builder("helmet.budget.used.epsilon", c, x -> used(x, dataset))
        .tag("dataset", dataset).description("eps spent or reserved on the data set").register(registry);
    Gauge.builder("helmet.session.bytes.per.participant", bytesPerParty, java.util.concurrent.atomic.AtomicLong::get)
        .description("mean bytes a participant exchanged in the finished session").baseUnit("bytes")
        .register(registry);
    expected.set((int) c.config().getParties());
  }

  /** NaN when the data set has no budget or the database is closed (the coordinator has stopped). */
  private static double budget(Coordinator c, String dataset, int k) {
    try {
      double[] b = c.store().budget(dataset);
      return b == null ? Double.NaN : b[k];
    } catch (RuntimeException e) {
      return Double.NaN;
    }
  }

  private static double used(Coordinator c, String dataset) {
    try {
      return c.store().used(dataset)[0].doubleValue();
    } catch (RuntimeException e) {
      return Double.NaN;
    }
  }

  static String kind(String stage) {
    String s = stage.contains("/") ? stage.substring(stage.indexOf('/') + 1) : stage;
    return s.startsWith("SETUP_") ? "SETUP" : s;
  }

  @Override
  public void enrolled(int n, int of) {
    enrolled.set(n);
    expected.set(of);
  }

  @Override
  public void stageClosed(String stage, double seconds, int exp, int answered, long bytesIn) {
    String k = kind(stage);
    Timer.builder("helmet.stage.duration").tag("stage", k).description("time a stage took, enrolment excluded")
        .register(registry).record(Duration.ofNanos((long) (seconds * 1e9)));
    Counter.builder("helmet.stage.expected").tag("stage", k).description("parties stages waited for")
        .register(registry).increment(exp);
    Counter.builder("helmet.stage.answered").tag("stage", k).description("parties that answered in time")
        .register(registry).increment(answered);
    Counter.builder("helmet.received.bytes").tag("stage", k).description("bytes received from participants")
        .register(registry).increment(bytesIn);
  }

  @Override
  public void event(String kind, String reason) {
    Counter.builder("helmet.events").tag("kind", kind).tag("reason", reason)
        .description("dropped parties (DROP), rejected messages (REJECT) and departures during enrolment (LEFT)")
        .register(registry).increment();
  }

  @Override
  public void finished(boolean released, double epsilon, long bytesPerParticipant) {
    Counter.builder("helmet.sessions.finished").tag("outcome", released ? "released" : "aborted")
        .description("sessions that ended").register(registry).increment();
    bytesPerParty.set(bytesPerParticipant);
  }
}
