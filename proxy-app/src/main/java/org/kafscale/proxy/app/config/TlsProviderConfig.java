package org.kafscale.proxy.app.config;

import java.util.List;
import org.kafscale.proxy.core.security.tls.TlsProvider;
import org.kafscale.proxy.core.security.tls.TlsProviderChoice;

/**
 * Reads {@code KAFSCALE_PROXY_TLS_PROVIDER} and chooses the one TLS implementation of the process
 * ({@link TlsProviderChoice}), against the Kafka listener's protocols and cipher suites when its
 * TLS is on. {@code openssl} that cannot be honoured stops start-up naming the setting.
 */
final class TlsProviderConfig {
    private TlsProviderConfig() {
    }

    static TlsProvider from(Settings s) {
        String key = ConfigKey.TLS_PROVIDER.envName();
        String value = s.oneOf(ConfigKey.TLS_PROVIDER, List.of("auto", "openssl", "jdk"));
        boolean listenerTls = s.bool(ConfigKey.TLS_ENABLED.envName(), false);
        List<String> protocols = listenerTls ? ListenerTlsConfig.protocols(s) : List.of();
        List<String> ciphers = listenerTls ? ListenerTlsConfig.ciphers(s) : List.of();
        TlsProvider chosen;
        try {
            chosen = TlsProviderChoice.choose(TlsProviderChoice.Mode.parse(value), protocols, ciphers);
        } catch (IllegalArgumentException e) {
            throw new ConfigException(key + "=" + value + " cannot be used: " + e.getMessage()
                    + "; set it to auto or jdk");
        }
        return new TlsProvider(chosen.sslProvider(), key + "=" + value + ", " + chosen.reason());
    }
}
