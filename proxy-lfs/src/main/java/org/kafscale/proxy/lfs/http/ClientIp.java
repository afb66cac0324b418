package org.kafscale.proxy.lfs.http;

import io.netty.handler.codec.http.HttpHeaders;
import java.net.InetSocketAddress;
import java.net.SocketAddress;

/**
 * The client address of a request, which the per-client limits count and ops events report.
 * Only a peer among the {@link TrustedProxies} may name another: then it is the right-most
 * {@code X-Forwarded-For} entry that is not itself a trusted proxy (each proxy appends the address
 * it saw, so entries left of the last untrusted one are the client's to write), else that
 * header's first entry when every entry is a trusted proxy, else {@code X-Real-IP}. Every other
 * peer is its own address, whatever it sends. IPv6 peers are kept whole (the Go original cut
 * them at the first colon). Behind a load balancer that sends PROXY protocol headers, the peer is
 * the header's source (the handler passes {@code ClientAddress.of}).
 */
final class ClientIp {
    private ClientIp() {
    }

    static String of(HttpHeaders headers, SocketAddress peer, TrustedProxies trusted) {
        if (!(peer instanceof InetSocketAddress inet)) {
            return "";
        }
        if (inet.getAddress() == null) {
            return inet.getHostString();
        }
        String own = inet.getAddress().getHostAddress();
        if (trusted.isEmpty() || !trusted.contains(inet.getAddress())) {
            return own;
        }
        String forwarded = headers.get("X-Forwarded-For");
        if (forwarded != null && !forwarded.isBlank()) {
            String[] entries = forwarded.split(",");
            for (int i = entries.length - 1; i >= 0; i--) {
                String entry = entries[i].trim();
                if (!entry.isEmpty() && !trusted.containsLiteral(entry)) {
                    return entry;
                }
            }
            return entries[0].trim();
        }
        String real = headers.get("X-Real-IP");
        if (real != null && !real.isBlank()) {
            return real.trim();
        }
        return own;
    }
}
