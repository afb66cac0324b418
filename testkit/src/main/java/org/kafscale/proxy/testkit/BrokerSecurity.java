package org.kafscale.proxy.testkit;

import java.net.URI;
import java.util.HashMap;
import java.util.List;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import org.apache.kafka.clients.CommonClientConfigs;
import org.apache.kafka.common.config.SaslConfigs;
import org.apache.kafka.common.config.SslConfigs;
import org.apache.kafka.common.security.auth.SecurityProtocol;

/**
 * How the brokers of a {@link KafkaCluster} secure their client listener: PLAINTEXT, SSL,
 * SASL_PLAINTEXT or SASL_SSL, with PLAIN and SCRAM users the test names. The brokers talk to each
 * other on the same listener as {@link #ADMIN_USER} over PLAIN (SCRAM users exist only once the
 * cluster runs; {@link KafkaCluster} creates them then). The controller listener stays plaintext.
 *
 * <p>SASL listeners enable PLAIN, SCRAM-SHA-256 and SCRAM-SHA-512 (and OAUTHBEARER with {@link
 * #withOAuthBearer}); each SCRAM user gets both SCRAM credentials. There is no authorizer: any authenticated user may do anything.
 */
public final class BrokerSecurity {
    /** The brokers' own user, and the admin client's; a PLAIN user on every SASL listener. */
    public static final String ADMIN_USER = "admin";
    public static final String ADMIN_PASSWORD = "admin-secret";
    /** The listener name Kafka's test kit gives the brokers' client listener. */
    static final String LISTENER = "EXTERNAL";
    private static final String MECHANISMS = "PLAIN,SCRAM-SHA-256,SCRAM-SHA-512";

    private final SecurityProtocol protocol;
    private final TestCertificates certificates;
    private final boolean requireClientCertificates;
    private final Map<String, String> plainUsers;
    private final Map<String, String> scramUsers;
    /** The JWKS the listener validates OAUTHBEARER tokens against; null: no OAUTHBEARER. */
    private final URI jwks;
    /** Whether every node runs Kafka's StandardAuthorizer ({@link #withAuthorizer}). */
    private final boolean authorizer;

    private BrokerSecurity(SecurityProtocol protocol, TestCertificates certificates, boolean requireClientCertificates,
                           Map<String, String> plainUsers, Map<String, String> scramUsers, URI jwks) {
        this(protocol, certificates, requireClientCertificates, plainUsers, scramUsers, jwks, false);
    }

    private BrokerSecurity(SecurityProtocol protocol, TestCertificates certificates, boolean requireClientCertificates,
                           Map<String, String> plainUsers, Map<String, String> scramUsers, URI jwks,
                           boolean authorizer) {
        this.authorizer = authorizer;
        this.protocol = protocol;
        this.certificates = certificates;
        this.requireClientCertificates = requireClientCertificates;
        this.plainUsers = Map.copyOf(plainUsers);
        this.scramUsers = Map.copyOf(scramUsers);
        this.jwks = jwks;
    }

    /** No TLS, no authentication (the default of {@link KafkaCluster#start(int)}). */
    public static BrokerSecurity plaintext() {
        return new BrokerSecurity(SecurityProtocol.PLAINTEXT, null, false, Map.of(), Map.of(), null);
    }

    /** TLS with {@code certificates}' server certificate; no client certificate asked for. */
    public static BrokerSecurity ssl(TestCertificates certificates) {
        return new BrokerSecurity(SecurityProtocol.SSL, certificates, false, Map.of(), Map.of(), null);
    }

    /** SASL without TLS; only {@link #ADMIN_USER} until users are added. */
    public static BrokerSecurity saslPlaintext() {
        return new BrokerSecurity(SecurityProtocol.SASL_PLAINTEXT, null, false, Map.of(), Map.of(), null);
    }

    /** SASL over TLS with {@code certificates}' server certificate; only {@link #ADMIN_USER} until users are added. */
    public static BrokerSecurity saslSsl(TestCertificates certificates) {
        return new BrokerSecurity(SecurityProtocol.SASL_SSL, certificates, false, Map.of(), Map.of(), null);
    }

    /** The same, with a PLAIN user. */
    public BrokerSecurity withPlainUser(String user, String password) {
        requireSasl();
        Map<String, String> users = new HashMap<>(plainUsers);
        users.put(user, password);
        return new BrokerSecurity(protocol, certificates, requireClientCertificates, users, scramUsers, jwks, authorizer);
    }

