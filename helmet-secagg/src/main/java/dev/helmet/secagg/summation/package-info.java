/**
 * The summation interface blind averaging runs behind, and the in-the-clear baseline. The secure
 * protocols implement the same interface, so learners and protocols never change with them.
 */
package dev.helmet.secagg.summation;
