/**
 * The coordinator's and participants' stores: sessions, rounds and the privacy ledger in an
 * embedded database (or PostgreSQL), and private files written with owner-only permissions.
 */
package dev.helmet.transport.store;
