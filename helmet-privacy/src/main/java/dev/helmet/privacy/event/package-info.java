/**
 * Descriptions of differentially private mechanisms ({@link dev.helmet.privacy.event.DpEvent}), in
 * the style of Google's dp_accounting: what ran, not how it is accounted.
 */
package dev.helmet.privacy.event;
