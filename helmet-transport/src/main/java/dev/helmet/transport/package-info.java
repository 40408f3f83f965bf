/**
 * The network runners: coordinator, participant and compute node over mutual-TLS gRPC, with the
 * session file, the roster and the round driver.
 */
package dev.helmet.transport;
