package org.kafscale.proxy.app.config;

import java.nio.file.Path;
import java.security.NoSuchAlgorithmException;
import java.time.Duration;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLParameters;
import org.apache.kafka.common.security.ssl.SslPrincipalMapper;
import org.kafscale.proxy.core.security.tls.ListenerTls;
import org.kafscale.proxy.core.security.tls.ListenerTlsSettings;
import org.kafscale.proxy.core.security.tls.ListenerTlsSettings.ClientCertificates;
import org.kafscale.proxy.core.security.tls.ListenerTlsSettings.KeyMaterial;
import org.kafscale.proxy.core.security.tls.TlsMaterialException;
import org.kafscale.proxy.core.security.tls.TlsProvider;

/**
 * The Kafka listener's TLS settings ({@code KAFSCALE_PROXY_TLS_*}), checked the way a wrong
 * setting must never become an open door: a TLS file set while TLS is off, a certificate without
 * its key, a client-certificate requirement without a CA, a protocol or cipher the JVM does not
 * have, mapping rules that do not parse, and files that cannot be read or used each stop start-up
 * naming the setting. The certificate is built once here, before anything binds.
 */
final class ListenerTlsConfig {
    /** Settings that only mean something with TLS on: set while it is off, they are a mistake. */
    private static final List<ConfigKey> NEED_TLS = List.of(ConfigKey.TLS_CERT_FILE, ConfigKey.TLS_KEY_FILE,
            ConfigKey.TLS_KEY_PASSWORD, ConfigKey.TLS_KEYSTORE_FILE, ConfigKey.TLS_KEYSTORE_PASSWORD,
            ConfigKey.TLS_CLIENT_CA_FILE);

    private ListenerTlsConfig() {
    }

    static Optional<ListenerTlsSettings> from(Settings s, TlsProvider provider) {
        String enabled = ConfigKey.TLS_ENABLED.envName();
        if (!s.bool(enabled, false)) {
            for (ConfigKey key : NEED_TLS) {
                if (s.string(key).isPresent()) {
                    throw new ConfigException(key.envName() + " is set but " + enabled + " is not true: the Kafka "
                            + "listener would be plaintext. Set " + enabled + "=true, or unset " + key.envName());
                }
            }
            return Optional.empty();
        }
        KeyMaterial keyMaterial = keyMaterial(s);
        Optional<Path> clientCa = s.existingFile(ConfigKey.TLS_CLIENT_CA_FILE.envName());
        ClientCertificates clientCertificates = clientCertificates(s, clientCa);
        List<String> protocols = protocols(s);
        List<String> ciphers = ciphers(s);
        String rules = s.stringOrDefault(ConfigKey.TLS_PRINCIPAL_MAPPING_RULES);
        try {
            SslPrincipalMapper.fromRules(rules);
        } catch (IllegalArgumentException e) {
            throw ConfigException.invalid(ConfigKey.TLS_PRINCIPAL_MAPPING_RULES.envName(), rules,
                    "expected Kafka's ssl.principal.mapping.rules syntax (" + e.getMessage() + ")");
        }
        ListenerTlsSettings settings = new ListenerTlsSettings(keyMaterial, clientCa, clientCertificates, protocols,
                ciphers, rules, Duration.ofMillis(s.longValue(ConfigKey.TLS_HANDSHAKE_TIMEOUT_MS)),
                Duration.ofMillis(s.longValue(ConfigKey.TLS_RELOAD_INTERVAL_MS)), provider);
        try {
            ListenerTls.check(settings);
        } catch (TlsMaterialException e) {
            throw new ConfigException(settingOf(e.part()).envName() + "=" + e.file() + " is invalid: "
                    + e.getMessage());
        }
        return Optional.of(settings);
    }

