package dev.helmet.protocols.model;

/** A model file that cannot be used; the message names the file and the field. */
public class ModelFormatException extends IllegalArgumentException {
  public ModelFormatException(String message) {
    super(message);
  }
}
