package dev.helmet.privacy.event;

import dev.helmet.core.util.Checks;

/** {@code count} independent runs of the same event on the same data. */
public record SelfComposedDpEvent(DpEvent event, int count) implements DpEvent {
  public SelfComposedDpEvent {
    Checks.notNull("event", event);
    Checks.positive("count", count);
  }

  @Override
  public String describe() {
    return count + " x " + event.describe();
  }
}
