package dev.helmet.privacy.event;

import dev.helmet.core.util.Checks;

/**
 * {@code inner}'s guarantee, except with probability at most {@code slack}, when it may not hold at
 * all: the per-step failure probability of an analysis that conditions on a likely event. Its use
 * in the cross-silo design (docs/design/cross-silo.md 1.4): SWOR amplification with slack
 * (Heikkila et al., Sec. 3.4.1), where with probability below delta_s the batch holds more honest
 * records than the analysed rate allows. (Random projections used it for Theorem 2's delta' until
 * cross-silo clipped each record's projection, which needs no slack: a probability over P does not
 * hold for data chosen against a public P; privacy review turn 3, finding 2.)
 *
 * <p>Its privacy loss distribution is {@code (1 - slack) omega_inner + slack * (mass at +infinity)},
 * in each direction: the bad event is charged as a total failure, so after K steps
 * {@code delta(eps) = 1 - (1 - slack)^K (1 - delta_inner^K(eps)) <= delta_inner^K(eps) + K slack}.
 * RDP cannot express a failure probability, so only the PLD accountant supports it.
 *
 * @param slack the probability, in [0, 1], with which the inner guarantee may fail
 * @param inner the guarantee that holds otherwise
 */
public record SlackDpEvent(double slack, DpEvent inner) implements DpEvent {
  public SlackDpEvent {
    Checks.require(slack >= 0 && slack <= 1, "slack must be in [0, 1]. Provided value: " + slack);
    Checks.notNull("inner event", inner);
  }

  @Override
  public String describe() {
    return "Slack(s=" + slack + ", " + inner.describe() + ")";
  }
}
