/**
 * The coordinator's status page, its JSON API and its metrics: public facts only (no count or value
 * computed from private data beyond the release).
 */
package dev.helmet.status;
