/**
 * Networked sessions on loopback in one process or a few: the in-process network demo (a
 * coordinator and its participants over mutual TLS, {@code helmet demo --network}) and the
 * coordinator memory benchmark ({@code helmet bench network}). Every server listens on loopback
 * only.
 */
package dev.helmet.experiments.network;
