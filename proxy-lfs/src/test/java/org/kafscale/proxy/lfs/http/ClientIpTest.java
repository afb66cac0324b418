package org.kafscale.proxy.lfs.http;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.netty.handler.codec.http.DefaultHttpHeaders;
import java.net.InetSocketAddress;
import java.util.List;
import org.junit.jupiter.api.Test;

class ClientIpTest {
    private static final InetSocketAddress PEER = new InetSocketAddress("10.0.0.9", 41234);
    private static final TrustedProxies LOAD_BALANCERS = TrustedProxies.parse(List.of("10.0.0.0/24", "192.168.7.7"));

    @Test
    void aPeerTrustedByNoOneIsItsOwnAddressWhateverItSends() {
        assertEquals("10.0.0.9", ClientIp.of(new DefaultHttpHeaders().add("X-Forwarded-For", "1.2.3.4")
                .add("X-Real-IP", "9.9.9.9"), PEER, TrustedProxies.NONE));
        assertEquals("10.0.0.9", ClientIp.of(new DefaultHttpHeaders().add("X-Forwarded-For", "1.2.3.4"),
                PEER, TrustedProxies.parse(List.of("10.0.1.0/24"))));
    }

    @Test
    void aTrustedPeerNamesTheRightMostEntryThatIsNotATrustedProxy() {
        // The client wrote 6.6.6.6 itself; the load balancer appended 1.2.3.4, and a second trusted hop its own
        assertEquals("1.2.3.4", ClientIp.of(new DefaultHttpHeaders().add("X-Forwarded-For", "6.6.6.6, 1.2.3.4, 192.168.7.7")
                .add("X-Real-IP", "9.9.9.9"), PEER, LOAD_BALANCERS));
        assertEquals("10.0.0.1", ClientIp.of(new DefaultHttpHeaders().add("X-Forwarded-For", "10.0.0.1, 10.0.0.2"),
                PEER, LOAD_BALANCERS), "every entry a trusted proxy: the first");
    }

    @Test
    void aTrustedPeerWithoutForwardedForNamesItsRealIpThenItself() {
        assertEquals("9.9.9.9", ClientIp.of(new DefaultHttpHeaders().add("X-Real-IP", "9.9.9.9"), PEER, LOAD_BALANCERS));
        assertEquals("10.0.0.9", ClientIp.of(new DefaultHttpHeaders(), PEER, LOAD_BALANCERS));
    }

    @Test
    void ipv6PeerIsKeptWholeAndMatchedByItsBlock() {
        assertEquals("0:0:0:0:0:0:0:1", ClientIp.of(new DefaultHttpHeaders(), new InetSocketAddress("::1", 80),
                TrustedProxies.NONE));
        assertEquals("2001:db8::5", ClientIp.of(new DefaultHttpHeaders().add("X-Forwarded-For", "2001:db8::5"),
                new InetSocketAddress("::1", 80), TrustedProxies.parse(List.of("::1/128"))));
    }

    @Test
    void blocksThatAreNotAddressesAreRefusedNamingTheEntry() {
        IllegalArgumentException name = assertThrows(IllegalArgumentException.class,
                () -> TrustedProxies.parse(List.of("lb.example.com")));
        assertTrue(name.getMessage().contains("'lb.example.com'"), name.getMessage());
        IllegalArgumentException prefix = assertThrows(IllegalArgumentException.class,
                () -> TrustedProxies.parse(List.of("10.0.0.0/33")));
        assertTrue(prefix.getMessage().contains("'10.0.0.0/33'"), prefix.getMessage());
    }
}
