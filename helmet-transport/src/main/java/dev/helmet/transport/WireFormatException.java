package dev.helmet.transport;

/** A protocol message that does not decode: its message names the field and what is wrong. */
public final class WireFormatException extends RuntimeException {
  private static final long serialVersionUID = 1L;

  public WireFormatException(String message) {
    super(message);
  }
}
