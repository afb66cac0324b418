package org.kafscale.proxy.lfs.http;

import io.netty.handler.codec.http.HttpHeaders;
import java.net.InetSocketAddress;
import java.net.SocketAddress;

/**
 * The client address reported in ops events: the first {@code X-Forwarded-For} entry, else
 * {@code X-Real-IP}, else the peer's address (spec §4.13; IPv6 peers are kept whole here, where
 * the original cut them at the first colon). Behind a load balancer that sends PROXY protocol
 * headers, the peer is the header's source (the handler passes {@code ClientAddress.of}).
 */
final class ClientIp {
    private ClientIp() {
    }

    static String of(HttpHeaders headers, SocketAddress peer) {
        String forwarded = headers.get("X-Forwarded-For");
        if (forwarded != null && !forwarded.isBlank()) {
            return forwarded.split(",", 2)[0].trim();
        }
        String real = headers.get("X-Real-IP");
        if (real != null && !real.isBlank()) {
            return real.trim();
        }
        if (peer instanceof InetSocketAddress inet) {
            return inet.getAddress() == null ? inet.getHostString() : inet.getAddress().getHostAddress();
        }
        return "";
    }
}
