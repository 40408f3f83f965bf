package dev.helmet.transport.store;

/** A session would take a data set past its privacy budget; nothing was reserved. */
public final class BudgetExceededException extends StoreException {
  private static final long serialVersionUID = 1L;

  public BudgetExceededException(String message) {
    super(message);
  }
}
