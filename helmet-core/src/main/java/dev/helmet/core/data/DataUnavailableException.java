package dev.helmet.core.data;

/** A built-in data set that is neither cached nor fetchable; the message says what to do. */
public class DataUnavailableException extends RuntimeException {
  public DataUnavailableException(String message) {
    super(message);
  }
}
