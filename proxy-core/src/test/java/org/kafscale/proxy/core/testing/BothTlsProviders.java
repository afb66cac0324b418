package org.kafscale.proxy.core.testing;

import io.netty.handler.ssl.SslProvider;
import java.util.stream.Stream;
import org.kafscale.proxy.core.security.tls.TlsProvider;

/**
 * The two TLS implementations a TLS test runs on ({@code @MethodSource}): what the proxy does
 * with TLS must not depend on which one the process chose.
 */
public final class BothTlsProviders {
    public static final TlsProvider OPENSSL = new TlsProvider(SslProvider.OPENSSL, "a test runs on it");
    public static final TlsProvider JDK = new TlsProvider(SslProvider.JDK, "a test runs on it");

    private BothTlsProviders() {
    }

    /** OpenSSL (BoringSSL), then the JDK. */
    public static Stream<TlsProvider> both() {
        return Stream.of(OPENSSL, JDK);
    }
}
