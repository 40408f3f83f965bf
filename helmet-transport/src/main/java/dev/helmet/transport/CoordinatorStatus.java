package dev.helmet.transport;

import java.util.concurrent.TimeUnit;

/**
 * A live, read-only view of a running coordinator for the status page: the phase, enrolment, the
 * current stage with its deadline and how many answered. Operational figures only: no message
 * content, no contribution, nothing computed from data.
 */
public final class CoordinatorStatus {
  private CoordinatorStatus() {}

  /**
   * One moment of a session.
   *
   * @param phase ENROLLING, RUNNING or DONE
   * @param expectedParties the parties the session waits for
   * @param enrolled the parties enrolled so far
   * @param enrolmentSecondsLeft seconds until enrolment closes (0 once it has)
   * @param stage the current stage's recorded name ("ENROLMENT", "R2/MASKED_INPUT", "SETUP_3", "FINISHED")
   * @param round the current round (0-based; -1 before the first)
   * @param rounds the session's rounds (0 before the plan is known)
   * @param stageSecondsLeft seconds until the current stage's deadline (0 if none runs)
   * @param stageExpected the parties the current stage waits for
   * @param stageAnswered those that have answered it
   * @param gone the parties that have left or were dropped
   */
  public record Live(String session, String name, String dataset, String algorithm, String phase,
      int expectedParties, int enrolled, long enrolmentSecondsLeft, String stage, int round, int rounds,
      long stageSecondsLeft, int stageExpected, int stageAnswered, int gone) {}

  static Live of(Coordinator c) {
    c.lock.lock();
    try {
      long now = System.nanoTime();
      String stage = c.stage();
      int expected = c.stageExpected;
      int answered = c.stageAnswered;
      if (c.setupStage == null && c.dcaStage == null && c.state != null && !c.state.isFinal()) {
        answered = Math.max(0, expected - c.state.awaiting().cardinality());
      }
      boolean enrolling = c.phase == Coordinator.Phase.ENROLLING;
      boolean running = c.phase == Coordinator.Phase.RUNNING;
      return new Live(c.sessionHex, c.config.getName(), c.config.getDataset(), c.config.getAlgorithm(), c.phase.name(),
          (int) c.config.getParties(), c.enrolled.size(),
          enrolling ? seconds(c.enrolmentDeadline - now) : 0, stage, c.round, c.rounds,
          running && c.stageDeadline != 0 ? seconds(c.stageDeadline - now) : 0, running ? expected : 0,
          running ? answered : 0, c.gone.cardinality());
    } finally {
      c.lock.unlock();
    }
  }

  private static long seconds(long nanos) {
    return Math.max(0, TimeUnit.NANOSECONDS.toSeconds(nanos));
  }
}
