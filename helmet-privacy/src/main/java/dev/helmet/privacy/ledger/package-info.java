/** The privacy ledger carried by every released model. */
package dev.helmet.privacy.ledger;
