package dev.helmet.secagg.summation;

import java.util.List;
import java.util.Map;

/**
 * What a summation produced and what it cost.
 *
 * @param status completed, or aborted with nothing released
 * @param sum the ring sum of the contributors' inputs, or null if aborted
 * @param contributors ids of the parties whose inputs are in the sum, ascending
 * @param dropped parties left out, with the round and reason
 * @param abortReason why the summation aborted, or null
 * @param bytesPerParty mean bytes a party sent and received
 * @param serverBytes bytes the server (or servers, together) sent and received
 * @param seconds wall time of the whole summation
 * @param serverSeconds time the server spent handling messages and closing rounds
 * @param partySeconds mean time a party spent computing its messages
 * @param profile seconds per cryptographic primitive (key agreement, PRG, Shamir, ...), all parties
 *     and the server together
 * @param parameters the protocol's public parameters as chosen (graph, neighbours, threshold, ...)
 */
public record SummationOutcome(
    Status status,
    long[] sum,
    List<Integer> contributors,
    List<Drop> dropped,
    String abortReason,
    long bytesPerParty,
    long serverBytes,
    double seconds,
    double serverSeconds,
    double partySeconds,
    Map<String, Double> profile,
    Map<String, Object> parameters) {

  public SummationOutcome {
    contributors = List.copyOf(contributors);
    dropped = List.copyOf(dropped);
    profile = java.util.Collections.unmodifiableMap(new java.util.LinkedHashMap<>(profile));
    parameters = java.util.Collections.unmodifiableMap(new java.util.LinkedHashMap<>(parameters));
  }

  /** How a summation ended. */
  public enum Status {
    COMPLETED,
    ABORTED
  }

  /** One party left out: in which round, why, and details for the log. */
  public record Drop(int party, String round, String reason, String detail) {}
}
