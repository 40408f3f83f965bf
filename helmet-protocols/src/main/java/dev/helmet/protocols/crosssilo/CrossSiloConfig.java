package dev.helmet.protocols.crosssilo;

import dev.helmet.core.util.Checks;
import dev.helmet.privacy.event.NeighbourRelation;
import java.util.Locale;

/**
 * The public settings of a cross-silo run (Heikkilä et al., "Differentially private cross-silo
 * federated learning", 2020; SPEC 2.3 and 7): DP-SGD over a few data-rich parties, each adding its
 * share of the Gaussian noise, one secure summation per step.
 *
 * @param colluders T: the parties that may collude with the server (the noise split {@code
 *     colluders} sizes each share so the guarantee survives them and the observing party)
 * @param split how the noise is shared among the parties
 * @param neighbours the neighbouring relation of the guarantee
 * @param samplingRate q: each record joins a step's batch with this probability (Poisson, every
 *     party sampling its own records)
 * @param expectedBatch the public normaliser under add-or-remove neighbours (NaN under replace-one:
 *     q times the contributors' records, public there)
 * @param rounds the DP-SGD steps, one summation each
 * @param clip C: the per-example gradient L2 bound
 * @param learningRate the server's step size
 * @param accountant the accountant (pld, or rdp under add-or-remove)
 * @param projection k: the dimension parties project their records' gradients to (paper Sec. 3.5),
 *     each projection clipped to C~ before summing; 0 for none
 * @param projectionSlack delta', which sets the projected clip C~ = C r(k, delta'): the chance that
 *     an honest record's projection, P independent of it, exceeds C~ (paper Theorem 2). A record
 *     beyond C~ is clipped, so it is not charged; 0 without projection
 * @param projectionSeed the public seed of the projections (a fresh P each step); the guarantee
 *     holds for any P
 * @param noiseGroup the fewest parties in any sum the summation reveals (pairwise masks in disjoint
 *     groups of g reveal each group's sum), 0 when only the total is revealed: the colluders split
 *     then sizes each share for its group
 * @param swor the sampling without replacement settings, or null for Poisson sampling
 */
record CrossSiloConfig(
    int colluders,
    NoiseSplit split,
    NeighbourRelation neighbours,
    double samplingRate,
    double expectedBatch,
    int rounds,
    double clip,
    double learningRate,
    String accountant,
    int projection,
    double projectionSlack,
    long projectionSeed,
    int noiseGroup,
    Swor swor) {

  CrossSiloConfig {
    Checks.require(colluders >= 0, "colluders must be >= 0. Provided value: " + colluders);
    Checks.notNull("noise split", split);
    Checks.notNull("neighbours", neighbours);
    Checks.require(samplingRate > 0 && samplingRate <= 1,
        "sampling rate must be in (0, 1]. Provided value: " + samplingRate);
    Checks.positive("rounds", rounds);
    Checks.positive("clip", clip);
    Checks.positive("learning rate", learningRate);
    Checks.require(accountant.equals("pld") || accountant.equals("rdp"),
        "accountant must be pld or rdp. Provided value: " + accountant);
    Checks.require(neighbours == NeighbourRelation.ADD_OR_REMOVE_ONE || accountant.equals("pld"),
        "replace-one neighbours need the pld accountant (the RDP of the Poisson-subsampled Gaussian is known for "
            + "add-or-remove neighbours only)");
    if (swor != null) {
      Checks.require(neighbours == NeighbourRelation.REPLACE_ONE, "sampling without replacement needs replace-one "
          + "neighbours (adding or removing a record changes the token list; the paper pairs it with replace-one)");
      Checks.require(accountant.equals("pld"), "sampling without replacement is accounted by the pld accountant");
      Checks.require(split != NoiseSplit.LOCAL, "sampling without replacement draws one global batch; the local "
          + "split protects each party's message alone, which the SWOR analysis does not cover: use poisson");
    }
    Checks.require(noiseGroup >= 0, "noise group must be >= 0. Provided value: " + noiseGroup);
    Checks.require(projection >= 0, "projection dimension must be >= 0. Provided value: " + projection);
    if (projection > 0) {
      Checks.require(projectionSlack > 0 && projectionSlack < 1,
          "projection slack must be in (0, 1). Provided value: " + projectionSlack);
    }
    if (neighbours == NeighbourRelation.ADD_OR_REMOVE_ONE) {
      Checks.require(expectedBatch > 0 && Double.isFinite(expectedBatch), "under add-or-remove neighbours the "
          + "number of records is private, so the step's normaliser must be a public expected batch > 0. "
          + "Provided value: " + expectedBatch);
    }
  }

  /**
   * Sampling without replacement from the global token list (paper Sec. 3.4, Algorithm 2): each
   * step's batch is a uniform subset of {@code batch} of all records, chosen from the joint seed over
   * the mixed token list, so only a record's owner knows it is in the batch.
   *
   * @param batch b, the fixed batch size (also the step's normaliser)
   * @param analysis exact (the hypergeometric mixture), slack (the paper's, with slack per step) or
   *     worst-case (rate b / n_H)
   * @param slack the per-step slack of the slack analysis (0 otherwise)
   * @param idealMixnet true to draw the batches as the mixnet would without running it (experiments;
   *     the ledger says so), false to run the real onion mixnet in process
   */
  record Swor(int batch, String analysis, double slack, boolean idealMixnet) {
    Swor {
      Checks.positive("batch", batch);
      Checks.require(analysis.equals("exact") || analysis.equals("slack") || analysis.equals("worst-case"),
          "swor analysis must be exact, slack or worst-case. Provided value: " + analysis);
      Checks.require(!analysis.equals("slack") || slack > 0 && slack < 1,
          "swor slack must be in (0, 1). Provided value: " + slack);
    }
  }

  /** How the noise is shared among the parties (the paper's Sec. 3.2 and its LDP baseline). */
  enum NoiseSplit {
    /**
     * Each party adds variance sigma^2 C^2 / (M - T - 1), M the fewest contributors a step may
     * have: the honest shares alone reach sigma^2 C^2 even when T parties collude with the server
     * and one more party (any party sees the aggregate and knows its own share) observes.
     */
    COLLUDERS("colluders"),
    /**
     * Each party adds sigma^2 C^2 / M: the full noise only if every party's share stays hidden, as
     * inside trusted hardware (assumed, not provided here).
     */
    TRUSTED_HARDWARE("trusted-hardware"),
    /**
     * Each party adds the full sigma^2 C^2: every party's message is DP on its own, as if there
     * were no secure summation (the paper's "LDP" baseline: each party's own central DP).
     */
    LOCAL("local");

    private final String id;

    NoiseSplit(String id) {
      this.id = id;
    }

    String id() {
      return id;
    }

    static NoiseSplit parse(String s) {
      for (NoiseSplit n : values()) {
        if (n.id.equals(s.trim().toLowerCase(Locale.ROOT))) {
          return n;
        }
      }
      throw new IllegalArgumentException("must be colluders, trusted-hardware or local. Provided value: " + s);
    }
  }
}
