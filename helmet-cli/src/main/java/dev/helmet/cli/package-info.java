/**
 * The command line: each command class parses its options and delegates (picocli); {@code Main}
 * lists the commands and the exit codes.
 */
package dev.helmet.cli;
