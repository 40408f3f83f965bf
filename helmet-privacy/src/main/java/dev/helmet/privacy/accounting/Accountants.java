package dev.helmet.privacy.accounting;

import java.util.function.Supplier;

/**
 * The accountants by name, so that a stored charge ({@link dev.helmet.privacy.ledger.PrivacyCharge})
 * names the one that computes it: {@code gaussian} (exact, Gaussian mechanisms only), {@code rdp},
 * {@code pld}, {@code approx-dp} (mechanisms known only through (eps, delta), i.e. cpSGD's).
 */
public final class Accountants {
  private Accountants() {}

  /**
   * A supplier of fresh accountants of the given name ({@code gaussian}, {@code gaussian-exact},
   * {@code rdp}, {@code pld}, {@code rdp-paper-subsampling}: RDP with the Skellam mixture
   * mechanism's subsampled rounds bounded as its paper does, to reproduce it, or {@code approx-dp}:
   * (eps, delta) subsampling and composition for cpSGD's binomial mechanism).
   *
   * @throws IllegalArgumentException for any other name
   */
  public static Supplier<PrivacyAccountant> named(String name) {
    return switch (name) {
      case "gaussian", "gaussian-exact" -> GaussianAccountant::new;
      case "rdp" -> RdpAccountant::new;
      case RdpAccountant.PAPER_SUBSAMPLING -> () -> new RdpAccountant(SkellamMixtureRdp.Subsampling.PAPER);
      case "pld" -> PldAccountant::new;
      case "approx-dp" -> ApproxDpAccountant::new;
      default -> throw new IllegalArgumentException("accountant must be gaussian, rdp, pld or approx-dp. Provided "
          + "value: " + name);
    };
  }
}
