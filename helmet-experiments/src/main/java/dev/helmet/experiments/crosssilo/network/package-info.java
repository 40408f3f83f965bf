/**
 * The networked timing of the cross-silo presets ({@code --network}): crosssilo-nodes (Heikkilä et
 * al.'s Fig. 3, total running time of training against the compute nodes M) and
 * crosssilo-projection (Fig. 4's running time against the projection dimension k), each compute
 * node its own {@code helmet compute-node} process on loopback, the coordinator and participants in
 * this JVM over mutual TLS ({@link dev.helmet.experiments.crosssilo.network.NetworkTiming}).
 */
package dev.helmet.experiments.crosssilo.network;
