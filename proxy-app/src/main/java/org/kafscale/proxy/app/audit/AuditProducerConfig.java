package org.kafscale.proxy.app.audit;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.util.HashMap;
import java.util.Map;
import java.util.stream.Collectors;
import org.apache.kafka.clients.CommonClientConfigs;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.common.config.SaslConfigs;
import org.apache.kafka.common.config.SslConfigs;
import org.kafscale.proxy.core.backend.security.BackendSaslSettings;
import org.kafscale.proxy.core.backend.security.BackendSecurity;
import org.kafscale.proxy.core.backend.security.BackendTlsSettings;
import org.kafscale.proxy.core.topology.BrokerEndpoint;
import org.kafscale.proxy.core.topology.Topology;

/**
 * The configuration of the audit topic's producer: the brokers the topology knows when it is made,
 * and the proxy's own TLS and SASL towards them (KAFSCALE_PROXY_BACKEND_*), so the trail needs no
 * credentials of its own. Its timeouts are short: a topic that cannot be written makes the sink
 * down within seconds, not after Kafka's two-minute delivery timeout.
 */
final class AuditProducerConfig {
    private AuditProducerConfig() {
    }

    static Map<String, Object> of(Topology topology, BackendSecurity security) {
        Map<String, Object> config = new HashMap<>();
        String bootstrap = topology.snapshot().brokers().values().stream().map(BrokerEndpoint::address)
                .collect(Collectors.joining(","));
        if (bootstrap.isEmpty()) {
            throw new IllegalStateException("the topology knows no broker yet");
        }
        config.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        config.put(ProducerConfig.CLIENT_ID_CONFIG, "kafscale-proxy-audit");
        config.put(ProducerConfig.ACKS_CONFIG, "all");
        config.put(ProducerConfig.LINGER_MS_CONFIG, 5);
        config.put(ProducerConfig.MAX_BLOCK_MS_CONFIG, 10_000);
        config.put(ProducerConfig.REQUEST_TIMEOUT_MS_CONFIG, 10_000);
        config.put(ProducerConfig.DELIVERY_TIMEOUT_MS_CONFIG, 20_000);
        config.put(CommonClientConfigs.SECURITY_PROTOCOL_CONFIG, security.protocol());
        security.tls().ifPresent(tls -> tls(config, tls));
        security.sasl().ifPresent(sasl -> sasl(config, sasl));
        return config;
    }

    private static void tls(Map<String, Object> config, BackendTlsSettings tls) {
        if (tls.caFile() != null) {
            config.put(SslConfigs.SSL_TRUSTSTORE_TYPE_CONFIG, "PEM");
            config.put(SslConfigs.SSL_TRUSTSTORE_LOCATION_CONFIG, tls.caFile().toString());
        }
        if (tls.certFile() != null) {
            config.put(SslConfigs.SSL_KEYSTORE_TYPE_CONFIG, "PEM");
            config.put(SslConfigs.SSL_KEYSTORE_CERTIFICATE_CHAIN_CONFIG, read(tls.certFile()));
            config.put(SslConfigs.SSL_KEYSTORE_KEY_CONFIG, read(tls.keyFile()));
        }
        if (!tls.verifyHostname()) {
            config.put(SslConfigs.SSL_ENDPOINT_IDENTIFICATION_ALGORITHM_CONFIG, "");
        }
    }

    private static void sasl(Map<String, Object> config, BackendSaslSettings sasl) {
        config.put(SaslConfigs.SASL_MECHANISM, sasl.mechanism());
        if (sasl.isOAuthBearer()) {
            BackendSaslSettings.OAuthClientCredentials oauth = sasl.oauth();
            config.put(SaslConfigs.SASL_OAUTHBEARER_TOKEN_ENDPOINT_URL, oauth.tokenEndpoint().toString());
            config.put(SaslConfigs.SASL_LOGIN_CALLBACK_HANDLER_CLASS,
                    "org.apache.kafka.common.security.oauthbearer.OAuthBearerLoginCallbackHandler");
            config.put(SaslConfigs.SASL_JAAS_CONFIG, "org.apache.kafka.common.security.oauthbearer.OAuthBearerLoginModule"
                    + " required clientId=" + quoted(oauth.clientId()) + " clientSecret=" + quoted(oauth.clientSecret())
                    + (oauth.scope() == null ? "" : " scope=" + quoted(oauth.scope())) + ";");
            return;
        }
        String module = sasl.mechanism().equals("PLAIN") ? "org.apache.kafka.common.security.plain.PlainLoginModule"
                : "org.apache.kafka.common.security.scram.ScramLoginModule";
        config.put(SaslConfigs.SASL_JAAS_CONFIG, module + " required username=" + quoted(sasl.username())
                + " password=" + quoted(sasl.password()) + ";");
    }

    /** A JAAS option value: quoted, with its quotes and backslashes escaped. */
    static String quoted(String value) {
        return "\"" + value.replace("\\", "\\\\").replace("\"", "\\\"") + "\"";
    }

    private static String read(java.nio.file.Path file) {
        try {
            return Files.readString(file);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
