/** Released models and their JSON file format (weights, preprocessing, privacy ledger, provenance). */
package dev.helmet.protocols.model;
