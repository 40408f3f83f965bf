package dev.helmet.privacy.event;

/** An event that does not touch the private data (costs nothing). */
public record NoOpDpEvent() implements DpEvent {
  @Override
  public String describe() {
    return "no-op";
  }
}
