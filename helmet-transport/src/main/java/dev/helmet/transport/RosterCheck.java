package dev.helmet.transport;

import dev.helmet.transport.wire.Roster;
import dev.helmet.transport.wire.SessionConfig;
import java.security.cert.X509Certificate;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * Over TLS, whether every roster entry is a distinct certified participant: its certificate the
 * one whose fingerprint the entry lists, a participant certificate of this deployment's CA, whose
 * key signed the entry's identity key and nonce commitment for this configuration, and no two
 * entries of one holder (subject or key). Participants check it before they reveal anything, and
 * compute nodes before they accept an upload, so an entry the coordinator made up never counts.
 */
final class RosterCheck {
  private RosterCheck() {}

  /** The first entry that fails, with why ("party 3 ... (reason)"), or null if all pass. */
  static String problem(SessionConfig config, Roster r, X509Certificate ca) {
    byte[] digest = SessionPlan.digest(config);
    List<IdentityBinding.Holder> holders = new ArrayList<>();
    for (int i = 0; i < r.getPartiesCount(); i++) {
      var e = r.getParties(i);
      byte[] cert = e.getCertificate().toByteArray();
      String why;
      if (cert.length == 0 || e.getIdentityBinding().isEmpty()) {
        why = "it carries no certificate and identity binding";
      } else if (!Arrays.equals(IdentityBinding.fingerprint(cert), e.getCertificateSha256().toByteArray())) {
        why = "its certificate is not the one its fingerprint names";
      } else {
        why = IdentityBinding.check(cert, e.getIdentityBinding().toByteArray(), ca, digest,
            e.getIdentityKey().toByteArray(), e.getNonceCommitment().toByteArray());
      }
      if (why == null) {
        IdentityBinding.Holder h = IdentityBinding.holder(cert);
        for (IdentityBinding.Holder other : holders) {
          if (other.same(h)) {
            why = "its certificate has the subject or key of an earlier entry's";
          }
        }
        holders.add(h);
      }
      if (why != null) {
        return "party " + i + " that is not a distinct certified participant (" + why + ")";
      }
    }
    return null;
  }

  /**
   * Over TLS, every neighbour whose keys the coordinator relays must come with the identity binding
   * the roster carries for it. {@link #problem} already verified each roster entry (its
   * certificate, the binding's signature, distinct holders), so a byte comparison suffices here: a
   * binding or certificate other than the roster's means the coordinator substituted keys.
   *
   * @return why party {@code self} must stop, or null
   */
  static String keyRosterProblem(Roster roster, int self, dev.helmet.transport.wire.KeyRoster kr) {
    java.util.Map<Integer, dev.helmet.transport.wire.IdentityBinding> bindings = new java.util.HashMap<>();
    for (var b : kr.getBindingsList()) {
      bindings.put(b.getParty(), b);
    }
    for (var n : kr.getNeighboursList()) {
      int v = n.getSender();
      var b = bindings.get(v);
      String why = null;
      if (v < 0 || v >= roster.getPartiesCount()) {
        why = "it is not in the roster";
      } else if (v == self) {
        why = "it is this party itself";
      } else if (b == null) {
        why = "no identity binding came with its keys";
      } else if (!b.getCertificate().equals(roster.getParties(v).getCertificate())) {
        why = "its binding's certificate is not the one the roster lists for it";
      } else if (!b.getSignature().equals(roster.getParties(v).getIdentityBinding())) {
        why = "its binding is not the one the roster carries for it";
      }
      if (why != null) {
        return "neighbour " + v + "'s identity key is not bound to a participant certificate of this deployment ("
            + why + "); the coordinator may have substituted keys, so this party stops";
      }
    }
    return null;
  }
}
