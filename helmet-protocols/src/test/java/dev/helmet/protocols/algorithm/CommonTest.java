package dev.helmet.protocols.algorithm;

import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.helmet.protocols.privacy.Protection;
import org.junit.jupiter.api.Test;

class CommonTest {
  /** A classifier refuses numeric targets and names the registered algorithms that fit regression. */
  @Test
  void aClassifierRefusesRegressionDataNamingWhatFitsIt() {
    Common regression = new Common(1, 1e-5, 0.5, Protection.record(), 0, 3, 1);
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> regression.requireClasses("x"));
    assertTrue(e.getMessage().startsWith("x trains classifiers") && e.getMessage().contains("--algorithm wd-dp"),
        e.getMessage());
    new Common(1, 1e-5, 0.5, Protection.record(), 0, 3, 2).requireClasses("x"); // classes: accepted
  }
}
