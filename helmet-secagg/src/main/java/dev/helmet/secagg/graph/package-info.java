/**
 * SecAgg+'s communication graph: the random Harary graph every party derives from the public graph
 * seed.
 */
package dev.helmet.secagg.graph;
