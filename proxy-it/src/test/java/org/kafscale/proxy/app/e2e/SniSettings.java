package org.kafscale.proxy.app.e2e;

import java.util.HashMap;
import java.util.Map;
import org.apache.kafka.clients.CommonClientConfigs;
import org.apache.kafka.common.config.SslConfigs;
import org.kafscale.proxy.app.config.ProxyConfig;
import org.kafscale.proxy.testkit.TestCertificates;

/** What the tests of advertise mode sni set: the proxy's TLS and SNI names, and their clients' TLS. */
final class SniSettings {
    private SniSettings() {
    }

    /** A proxy serving TLS with {@code server}'s certificate, brokers by name under the two SNI settings. */
    static Map<String, String> proxy(TestCertificates.Identity server, String bootstrapHost, String brokerPattern) {
        Map<String, String> env = new HashMap<>();
        env.put(ProxyConfig.TLS_ENABLED, "true");
        env.put(ProxyConfig.TLS_CERT_FILE, server.chainFile().toString());
        env.put(ProxyConfig.TLS_KEY_FILE, server.keyFile().toString());
        env.put(ProxyConfig.ADVERTISED_HOST, bootstrapHost);
        env.put(ProxyConfig.SNI_BOOTSTRAP_HOST, bootstrapHost);
        env.put(ProxyConfig.SNI_BROKER_HOST_PATTERN, brokerPattern);
        return env;
    }

    /** TLS trusting {@code ca}, with the clients' default hostname verification left on. */
    static Map<String, Object> clientTls(TestCertificates ca) {
        return Map.of(CommonClientConfigs.SECURITY_PROTOCOL_CONFIG, "SSL",
                SslConfigs.SSL_TRUSTSTORE_LOCATION_CONFIG, ca.trustStoreFile().toString(),
                SslConfigs.SSL_TRUSTSTORE_PASSWORD_CONFIG, TestCertificates.PASSWORD,
                SslConfigs.SSL_TRUSTSTORE_TYPE_CONFIG, "PKCS12");
    }
}
