package dev.helmet.secagg.summation;

import java.util.List;

/**
 * What a summation produced.
 *
 * @param status completed, or aborted with nothing released
 * @param sum the ring sum of the contributors' inputs, or null if aborted
 * @param contributors ids of the parties whose inputs are in the sum
 * @param dropped parties left out, with reasons
 * @param bytesPerParty bytes one party sent and received (mean)
 * @param serverBytes bytes the server sent and received
 * @param seconds wall time of the summation
 */
public record SummationOutcome(
    Status status,
    long[] sum,
    List<Integer> contributors,
    List<Drop> dropped,
    long bytesPerParty,
    long serverBytes,
    double seconds) {

  public SummationOutcome {
    contributors = List.copyOf(contributors);
    dropped = List.copyOf(dropped);
  }

  /** How a summation ended. */
  public enum Status {
    COMPLETED,
    ABORTED_TOO_FEW_CONTRIBUTORS
  }

  /** Why a party is not in the sum. */
  public enum DropReason {
    MALFORMED_INPUT,
    DROPPED_OUT
  }

  /** One party left out. */
  public record Drop(int party, DropReason reason, String detail) {}
}