    /** The same, with a SCRAM user (SHA-256 and SHA-512 credentials), created once the cluster runs. */
    public BrokerSecurity withScramUser(String user, String password) {
        requireSasl();
        Map<String, String> users = new HashMap<>(scramUsers);
        users.put(user, password);
        return new BrokerSecurity(protocol, certificates, requireClientCertificates, plainUsers, users, jwks, authorizer);
    }

    /**
     * The same, with OAUTHBEARER enabled too: tokens are validated by kafka-clients'
     * {@code OAuthBearerValidatorCallbackHandler} against the JSON Web Key Set at {@code jwks}
     * (which must answer when the cluster starts). The URL is added to the JVM's allowed URLs
     * ({@code org.apache.kafka.sasl.oauthbearer.allowed.urls}, which Kafka 4 requires). A token's
     * expiry ends the broker's session (KIP-368), with or without {@code connections.max.reauth.ms}.
     */
    public BrokerSecurity withOAuthBearer(URI jwks) {
        requireSasl();
        return new BrokerSecurity(protocol, certificates, requireClientCertificates, plainUsers, scramUsers, jwks, authorizer);
    }

    /** The same, TLS requiring a client certificate signed by the test CA (mTLS). */
    public BrokerSecurity requiringClientCertificates() {
        if (certificates == null) {
            throw new IllegalStateException(protocol + " has no TLS to ask for client certificates");
        }
        return new BrokerSecurity(protocol, certificates, true, plainUsers, scramUsers, jwks, authorizer);
    }

    /**
     * The same, every node (the controller too, which stores ACLs) running Kafka's StandardAuthorizer,
     * so the ACL APIs store and list ACLs instead of answering SECURITY_DISABLED. The anonymous
     * principal (the nodes' own on a plaintext listener, and a plaintext client's) and {@link
     * #ADMIN_USER} are super users, and a resource without ACLs is open to all: the ACLs are kept,
     * and decide only what other principals may do.
     */
    public BrokerSecurity withAuthorizer() {
        return new BrokerSecurity(protocol, certificates, requireClientCertificates, plainUsers, scramUsers, jwks, true);
    }

    public SecurityProtocol protocol() {
        return protocol;
    }

    /** The CA and certificates of a TLS listener; {@code null} without TLS. */
    public TestCertificates certificates() {
        return certificates;
    }

    public boolean requiresClientCertificates() {
        return requireClientCertificates;
    }

    /** SCRAM users to create once the cluster runs, user to password. */
    public Map<String, String> scramUsers() {
        return scramUsers;
    }

    /**
     * Client properties for a direct connection to the brokers as {@code user} with {@code mechanism}
     * (ignored without SASL), trusting the test CA, presenting a client certificate when the
     * listener requires one.
     */
    public Map<String, Object> clientProperties(String mechanism, String user, String password) {
        Map<String, Object> props = new LinkedHashMap<>();
        props.put(CommonClientConfigs.SECURITY_PROTOCOL_CONFIG, protocol.name);
        if (certificates != null) {
            props.put(SslConfigs.SSL_TRUSTSTORE_LOCATION_CONFIG, certificates.trustStoreFile().toString());
            props.put(SslConfigs.SSL_TRUSTSTORE_PASSWORD_CONFIG, TestCertificates.PASSWORD);
            props.put(SslConfigs.SSL_TRUSTSTORE_TYPE_CONFIG, "PKCS12");
            if (requireClientCertificates) {
                TestCertificates.Identity client = certificates.client(user == null ? "client" : user);
                props.put(SslConfigs.SSL_KEYSTORE_LOCATION_CONFIG, client.keyStoreFile().toString());
                props.put(SslConfigs.SSL_KEYSTORE_PASSWORD_CONFIG, TestCertificates.PASSWORD);
                props.put(SslConfigs.SSL_KEYSTORE_TYPE_CONFIG, "PKCS12");
            }
        }
        if (isSasl()) {
            props.put(SaslConfigs.SASL_MECHANISM, mechanism);
            props.put(SaslConfigs.SASL_JAAS_CONFIG, jaas(mechanism, user, password));
        }
        return props;
    }

    /** Client properties for the cluster's admin user over PLAIN (or no user without SASL). */
    public Map<String, Object> adminClientProperties() {
        return clientProperties("PLAIN", ADMIN_USER, ADMIN_PASSWORD);
    }