    private static KeyMaterial keyMaterial(Settings s) {
        Optional<Path> store = s.existingFile(ConfigKey.TLS_KEYSTORE_FILE.envName());
        Optional<Path> cert = s.existingFile(ConfigKey.TLS_CERT_FILE.envName());
        Optional<Path> key = s.existingFile(ConfigKey.TLS_KEY_FILE.envName());
        if (store.isPresent()) {
            if (cert.isPresent() || key.isPresent()) {
                throw new ConfigException(ConfigKey.TLS_KEYSTORE_FILE.envName() + " and "
                        + ConfigKey.TLS_CERT_FILE.envName() + "/" + ConfigKey.TLS_KEY_FILE.envName()
                        + " are both set: give the listener's certificate one way");
            }
            String password = s.string(ConfigKey.TLS_KEYSTORE_PASSWORD).orElseThrow(() -> new ConfigException(
                    ConfigKey.TLS_KEYSTORE_PASSWORD.envName() + " is required with "
                            + ConfigKey.TLS_KEYSTORE_FILE.envName()));
            String type = s.oneOf(ConfigKey.TLS_KEYSTORE_TYPE, List.of("PKCS12", "JKS"));
            return new KeyMaterial.KeyStoreFile(store.get(), password, type);
        }
        if (cert.isEmpty()) {
            throw new ConfigException(ConfigKey.TLS_CERT_FILE.envName() + " (with " + ConfigKey.TLS_KEY_FILE.envName()
                    + ") or " + ConfigKey.TLS_KEYSTORE_FILE.envName() + " is required when "
                    + ConfigKey.TLS_ENABLED.envName() + " is true");
        }
        if (key.isEmpty()) {
            throw new ConfigException(ConfigKey.TLS_KEY_FILE.envName() + " is required with "
                    + ConfigKey.TLS_CERT_FILE.envName());
        }
        return new KeyMaterial.Pem(cert.get(), key.get(), s.string(ConfigKey.TLS_KEY_PASSWORD));
    }

    private static ClientCertificates clientCertificates(Settings s, Optional<Path> clientCa) {
        String require = ConfigKey.TLS_REQUIRE_CLIENT_CERT.envName();
        boolean required = s.bool(require, true);
        if (clientCa.isEmpty()) {
            if (s.string(require).isPresent() && required) {
                throw new ConfigException(require + " is true but " + ConfigKey.TLS_CLIENT_CA_FILE.envName()
                        + " is not set: name the CA that signs client certificates");
            }
            return ClientCertificates.NONE;
        }
        return required ? ClientCertificates.REQUIRED : ClientCertificates.OPTIONAL;
    }

    /** {@code KAFSCALE_PROXY_TLS_PROTOCOLS}, each one the JVM has. */
    static List<String> protocols(Settings s) {
        return supported(s, ConfigKey.TLS_PROTOCOLS, Set.of(defaults().getProtocols()), "protocols");
    }

    /** {@code KAFSCALE_PROXY_TLS_CIPHERS}, each one the JVM has; empty: the provider's defaults. */
    static List<String> ciphers(Settings s) {
        return supported(s, ConfigKey.TLS_CIPHERS, Set.of(defaults().getCipherSuites()), "cipher suites");
    }

    /** The listed names, each checked against what the JVM supports; empty when the key is unset and has no default. */
    private static List<String> supported(Settings s, ConfigKey key, Set<String> available, String what) {
        List<String> names = s.string(key).isPresent() ? s.list(key.envName())
                : key.defaultValue().map(d -> List.of(d.split(","))).orElse(List.of());
        for (String name : names) {
            if (!available.contains(name)) {
                throw ConfigException.invalid(key.envName(), String.join(",", names),
                        name + " is not among the JVM's " + what + " " + available);
            }
        }
        return names;
    }

    private static SSLParameters defaults() {
        try {
            return SSLContext.getDefault().getSupportedSSLParameters();
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("the JVM has no default TLS context", e);
        }
    }

    private static ConfigKey settingOf(TlsMaterialException.Part part) {
        Map<TlsMaterialException.Part, ConfigKey> keys = new EnumMap<>(TlsMaterialException.Part.class);
        keys.put(TlsMaterialException.Part.CERTIFICATE, ConfigKey.TLS_CERT_FILE);
        keys.put(TlsMaterialException.Part.PRIVATE_KEY, ConfigKey.TLS_KEY_FILE);
        keys.put(TlsMaterialException.Part.KEY_STORE, ConfigKey.TLS_KEYSTORE_FILE);
        keys.put(TlsMaterialException.Part.CLIENT_CA, ConfigKey.TLS_CLIENT_CA_FILE);
        return keys.get(part);
    }
}
