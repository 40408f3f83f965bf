package dev.helmet.secagg.ring;

/** A configuration whose sum could wrap the ring; refused before anything is sent. */
public class RingOverflowException extends IllegalArgumentException {
  public RingOverflowException(String message) {
    super(message);
  }
}
