/** Summation by J computation servers holding additive shares; private if one server is honest. */
package dev.helmet.secagg.servers;
