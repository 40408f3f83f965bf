package dev.helmet.transport.store;

/** The database is open in another process (another coordinator): one coordinator per database. */
public final class DatabaseInUseException extends StoreException {
  private static final long serialVersionUID = 1L;

  public DatabaseInUseException(String message, Throwable cause) {
    super(message, cause);
  }
}
