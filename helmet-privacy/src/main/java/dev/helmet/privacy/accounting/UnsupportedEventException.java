package dev.helmet.privacy.accounting;

import dev.helmet.privacy.event.DpEvent;

/** An accountant was given an event it cannot account. */
public class UnsupportedEventException extends IllegalArgumentException {
  public UnsupportedEventException(String accountant, DpEvent event) {
    super("the " + accountant + " accountant cannot account " + event.describe());
  }
}
