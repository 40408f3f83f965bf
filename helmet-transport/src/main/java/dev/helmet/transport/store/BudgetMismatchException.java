package dev.helmet.transport.store;

/**
 * A session states a privacy budget other than the one its data set has (or none for a data set
 * that has none): budgets change only through {@code helmet budget set}, never by editing a
 * session file.
 */
public final class BudgetMismatchException extends RuntimeException {
  private static final long serialVersionUID = 1L;

  public BudgetMismatchException(String message) {
    super(message);
  }
}
