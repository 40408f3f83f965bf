package dev.helmet.core.data;

/**
 * A data file or data set that cannot be used: unreadable, malformed, ragged, non-finite values, an
 * unknown label, a wrong dimension. The message names the file, the place and the problem in one
 * line, for example {@code "iris.csv line 17: expected 5 columns, found 4"}.
 */
public class DataFormatException extends IllegalArgumentException {
  public DataFormatException(String message) {
    super(message);
  }

  public DataFormatException(String message, Throwable cause) {
    super(message, cause);
  }
}
