/**
 * The Spark engine: an experiment grid's cells and a run's parties on a Spark cluster, with the same
 * algorithms and the same code as in process.
 */
package dev.helmet.spark;
