package dev.helmet.transport;

import java.util.Map;

/**
 * What a participant is doing, phase by phase, for its command line (one line per phase, or one
 * JSON object per line). Kinds and their fields:
 *
 * <ul>
 *   <li>{@code connecting} (coordinator); {@code waiting} (coordinator, reason, retry_seconds,
 *       seconds_left): the coordinator does not answer yet, or still runs the session this party lost;
 *   <li>{@code lost} (session, reason, wait_seconds): the coordinator went away before the session
 *       ended; the party waits for its next session (a restart) and joins it if its policy accepts it;
 *   <li>{@code session} (session, algorithm, rounds, parties, epsilon, delta): the published settings;
 *   <li>{@code features} (stage, rows), {@code preparing} (algorithm, points), {@code training} (task,
 *       done, total, seconds_left; at most one a second, Helmet's local epochs), {@code prepared}
 *       (seconds, and reused = true when a restarted coordinator's session has the same settings): this party's own work on its data before it joins;
 *   <li>{@code joined}, then {@code enrolled} (enrolled, parties) as the others join;
 *   <li>{@code roster} (party, parties, rounds, epsilon, neighbours): enrolment closed, with this party's
 *       own account of what the plan costs its data;
 *   <li>{@code setup} (step, steps): its turn on the setup board;
 *   <li>{@code round} (round, rounds): a round opened and it computes its input;
 *       {@code sent} (round): its input left;
 *   <li>{@code outcome} (status, reason).
 * </ul>
 *
 * Nothing in an event is computed from the party's data beyond its record count.
 */
public interface ParticipantListener {
  ParticipantListener NONE = (kind, fields) -> {};

  void event(String kind, Map<String, Object> fields);
}
