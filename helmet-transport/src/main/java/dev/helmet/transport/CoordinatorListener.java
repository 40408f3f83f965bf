package dev.helmet.transport;

/**
 * What a coordinator reports as it runs, for metrics (the status module's Prometheus registry).
 * Called on the coordinator's threads, sometimes under its session lock: an implementation must
 * return at once and never call back into the coordinator. Everything it is told is operational
 * (stage names, counts, times, reasons, the released guarantee): nothing computed from data.
 */
public interface CoordinatorListener {
  CoordinatorListener NONE = new CoordinatorListener() {};

  /** A party enrolled; {@code enrolled} of {@code expected} are in. */
  default void enrolled(int enrolled, int expected) {}

  /**
   * A stage closed (a SecAgg round, a dca upload, a setup step).
   *
   * @param stage its recorded name ("R3/MASKED_INPUT", "SETUP_4")
   * @param expected the parties it waited for
   * @param answered those that answered in time
   * @param bytesIn bytes received from participants during it
   */
  default void stageClosed(String stage, double seconds, int expected, int answered, long bytesIn) {}

  /** A recorded event: kind DROP, REJECT or LEFT, with its reason (INVALID_SIGNATURE, TIMEOUT, ...). */
  default void event(String kind, String reason) {}

  /**
   * The session ended.
   *
   * @param released whether a model was released
   * @param epsilon the eps charged to the data set (the release's, or the released rounds' on an abort)
   * @param bytesPerParticipant the mean bytes a participant exchanged (with the coordinator, and in a
   *     dca session with the compute nodes)
   */
  default void finished(boolean released, double epsilon, long bytesPerParticipant) {}
}
