package dev.helmet.privacy.event;

import java.util.List;
import java.util.stream.Collectors;

/** Several events run one after another on the same data. */
public record ComposedDpEvent(List<DpEvent> events) implements DpEvent {
  public ComposedDpEvent {
    events = List.copyOf(events);
  }

  @Override
  public String describe() {
    return events.stream().map(DpEvent::describe).collect(Collectors.joining(" + ", "(", ")"));
  }
}
