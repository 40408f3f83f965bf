package dev.helmet.transport;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.helmet.core.data.Dataset;
import dev.helmet.core.partition.Partition;
import dev.helmet.core.partition.PartitionStrategy;
import dev.helmet.core.testdata.TestData;
import dev.helmet.protocols.algorithm.AlgorithmSpec;
import dev.helmet.protocols.simulation.Simulation;
import dev.helmet.secagg.protocol.InProcessSecAgg;
import dev.helmet.secagg.summation.DropoutPlan;
import dev.helmet.secagg.summation.PlainSummation;
import dev.helmet.secagg.summation.SecureSummation;
import dev.helmet.transport.wire.SessionConfig;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * What the runners do with a toy algorithm that lives only in the tests
 * ({@link dev.helmet.transport.toy.PrivateMean}), registered through the same registry and run
 * without any change to a runner. That every registered algorithm, the toy included, releases the
 * same model bit for bit in process and over the network is {@link AlgorithmContractTest}'s; here
 * are what only the toy shows: that it learns, and that small rings travel bit-packed over gRPC.
 */
@org.junit.jupiter.api.Tag("integration")
class AlgorithmRunnersTest {
  private static final Dataset DIGITS = TestData.digits();

  private static SessionConfig config(String algorithm, String json, int w, double eps) {
    SessionConfig.Builder b = Loopback.config(DIGITS, w, w, eps).setColludingFraction(0.5);
    b.setPrivacy(b.getPrivacy().toBuilder().setHonestFraction(0.5));
    return Loopback.algorithm(b, algorithm, json).build();
  }

  private static SecureSummation secAggPlus() {
    return new InProcessSecAgg(InProcessSecAgg.Variant.SECAGG_PLUS, 0.5, InProcessSecAgg.DROPOUTS_FROM_THRESHOLD,
        DropoutPlan.NONE, 2);
  }

  private static Partition partition(int w, int per) {
    return new PartitionStrategy.Iid(w, per).split(DIGITS, new SplittableRandom(3));
  }

  /**
   * With little noise the toy's class means are close to the true ones, and its accounted eps
   * meets the target closely (its calibration spends nearly all of it).
   */
  @Test
  void theToysClassMeansAreCloseToTheTrueOnesAndItsEpsIsTheTarget() {
    SessionConfig config = config("private-mean", "{\"mean\": {\"clip\": 1}}", 6, 1e4);
    Partition p = partition(6, 50);
    Simulation.Result plain = SeededRuns.inProcess(config, DIGITS, p, new PlainSummation());
    assertTrue(plain.ledger().epsilon() <= 1e4 && plain.ledger().epsilon() > 0.99e4, "eps " + plain.ledger().epsilon());
    // The true class means of the clipped rows, divided by the total of records.
    AlgorithmSpec spec = SessionPlan.spec(config);
    var rows = spec.preprocessing().design(DIGITS, p.pooled());
    double[] truth = new double[spec.length()];
    for (int i = 0; i < rows.rows(); i++) {
      rows.axpy(i, 1.0 / rows.rows(), truth, rows.label(i) * rows.cols());
    }
    assertTrue(Loopback.maxDifference(truth, plain.model().parameters()) < 1e-2,
        "toy means off by " + Loopback.maxDifference(truth, plain.model().parameters()));
  }

  /**
   * SMM-sized rings over gRPC: the toy summed in a 6- or 10-bit ring releases over loopback bit for
   * bit what both in-process runners release, and every masked input on the wire is the d = 650
   * elements bit-packed in ceil(b d / 8) bytes (488 and 813, the top 4 bits padding). With 6 bits
   * the ring keeps one fractional bit and the means all round to 0, so what is checked is that the
   * uniform masks cancel exactly; with 10 bits (5 fractional) some means survive.
   */
  @ParameterizedTest
  @CsvSource({"6, 488", "10, 813"})
  void smallRingsTravelBitPackedOverGrpcAndReleaseTheInProcessResult(int bits, int packedBytes, @TempDir Path dir)
      throws Exception {
    SessionConfig config = config("private-mean", "{\"mean\": {\"clip\": 1, \"ring_bits\": " + bits + "}}", 6, 1e4);
    AlgorithmSpec spec = SessionPlan.spec(config);
    assertEquals(650, spec.length());
    Partition p = partition(6, 50);
    Simulation.Result plain = SeededRuns.inProcess(config, DIGITS, p, new PlainSummation());
    assertArrayEquals(plain.model().parameters(), SeededRuns.inProcess(config, DIGITS, p, secAggPlus()).model()
        .parameters());
    List<Integer> maskedSizes = java.util.Collections.synchronizedList(new ArrayList<>());
    SeededRuns.Networked run = SeededRuns.networked(config, DIGITS, p, dir, null, m -> {
      if (m.hasMaskedInput()) {
        maskedSizes.add(m.getMaskedInput().getValues().size());
      }
    });
    Coordinator.Result r = run.coordinator();
    assertTrue(r.completed(), r.reason());
    for (Participant.Result pr : run.participants()) {
      assertTrue(pr.completed(), pr.reason());
      // Each participant states the model's guarantee from its own plan, never the coordinator's.
      assertEquals(r.model().privacy().epsilon(), pr.model().privacy().epsilon(), 0);
      assertArrayEquals(r.model().weights().parameters(), pr.model().weights().parameters());
    }
    double[] net = r.model().weights().parameters();
    assertArrayEquals(plain.model().parameters(), net);
    assertEquals(java.util.Collections.nCopies(6, packedBytes), maskedSizes);
    assertEquals(bits == 10, java.util.Arrays.stream(net).anyMatch(v -> v != 0));
  }
}
