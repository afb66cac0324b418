package org.kafscale.proxy.lfs.http;

import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import org.kafscale.proxy.core.proxyprotocol.ProxyProtocolMode;

/**
 * The LFS listener.
 *
 * @param address where to listen
 * @param apiKey the API key every {@code /lfs/*} request must carry, or empty for none
 * @param readIdleTimeout a connection that sends nothing for this long is closed. Unlike Go's
 *                        ReadTimeout it does not bound a whole upload, so large bodies over slow
 *                        links are not cut off while they keep moving
 * @param writeIdleTimeout a response that cannot be written for this long closes the connection
 * @param idleTimeout a keep-alive connection with no request for this long is closed
 * @param headerTimeout the request head must arrive within this time
 * @param maxHeaderBytes the largest request head accepted
 * @param shutdownTimeout how long in-flight requests may take to finish at shutdown
 * @param tls HTTPS settings, empty for plain HTTP
 * @param allowedOrigins the browser origins allowed cross-origin access (CORS; exact origins, or
 *                       {@code *}); empty for none
 * @param proxyProtocol whether connections start with a PROXY protocol header
 * @param trustedProxies the peers whose X-Forwarded-For and X-Real-IP name the client (see {@code ClientIp})
 */
public record HttpSettings(InetSocketAddress address, String apiKey, Duration readIdleTimeout,
                           Duration writeIdleTimeout, Duration idleTimeout, Duration headerTimeout,
                           int maxHeaderBytes, Duration shutdownTimeout, Optional<TlsSettings> tls,
                           List<String> allowedOrigins, ProxyProtocolMode proxyProtocol,
                           TrustedProxies trustedProxies) {
    public HttpSettings {
        trustedProxies = trustedProxies == null ? TrustedProxies.NONE : trustedProxies;
        apiKey = apiKey == null ? "" : apiKey;
        allowedOrigins = allowedOrigins == null ? List.of() : List.copyOf(allowedOrigins);
        proxyProtocol = proxyProtocol == null ? ProxyProtocolMode.OFF : proxyProtocol;
    }

    /** No trusted proxies: every peer is its own client address. */
    public HttpSettings(InetSocketAddress address, String apiKey, Duration readIdleTimeout, Duration writeIdleTimeout,
                        Duration idleTimeout, Duration headerTimeout, int maxHeaderBytes, Duration shutdownTimeout,
                        Optional<TlsSettings> tls, List<String> allowedOrigins, ProxyProtocolMode proxyProtocol) {
        this(address, apiKey, readIdleTimeout, writeIdleTimeout, idleTimeout, headerTimeout, maxHeaderBytes,
                shutdownTimeout, tls, allowedOrigins, proxyProtocol, TrustedProxies.NONE);
    }

    /** No PROXY protocol. */
    public HttpSettings(InetSocketAddress address, String apiKey, Duration readIdleTimeout, Duration writeIdleTimeout,
                        Duration idleTimeout, Duration headerTimeout, int maxHeaderBytes, Duration shutdownTimeout,
                        Optional<TlsSettings> tls, List<String> allowedOrigins) {
        this(address, apiKey, readIdleTimeout, writeIdleTimeout, idleTimeout, headerTimeout, maxHeaderBytes,
                shutdownTimeout, tls, allowedOrigins, ProxyProtocolMode.OFF);
    }

    /** No cross-origin access. */
    public HttpSettings(InetSocketAddress address, String apiKey, Duration readIdleTimeout, Duration writeIdleTimeout,
                        Duration idleTimeout, Duration headerTimeout, int maxHeaderBytes, Duration shutdownTimeout,
                        Optional<TlsSettings> tls) {
        this(address, apiKey, readIdleTimeout, writeIdleTimeout, idleTimeout, headerTimeout, maxHeaderBytes,
                shutdownTimeout, tls, List.of());
    }

    /** Plain HTTP on {@code address} with the defaults of spec §1.4 and no API key. */
    public static HttpSettings defaults(InetSocketAddress address) {
        return new HttpSettings(address, "", Duration.ofSeconds(30), Duration.ofSeconds(300), Duration.ofSeconds(60),
                Duration.ofSeconds(10), 1 << 20, Duration.ofSeconds(10), Optional.empty());
    }

    public HttpSettings withApiKey(String key) {
        return new HttpSettings(address, key, readIdleTimeout, writeIdleTimeout, idleTimeout, headerTimeout,
                maxHeaderBytes, shutdownTimeout, tls, allowedOrigins, proxyProtocol, trustedProxies);
    }

    public HttpSettings withProxyProtocol(ProxyProtocolMode mode) {
        return new HttpSettings(address, apiKey, readIdleTimeout, writeIdleTimeout, idleTimeout, headerTimeout,
                maxHeaderBytes, shutdownTimeout, tls, allowedOrigins, mode, trustedProxies);
    }

    public HttpSettings withTls(TlsSettings settings) {
        return new HttpSettings(address, apiKey, readIdleTimeout, writeIdleTimeout, idleTimeout, headerTimeout,
                maxHeaderBytes, shutdownTimeout, Optional.of(settings), allowedOrigins, proxyProtocol, trustedProxies);
    }

    public HttpSettings withTrustedProxies(TrustedProxies proxies) {
        return new HttpSettings(address, apiKey, readIdleTimeout, writeIdleTimeout, idleTimeout, headerTimeout,
                maxHeaderBytes, shutdownTimeout, tls, allowedOrigins, proxyProtocol, proxies);
    }
}
