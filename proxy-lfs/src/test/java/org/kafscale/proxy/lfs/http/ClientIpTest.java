package org.kafscale.proxy.lfs.http;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.netty.handler.codec.http.DefaultHttpHeaders;
import java.net.InetSocketAddress;
import org.junit.jupiter.api.Test;

class ClientIpTest {
    private static final InetSocketAddress PEER = new InetSocketAddress("10.0.0.9", 41234);

    @Test
    void firstForwardedForEntryWins() {
        assertEquals("1.2.3.4", ClientIp.of(new DefaultHttpHeaders().add("X-Forwarded-For", "1.2.3.4, 5.6.7.8")
                .add("X-Real-IP", "9.9.9.9"), PEER));
    }

    @Test
    void realIpThenPeerAddress() {
        assertEquals("9.9.9.9", ClientIp.of(new DefaultHttpHeaders().add("X-Real-IP", "9.9.9.9"), PEER));
        assertEquals("10.0.0.9", ClientIp.of(new DefaultHttpHeaders(), PEER));
    }

    @Test
    void ipv6PeerIsKeptWhole() {
        assertEquals("0:0:0:0:0:0:0:1", ClientIp.of(new DefaultHttpHeaders(), new InetSocketAddress("::1", 80)));
    }
}
