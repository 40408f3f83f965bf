package dev.helmet.core.nn;

import dev.helmet.core.learn.Model;
import dev.helmet.core.preprocess.DesignMatrix;
import dev.helmet.core.util.Checks;
import java.util.Arrays;

/**
 * A multi-layer perceptron with its parameters, as a {@link Model}: it reads the preprocessed
 * rows without their intercept column (every layer has its own bias, {@link Examples#of}).
 *
 * @param net the architecture
 * @param params its parameters in {@link Mlp}'s layout
 */
public record MlpModel(Mlp net, double[] params) implements Model {
  public MlpModel {
    Checks.notNull("net", net);
    Checks.require(params.length == net.parameterCount(), "an MLP " + net + " has " + net.parameterCount()
        + " parameters. Provided: " + params.length);
  }

  @Override
  public int numClasses() {
    return net.classes();
  }

  @Override
  public int inputColumns() {
    return net.inputs() + 1;
  }

  @Override
  public int[] predict(DesignMatrix data) {
    Checks.require(data.cols() == inputColumns(), "inputs have " + (data.cols() - 1) + " features, the MLP " + net
        + " expects " + net.inputs());
    return net.predict(params, Examples.of(data));
  }

  @Override
  public double[] parameters() {
    return params;
  }

  @Override
  public String describe() {
    return "MLP " + net + " (" + net.parameterCount() + " parameters)";
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof MlpModel m && m.net.equals(net) && Arrays.equals(m.params, params);
  }

  @Override
  public int hashCode() {
    return 31 * net.hashCode() + Arrays.hashCode(params);
  }

  @Override
  public String toString() {
    return describe();
  }
}
