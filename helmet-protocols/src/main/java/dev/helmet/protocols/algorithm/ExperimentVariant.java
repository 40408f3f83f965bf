package dev.helmet.protocols.algorithm;

import com.fasterxml.jackson.databind.node.ObjectNode;

/**
 * A variant of an experiment: a name, the summation its rows are taken with ({@code plain} or
 * {@code simulated}), and the algorithm's settings, where lists span a grid. Used by
 * {@link Algorithm#legacyExperimentVariants} to read experiment files written before variants.
 */
public record ExperimentVariant(String name, String summation, ObjectNode settings) {}
