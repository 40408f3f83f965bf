package dev.helmet.status;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.InetAddress;
import org.junit.jupiter.api.Test;

/**
 * The status page's Host check on loopback (T3-4), with the attacker's read of that fix: IPv6
 * loopback was printed as [0:0:0:0:0:0:0:1] while browsers send [::1], so the page refused its own
 * browser. A Host names the bound address in any spelling of the literal, or localhost, with the
 * bound port; nothing else (no name lookups).
 */
class StatusHostTest {
  @Test
  void theBoundAddressInAnySpellingOrLocalhostPassesAndNothingElse() throws Exception {
    InetAddress v6 = InetAddress.getByName("::1");
    InetAddress v4 = InetAddress.getByName("127.0.0.1");
    assertTrue(StatusServer.addressedTo("[::1]:8080", v6, 8080));
    assertTrue(StatusServer.addressedTo("[0:0:0:0:0:0:0:1]:8080", v6, 8080));
    assertTrue(StatusServer.addressedTo("localhost:8080", v6, 8080));
    assertTrue(StatusServer.addressedTo("127.0.0.1:8080", v4, 8080));
    assertTrue(StatusServer.addressedTo("LOCALHOST:8080", v4, 8080));
    for (String bad : new String[] {"127.0.0.1:8081", "127.0.0.1", "attacker.example:8080", "localhost.:8080",
        "evil.localhost:8080", "127.1:8080", "2130706433:8080", "[::1]:8080", "localhost:08080", "[::1]"}) {
      assertFalse(StatusServer.addressedTo(bad, v4, 8080), bad);
    }
    assertFalse(StatusServer.addressedTo("127.0.0.1:8080", v6, 8080), "another loopback address");
  }

  @Test
  void ipv6IsPrintedCompressedAsBrowsersSendIt() throws Exception {
    assertEquals("::1", StatusServer.compressed(InetAddress.getByName("0:0:0:0:0:0:0:1")));
    assertEquals("2001:db8::1:0:0:1", StatusServer.compressed(InetAddress.getByName("2001:db8:0:0:1:0:0:1")));
    assertEquals("fe80::1", StatusServer.compressed(InetAddress.getByName("fe80:0:0:0:0:0:0:1")));
    assertEquals("2001:db8:1:2:3:4:5:6", StatusServer.compressed(InetAddress.getByName("2001:db8:1:2:3:4:5:6")));
  }
}