    /** The broker properties that set this up on the test kit's listener. */
    Map<String, String> brokerProperties() {
        Map<String, String> props = new LinkedHashMap<>();
        if (authorizer) {
            props.put("authorizer.class.name", "org.apache.kafka.metadata.authorizer.StandardAuthorizer");
            props.put("super.users", "User:ANONYMOUS;User:" + ADMIN_USER);
            props.put("allow.everyone.if.no.acl.found", "true");
        }
        if (protocol == SecurityProtocol.PLAINTEXT) {
            return props;
        }
        // The kit only fills this in when the test has not: its own SASL set-up adds an authorizer.
        props.put("listener.security.protocol.map", LISTENER + ":" + protocol.name + ",CONTROLLER:PLAINTEXT");
        if (certificates != null) {
            TestCertificates.Identity server = certificates.server();
            props.put(SslConfigs.SSL_KEYSTORE_LOCATION_CONFIG, server.keyStoreFile().toString());
            props.put(SslConfigs.SSL_KEYSTORE_PASSWORD_CONFIG, TestCertificates.PASSWORD);
            props.put(SslConfigs.SSL_KEY_PASSWORD_CONFIG, TestCertificates.PASSWORD);
            props.put(SslConfigs.SSL_KEYSTORE_TYPE_CONFIG, "PKCS12");
            props.put(SslConfigs.SSL_TRUSTSTORE_LOCATION_CONFIG, certificates.trustStoreFile().toString());
            props.put(SslConfigs.SSL_TRUSTSTORE_PASSWORD_CONFIG, TestCertificates.PASSWORD);
            props.put(SslConfigs.SSL_TRUSTSTORE_TYPE_CONFIG, "PKCS12");
            // A SASL_SSL listener ignores ssl.client.auth unless it carries the listener's prefix.
            String clientAuth = requireClientCertificates ? "required" : "none";
            props.put("ssl.client.auth", clientAuth);
            props.put("listener.name." + LISTENER.toLowerCase(Locale.ROOT) + ".ssl.client.auth", clientAuth);
        }
        if (isSasl()) {
            String prefix = "listener.name." + LISTENER.toLowerCase(Locale.ROOT) + ".";
            props.put("sasl.enabled.mechanisms", jwks == null ? MECHANISMS : MECHANISMS + ",OAUTHBEARER");
            props.put("sasl.mechanism.inter.broker.protocol", "PLAIN");
            StringBuilder plain = new StringBuilder("org.apache.kafka.common.security.plain.PlainLoginModule required")
                    .append(" username=\"").append(ADMIN_USER).append("\" password=\"").append(ADMIN_PASSWORD).append('"')
                    .append(" user_").append(ADMIN_USER).append("=\"").append(ADMIN_PASSWORD).append('"');
            plainUsers.forEach((user, password) -> plain.append(" user_").append(user).append("=\"").append(password).append('"'));
            props.put(prefix + "plain.sasl.jaas.config", plain.append(';').toString());
            String scram = jaas("SCRAM-SHA-512", ADMIN_USER, ADMIN_PASSWORD);
            props.put(prefix + "scram-sha-256.sasl.jaas.config", scram);
            props.put(prefix + "scram-sha-512.sasl.jaas.config", scram);
            if (jwks != null) {
                allowUrl(jwks.toString());
                props.put(prefix + "oauthbearer.sasl.jaas.config",
                        "org.apache.kafka.common.security.oauthbearer.OAuthBearerLoginModule required ;");
                props.put(prefix + "oauthbearer.sasl.server.callback.handler.class",
                        "org.apache.kafka.common.security.oauthbearer.OAuthBearerValidatorCallbackHandler");
                props.put(SaslConfigs.SASL_OAUTHBEARER_JWKS_ENDPOINT_URL, jwks.toString());
            }
        }
        return props;
    }

    /** Kafka 4 fetches OAuth URLs only when the JVM allows them; adds {@code url} to that list. */
    private static synchronized void allowUrl(String url) {
        String property = "org.apache.kafka.sasl.oauthbearer.allowed.urls";
        String allowed = System.getProperty(property, "");
        if (!List.of(allowed.split(",")).contains(url)) {
            System.setProperty(property, allowed.isEmpty() ? url : allowed + "," + url);
        }
    }

    private boolean isSasl() {
        return protocol == SecurityProtocol.SASL_PLAINTEXT || protocol == SecurityProtocol.SASL_SSL;
    }

    private void requireSasl() {
        if (!isSasl()) {
            throw new IllegalStateException(protocol + " has no SASL users");
        }
    }

    /** A client's JAAS line for {@code mechanism} (PLAIN or SCRAM-*). */
    public static String jaas(String mechanism, String user, String password) {
        String module = mechanism.startsWith("SCRAM-")
                ? "org.apache.kafka.common.security.scram.ScramLoginModule"
                : "org.apache.kafka.common.security.plain.PlainLoginModule";
        return module + " required username=\"" + user + "\" password=\"" + password + "\";";
    }
}
