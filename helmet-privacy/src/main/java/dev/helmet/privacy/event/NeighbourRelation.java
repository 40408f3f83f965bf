package dev.helmet.privacy.event;

/**
 * Which data sets count as neighbours. Sensitivities are stated for one relation; a Gaussian
 * mechanism's guarantee is the same under both once its sensitivity is computed for the relation
 * in use. Helmet's learner sensitivities ({@code 2L/(Lambda n)}) are for replacing one record.
 */
public enum NeighbourRelation {
  /** D' is D with one record added or removed (unbounded DP). */
  ADD_OR_REMOVE_ONE,
  /** D' is D with one record replaced by another (bounded DP). */
  REPLACE_ONE
}
