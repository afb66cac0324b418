package org.kafscale.proxy.app.config;

import java.util.Arrays;
import java.util.Comparator;
import java.util.Locale;
import java.util.Optional;
import org.kafscale.proxy.core.security.sasl.OAuthBearerSettings;
import org.kafscale.proxy.core.security.sasl.SaslSettings;
import org.kafscale.proxy.core.server.ListenerLimits;
import org.kafscale.proxy.core.server.ListenerSettings;
import org.kafscale.proxy.lfs.limits.LfsLimits;
import org.kafscale.proxy.lfs.resolve.FetchResolveSettings;
import org.kafscale.proxy.lfs.rewrite.OffloadSettings;
import org.kafscale.proxy.routing.fetch.ReadAheadSettings;

/**
 * Every setting the proxy reads, by KafScale's environment variable name. The same names are the
 * keys of the {@code --config} YAML file and the {@code --KEY=value} flags. {@link ProxyConfig},
 * {@code --help} and docs/configuration.md are all built from this list, so a name, default or
 * range is written down exactly once.
 */
public enum ConfigKey {
    ADDR("KAFSCALE_PROXY_ADDR", ":9092", null, null,
            "Kafka listener address (`host:port`, `:port` for every interface)."),
    ADVERTISED_HOST("KAFSCALE_PROXY_ADVERTISED_HOST", null, "listen host, else `localhost` (with a warning)", null,
            "Host clients are told to use, in Metadata and FindCoordinator."),
    ADVERTISED_PORT("KAFSCALE_PROXY_ADVERTISED_PORT", null, "the listen port", Range.of(1, 65535),
            "Port clients are told to use."),
    ADVERTISE_MODE("KAFSCALE_PROXY_ADVERTISE_MODE", "single", null, null,
            "`single`: one node 0 that leads every partition (the Go proxy's view); the proxy splits requests "
                    + "by owner. Works with every client. `brokers`: every real broker id, each at the proxy's "
                    + "address, so clients group partitions by owner themselves; for Java clients only, since "
                    + "librdkafka-based clients merge brokers that share an address and stop fetching from the others. "
                    + "`ports`: every real broker id, each at the advertised host on a port of its own "
                    + "(`KAFSCALE_PROXY_BROKER_PORT_BASE` + id), the Kafka listener kept as the bootstrap port; "
                    + "works with every client. "
                    + "`sni`: every real broker id under a host name of its own "
                    + "(`KAFSCALE_PROXY_SNI_BROKER_HOST_PATTERN`), all on the Kafka listener's one port: the TLS "
                    + "server name (SNI) a client sends says which broker it connects to. TLS required; works with "
                    + "every client, through one load-balancer port or an Ingress with TLS passthrough."),
    BROKER_PORT_BASE("KAFSCALE_PROXY_BROKER_PORT_BASE", null, "unset; required in `ports` mode", Range.of(1, 65535),
            "Advertise mode `ports`: broker id N is served and advertised on this port + N. The range must not "
                    + "include the Kafka, health or LFS listener's port, nor the advertised (bootstrap) port."),
    BROKER_PORT_COUNT("KAFSCALE_PROXY_BROKER_PORT_COUNT", "64", null, Range.of(1, 65535),
            "Advertise mode `ports`: how many broker ids (0 to count - 1) get a port; a broker with a higher id "
                    + "is logged and served through the bootstrap port, listed at it in Metadata."),
    SNI_BOOTSTRAP_HOST("KAFSCALE_PROXY_SNI_BOOTSTRAP_HOST", null, "unset; required in `sni` mode", null,
            "Advertise mode `sni`: the host name clients bootstrap to (their `bootstrap.servers`, sent as the TLS "
                    + "server name); a connection by this name is served as the bootstrap port is in `ports` mode. "
                    + "`KAFSCALE_PROXY_ADVERTISED_HOST`, when set, must be the same name."),
    SNI_BROKER_HOST_PATTERN("KAFSCALE_PROXY_SNI_BROKER_HOST_PATTERN", null, "unset; required in `sni` mode", null,
            "Advertise mode `sni`: each broker's host name, with `$(nodeId)` where its id goes "
                    + "(`broker-$(nodeId).kafka.example.com`); Metadata advertises these names on the advertised "
                    + "port. With the id in the first label, one wildcard certificate (`*.kafka.example.com`) "
                    + "covers every broker. A connection whose server name is neither this nor the bootstrap host "
                    + "is refused with a TLS `unrecognized_name` alert and one log line."),
    HEALTH_ADDR("KAFSCALE_PROXY_HEALTH_ADDR", null, "unset (off)", null,
            "Address of `/livez`, `/readyz` and `/metrics` (`host:port` or `:port`)."),
    TLS_ENABLED("KAFSCALE_PROXY_TLS_ENABLED", "false", null, null,
            "TLS on the Kafka listener: the bootstrap port and, in advertise mode `ports`, every broker's port. "
                    + "Needs `KAFSCALE_PROXY_TLS_CERT_FILE` and `KAFSCALE_PROXY_TLS_KEY_FILE`, or "
                    + "`KAFSCALE_PROXY_TLS_KEYSTORE_FILE`. A file that cannot be read or used stops start-up."),
    TLS_CERT_FILE("KAFSCALE_PROXY_TLS_CERT_FILE", null, "required with TLS, unless a key store is given", null,
            "PEM certificate chain of the Kafka listener, its own certificate first."),
    TLS_KEY_FILE("KAFSCALE_PROXY_TLS_KEY_FILE", null, "required with `KAFSCALE_PROXY_TLS_CERT_FILE`", null,
            "PEM private key (PKCS#8) of that certificate."),
    TLS_KEY_PASSWORD("KAFSCALE_PROXY_TLS_KEY_PASSWORD", null, null, null,
            "Password of an encrypted PEM private key."),
    TLS_KEYSTORE_FILE("KAFSCALE_PROXY_TLS_KEYSTORE_FILE", null, null, null,
            "Instead of PEM files: a key store holding the listener's private key and certificate chain."),
    TLS_KEYSTORE_PASSWORD("KAFSCALE_PROXY_TLS_KEYSTORE_PASSWORD", null, "required with a key store", null,
            "Password of the key store and of its key."),
    TLS_KEYSTORE_TYPE("KAFSCALE_PROXY_TLS_KEYSTORE_TYPE", "PKCS12", null, null, "`PKCS12` or `JKS`."),
    TLS_CLIENT_CA_FILE("KAFSCALE_PROXY_TLS_CLIENT_CA_FILE", null, "unset (no client certificates)", null,
            "PEM CA certificates that sign client certificates; set to ask clients for one (mTLS)."),
    TLS_REQUIRE_CLIENT_CERT("KAFSCALE_PROXY_TLS_REQUIRE_CLIENT_CERT", "true", null, null,
            "With a client CA: `true` fails the handshake of a client without a trusted certificate; `false` "
                    + "verifies a certificate when one is given and lets clients without one in as `User:ANONYMOUS`."),
    TLS_PRINCIPAL_MAPPING_RULES("KAFSCALE_PROXY_TLS_PRINCIPAL_MAPPING_RULES", "DEFAULT", null, null,
            "How a client certificate's subject (RFC 2253, e.g. `CN=app,OU=team,O=corp`) becomes the user name of "
                    + "the principal `User:<name>`, in Kafka's `ssl.principal.mapping.rules` syntax, e.g. "
                    + "`RULE:^CN=([^,]+),.*$/$1/L,DEFAULT`."),
    TLS_PROTOCOLS("KAFSCALE_PROXY_TLS_PROTOCOLS", "TLSv1.3,TLSv1.2", null, null,
            "TLS versions the listener accepts (comma-separated)."),
    TLS_CIPHERS("KAFSCALE_PROXY_TLS_CIPHERS", null, "the TLS provider's defaults", null,
            "Cipher suites the listener accepts (comma-separated, JSSE names such as `TLS_AES_128_GCM_SHA256`)."),
    TLS_HANDSHAKE_TIMEOUT_MS("KAFSCALE_PROXY_TLS_HANDSHAKE_TIMEOUT_MS", "10000", null, Range.of(100, 600_000),
            "Milliseconds a client has to finish the TLS handshake; then the connection is closed."),
    TLS_RELOAD_INTERVAL_MS("KAFSCALE_PROXY_TLS_RELOAD_INTERVAL_MS", "10000", null, Range.of(100, 3_600_000),
            "How often the TLS files are checked for a new certificate (by content, so Kubernetes secret updates "
                    + "are seen). New connections get the new certificate; open ones keep theirs."),
    TLS_PROVIDER("KAFSCALE_PROXY_TLS_PROVIDER", "auto", null, null,
            "TLS implementation of every TLS connection the proxy makes or accepts (Kafka listener and broker ports, "
                    + "broker connections, LFS listener, etcd): `auto` uses OpenSSL (BoringSSL, bundled for Linux "
                    + "x86_64 and aarch64) when it loads and the listener's protocols and cipher suites mean the same "
                    + "on it, else the JDK; `openssl` stops start-up when that is not so; `jdk` always uses the JDK. "
                    + "One start-up line says which and why."),
    ETCD_ENDPOINTS("KAFSCALE_PROXY_ETCD_ENDPOINTS", null, null, null,
            "KafScale's etcd (comma-separated URLs such as `http://etcd-0:2379`). When set, etcd is the topology. "
                    + "This or `KAFSCALE_PROXY_BACKENDS` is required."),
    BACKENDS("KAFSCALE_PROXY_BACKENDS", null, null, null,
            "Without etcd: brokers of a plain Kafka cluster to follow (`host:port,...`). With etcd: a static broker "
                    + "list, used only when the snapshot lists none, and exempt from the TTL. This or "
                    + "`KAFSCALE_PROXY_ETCD_ENDPOINTS` is required."),
    BACKEND_CACHE_TTL_SEC("KAFSCALE_PROXY_BACKEND_CACHE_TTL_SEC", "60", null, Range.of(1, 86_400),
            "Seconds the proxy routes on etcd's last good read; past it, it refuses requests until etcd answers."),
    BACKEND_RETRIES("KAFSCALE_PROXY_BACKEND_RETRIES", "6", null, Range.of(1, 100),
            "Connection attempts, one broker after another, for a request any broker can answer (admin and "
                    + "unknown APIs). Partition and coordinator requests retry by their own rules."),
    BACKEND_BACKOFF_MS("KAFSCALE_PROXY_BACKEND_BACKOFF_MS", "500", null, Range.of(0, 60_000),
            "Milliseconds between those connection attempts."),
    // ---- Towards the brokers: TLS and the proxy's own SASL identity, on every broker connection ----
    BACKEND_TLS_ENABLED("KAFSCALE_PROXY_BACKEND_TLS_ENABLED", "false", null, null,
            "TLS on every connection to a broker (client traffic, discovery, probes, LFS). The other "
                    + "`KAFSCALE_PROXY_BACKEND_TLS_*` settings require it."),
    BACKEND_TLS_CA_FILE("KAFSCALE_PROXY_BACKEND_TLS_CA_FILE", null, "unset (the JVM's trusted CAs)", null,
            "PEM CA bundle the brokers' certificates must chain to."),
    BACKEND_TLS_CERT_FILE("KAFSCALE_PROXY_BACKEND_TLS_CERT_FILE", null, "unset (no client certificate)", null,
            "PEM client certificate (chain) the proxy presents to brokers that ask for one (`ssl.client.auth`); "
                    + "set together with `KAFSCALE_PROXY_BACKEND_TLS_KEY_FILE`."),
    BACKEND_TLS_KEY_FILE("KAFSCALE_PROXY_BACKEND_TLS_KEY_FILE", null, "unset", null,
            "Unencrypted PKCS#8 PEM key of `KAFSCALE_PROXY_BACKEND_TLS_CERT_FILE`."),
    BACKEND_TLS_INSECURE_SKIP_HOSTNAME_VERIFY("KAFSCALE_PROXY_BACKEND_TLS_INSECURE_SKIP_HOSTNAME_VERIFY", "false", null,
            null, "Accept a broker certificate that does not name the host the proxy dialled (Kafka's "
                    + "`ssl.endpoint.identification.algorithm=` empty). The chain is still verified. Lets anyone with "
                    + "a certificate of the CA pose as a broker: only for test set-ups."),
    BACKEND_TLS_RELOAD_INTERVAL_MS("KAFSCALE_PROXY_BACKEND_TLS_RELOAD_INTERVAL_MS", "10000", null,
            Range.of(100, 3_600_000), "How often the backend TLS files (CA, client certificate and key) are checked for "
                    + "new contents (by content, so Kubernetes secret updates are seen). New broker connections use "
                    + "them; open ones carry on."),
    BACKEND_SASL_MECHANISM("KAFSCALE_PROXY_BACKEND_SASL_MECHANISM", null, "unset (no SASL)", null,
            "SASL mechanism the proxy authenticates to brokers with, as itself: `PLAIN`, `SCRAM-SHA-256`, "
                    + "`SCRAM-SHA-512` or `OAUTHBEARER`. Every broker connection authenticates before it carries a "
                    + "request, and is replaced before the broker's session lifetime (`connections.max.reauth.ms`) ends."),
    BACKEND_SASL_USERNAME("KAFSCALE_PROXY_BACKEND_SASL_USERNAME", null, "required with PLAIN and SCRAM", null,
            "The proxy's user name on the brokers."),
    BACKEND_SASL_PASSWORD("KAFSCALE_PROXY_BACKEND_SASL_PASSWORD", null, "required with PLAIN and SCRAM", null,
            "The proxy's password on the brokers (prefer the environment or the file to a flag, which `ps` shows)."),
    BACKEND_SASL_OAUTH_TOKEN_ENDPOINT_URL("KAFSCALE_PROXY_BACKEND_SASL_OAUTH_TOKEN_ENDPOINT_URL", null,
            "required with OAUTHBEARER", null,
            "OAUTHBEARER: the OAuth 2 token endpoint the proxy gets its token from (client-credentials grant, "
                    + "kafka-clients' `sasl.oauthbearer.token.endpoint.url`)."),
    BACKEND_SASL_OAUTH_CLIENT_ID("KAFSCALE_PROXY_BACKEND_SASL_OAUTH_CLIENT_ID", null, "required with OAUTHBEARER", null,
            "OAUTHBEARER: the proxy's client id at the token endpoint."),
    BACKEND_SASL_OAUTH_CLIENT_SECRET("KAFSCALE_PROXY_BACKEND_SASL_OAUTH_CLIENT_SECRET", null,
            "required with OAUTHBEARER", null, "OAUTHBEARER: the proxy's client secret."),
    BACKEND_SASL_OAUTH_SCOPE("KAFSCALE_PROXY_BACKEND_SASL_OAUTH_SCOPE", null, "unset (none asked for)", null,
            "OAUTHBEARER: the scope asked for with the token."),
    ETCD_USERNAME("KAFSCALE_PROXY_ETCD_USERNAME", null, null, null, "etcd user name."),
    ETCD_PASSWORD("KAFSCALE_PROXY_ETCD_PASSWORD", null, null, null,
            "etcd password (prefer the environment or the file to a flag, which `ps` shows)."),
    ETCD_CA_FILE("KAFSCALE_PROXY_ETCD_CA_FILE", null, null, null,
            "CA file for TLS to etcd; endpoints without a scheme then use `https://` (an addition to the original)."),
    ETCD_CERT_FILE("KAFSCALE_PROXY_ETCD_CERT_FILE", null, null, null,
            "Client certificate for mutual TLS to etcd (set together with `KAFSCALE_PROXY_ETCD_KEY_FILE`)."),
    ETCD_KEY_FILE("KAFSCALE_PROXY_ETCD_KEY_FILE", null, null, null,
            "Client key for mutual TLS to etcd (set together with `KAFSCALE_PROXY_ETCD_CERT_FILE`)."),
    ETCD_RESYNC_MS("KAFSCALE_PROXY_ETCD_RESYNC_MS", "10000", null, Range.of(100, 3_600_000),
            "Milliseconds between the full etcd reads behind the watches."),
    MAX_FRAME_BYTES("KAFSCALE_PROXY_MAX_FRAME_BYTES", String.valueOf(ListenerSettings.DEFAULT_MAX_FRAME_BYTES), null,
            Range.of(1024, Integer.MAX_VALUE),
            "Largest Kafka frame accepted; checked from the 4-byte size before anything is buffered."),
    MAX_IN_FLIGHT("KAFSCALE_PROXY_MAX_IN_FLIGHT", "100", null, Range.of(1, 100_000),
            "Requests one client connection may have waiting before the proxy stops reading from it."),
    REQUEST_TIMEOUT_MS("KAFSCALE_PROXY_REQUEST_TIMEOUT_MS", "30000", null, Range.of(100, 3_600_000),
            "Milliseconds a broker has to answer (a Fetch adds its own max wait)."),
    DIAL_TIMEOUT_MS("KAFSCALE_PROXY_DIAL_TIMEOUT_MS", "5000", null, Range.of(100, 600_000),
            "Broker connect timeout in milliseconds."),
    METADATA_REFRESH_MS("KAFSCALE_PROXY_METADATA_REFRESH_MS", "1000", null, Range.of(100, 3_600_000),
            "Milliseconds between re-reads of the plain Kafka cluster's Metadata: how soon partitions added or "
                    + "topics deleted by others show through the proxy (one all-topics Metadata to one broker per read; "
                    + "changes made through the proxy show at once)."),
    IO_THREADS("KAFSCALE_PROXY_IO_THREADS", "0", "`0` (Netty: 2 × cores)", Range.of(0, 1024),
            "Netty event loop threads."),
    // ---- Kafka listener limits (what clients may make the proxy hold) ----
    MAX_CONNECTIONS("KAFSCALE_PROXY_MAX_CONNECTIONS", String.valueOf(ListenerLimits.DEFAULT_MAX_CONNECTIONS), null,
            Range.of(1, 10_000_000),
            "Client connections open at once; more are closed as soon as they are accepted. Lowered at start-up "
                    + "to fit the process's file descriptor limit (see `KAFSCALE_PROXY_FD_HEADROOM`)."),
    MAX_CONNECTIONS_PER_IP("KAFSCALE_PROXY_MAX_CONNECTIONS_PER_IP",
            String.valueOf(ListenerLimits.DEFAULT_MAX_CONNECTIONS_PER_IP), null, Range.of(1, 10_000_000),
            "Client connections open at once from one address; more are closed as soon as they are accepted. "
                    + "Behind a load balancer that hides client addresses (SNAT) every client shares one address: "
                    + "raise it to `KAFSCALE_PROXY_MAX_CONNECTIONS` there, or have it send PROXY protocol headers "
                    + "(`KAFSCALE_PROXY_ACCEPT_PROXY_PROTOCOL`)."),
    ACCEPT_PROXY_PROTOCOL("KAFSCALE_PROXY_ACCEPT_PROXY_PROTOCOL", "off", null, null,
            "PROXY protocol (v1 and v2) on the Kafka listener and every broker port: `off`; `optional` (a "
                    + "connection that starts with a header is seen under the header's source address, one without "
                    + "under its own); `required` (a connection without a valid header is closed and counted). The "
                    + "header's address is the one connection limits, ACL `host` rules and log lines use; a v2 `LOCAL` "
                    + "header (a load balancer's health check) keeps the connection's own. Only behind a load "
                    + "balancer that sends it: anyone who can reach the port can name any address in a header."),
    FD_HEADROOM("KAFSCALE_PROXY_FD_HEADROOM", String.valueOf(ListenerLimits.DEFAULT_FD_HEADROOM), null,
            Range.of(0, 1_000_000),
            "File descriptors kept free for everything but clients (health and LFS listeners, S3, etcd). The "
                    + "connection limit is lowered to (fd limit - this) / 2: each client costs its socket and a "
                    + "broker channel."),
    MAX_PARTIAL_FRAME_BYTES("KAFSCALE_PROXY_MAX_PARTIAL_FRAME_BYTES",
            String.valueOf(ListenerLimits.DEFAULT_PARTIAL_FRAME_BYTES), null, Range.of(1024, Long.MAX_VALUE),
            "Bytes of half-received requests held over all connections; past it the proxy stops reading from the "
                    + "connections that hold the most until the sum is under it again."),
    FRAME_READ_TIMEOUT_MS("KAFSCALE_PROXY_FRAME_READ_TIMEOUT_MS",
            String.valueOf(ListenerLimits.DEFAULT_FRAME_READ_TIMEOUT.toMillis()), null, Range.of(100, 3_600_000),
            "Milliseconds a request may take to arrive whole once its first bytes have; past it the connection "
                    + "is closed. Time the proxy itself stops reading does not count."),
    UNAUTHENTICATED_IDLE_TIMEOUT_MS("KAFSCALE_PROXY_UNAUTHENTICATED_IDLE_TIMEOUT_MS",
            String.valueOf(ListenerLimits.DEFAULT_UNAUTHENTICATED_TIMEOUT.toMillis()), null, Range.of(100, 3_600_000),
            "Milliseconds a new client connection has to send a whole first request (on a SASL listener: to "
                    + "authenticate) before it is closed, so a socket that connects and never speaks holds "
                    + "nothing for long. The TLS handshake counts in it."),
    IDLE_TIMEOUT_MS("KAFSCALE_PROXY_IDLE_TIMEOUT_MS", String.valueOf(ListenerLimits.DEFAULT_IDLE_TIMEOUT.toMillis()),
            null, Range.of(1000, 86_400_000),
            "Milliseconds a connection with no request in flight and none half-sent stays open (a broker's "
                    + "`connections.max.idle.ms`; Kafka clients close theirs first, at 9 minutes)."),
    MAX_UNREAD_ANSWER_BYTES_PER_CONNECTION("KAFSCALE_PROXY_MAX_UNREAD_ANSWER_BYTES_PER_CONNECTION",
            String.valueOf(ListenerLimits.DEFAULT_UNREAD_ANSWER_BYTES_PER_CONNECTION), null,
            Range.of(64 * 1024, Integer.MAX_VALUE),
            "Bytes of answers a client has not read past which the proxy stops reading its requests (and its "
                    + "brokers' answers) until it has taken half of them."),
    MAX_UNREAD_ANSWER_BYTES("KAFSCALE_PROXY_MAX_UNREAD_ANSWER_BYTES",
            String.valueOf(ListenerLimits.DEFAULT_UNREAD_ANSWER_BYTES), null, Range.of(1024 * 1024, Long.MAX_VALUE),
            "Bytes of answers not read by their clients, over all connections; past it the proxy stops reading "
                    + "from the connections that hold the most."),
    READY_PROBE_TOPIC("KAFSCALE_PROXY_READY_PROBE_TOPIC", null, "unset (any partition with data)", null,
            "Topic the readiness probe fetches from, through the proxy's own listener. Unset: the first "
                    + "partitions with data among the cluster's topics. `/readyz` is 503 while the probe fails."),
    READY_PROBE_PARTITION("KAFSCALE_PROXY_READY_PROBE_PARTITION", null, "unset (any partition of the topic)",
            Range.of(0, Integer.MAX_VALUE),
            "Partition of `KAFSCALE_PROXY_READY_PROBE_TOPIC` the probe fetches from."),
    READY_PROBE_INTERVAL_MS("KAFSCALE_PROXY_READY_PROBE_INTERVAL_MS", "5000", null, Range.of(100, 600_000),
            "Milliseconds between the end of one readiness probe and the start of the next."),
    HEALTH_CERT_EXPIRY_WARN_DAYS("KAFSCALE_PROXY_HEALTH_CERT_EXPIRY_WARN_DAYS", "14", null, Range.of(1, 3650),
            "Days before the Kafka listener's certificate (or one of its chain) expires from which `/health` says "
                    + "`degraded` with reason `certificate_expiring`. Set it below the renewal lead time of your "
                    + "issuer (cert-manager renews at two thirds of the certificate's life)."),
    FETCH_READ_AHEAD("KAFSCALE_PROXY_FETCH_READ_AHEAD", null,
            "unset: `true` in advertise mode `single`, `false` in `brokers` and `ports`", null,
            "When a Fetch is split over several brokers (always so in `single` mode with partitions on several "
                    + "brokers), ask each broker that returned records again at once, at the offsets the client "
                    + "fetches next, and hold the answer for that Fetch; any other question discards it. "
                    + "Lets one client connection read its brokers in parallel, as a direct consumer does; in "
                    + "`brokers` and `ports` mode a client splits its Fetches by broker itself, so there is little to "
                    + "gain (docs/benchmarks.md)."),
    FETCH_READ_AHEAD_MAX_BYTES("KAFSCALE_PROXY_FETCH_READ_AHEAD_MAX_BYTES",
            String.valueOf(ReadAheadSettings.DEFAULT_MAX_HELD_BYTES), null, Range.of(0, Long.MAX_VALUE),
            "Bytes of Fetch answers read ahead and held for clients, over all connections; an answer that "
                    + "would go over is dropped as it arrives (the client's next Fetch is then sent as usual). "
                    + "Per connection at most one answer per broker is held, each within its Fetch's `max_bytes`."),
    ACL_FILE("KAFSCALE_PROXY_ACL_FILE", null, "unset (no authorization at the proxy)", null,
            "ACL file (YAML or JSON, see docs/security-authz.md). When set, every request is checked against its "
                    + "rules for the client's principal: deny before allow, no matching allow is a refusal with Kafka's "
                    + "own error, and Metadata lists only the topics the principal may describe. A file that does not "
                    + "parse stops start-up naming the line."),
    GATEWAY_FILE("KAFSCALE_PROXY_GATEWAY_FILE", null, "unset (no virtual clusters, no record validation)", null,
            "Gateway file (YAML or JSON, see docs/tenants.md): the virtual clusters, each a tenant with its own "
                    + "topics, groups and transactional ids (under a prefix of its own in the real cluster) and its "
                    + "own cluster id, placed by the principal a client authenticates as, the listener it connects "
                    + "to, or (mode `sni`, `sniHostSuffix`) the TLS server name it connects by; the audit trail "
                    + "(`audit`) and record validation on Produce (`validation`, see docs/governance.md). With "
                    + "virtual clusters placed by principal, SASL or required client certificates are needed on the "
                    + "Kafka listener. A file that does not parse (a schema file "
                    + "included) stops start-up naming the path in it."),
    CONFIG_WATCH_MS("KAFSCALE_PROXY_CONFIG_WATCH_MS", "2000", null, Range.of(0, 3_600_000),
            "Milliseconds between looks at the `--config` file and `KAFSCALE_PROXY_GATEWAY_FILE`; a change is "
                    + "applied live, without a restart, as `POST /admin/reload` does (docs/operations.md, "
                    + "\"Reconfiguring a running proxy\"). 0: only `POST /admin/reload` reloads."),
    ADMIN_TOKEN("KAFSCALE_PROXY_ADMIN_TOKEN", null, "unset (the admin API is off)", null,
            "Bearer token of the admin API on the health listener (`POST /admin/reload`, `GET /admin/config`); "
                    + "a request without it gets 401. Keep it in a secret: it can reconfigure the proxy."),
    ACL_RELOAD_MS("KAFSCALE_PROXY_ACL_RELOAD_MS", "5000", null, Range.of(100, 3_600_000),
            "Milliseconds between reads of `KAFSCALE_PROXY_ACL_FILE`; a change that parses replaces every rule at "
                    + "once, one that does not keeps the rules in force and is logged once."),
    DRAIN_TIMEOUT_MS("KAFSCALE_PROXY_DRAIN_TIMEOUT_MS", "30000", null, Range.of(0, 3_600_000),
            "On SIGTERM: `/readyz` turns 503, the listener stops accepting, and requests already read get this many "
                    + "milliseconds to be answered before the remaining connections close."),
    LOG_FORMAT("KAFSCALE_PROXY_LOG_FORMAT", "plain", null, null,
            "`plain`: one line per event; `json`: one JSON object per line (Logback's JSON encoder)."),
    LOG_LEVEL("KAFSCALE_PROXY_LOG_LEVEL", "INFO", null, null,
            "Level of the proxy's own loggers: `TRACE`, `DEBUG`, `INFO`, `WARN` or `ERROR`."),

    // ---- SASL on the Kafka listener (bootstrap and broker ports alike) ----
    SASL_MECHANISMS("KAFSCALE_PROXY_SASL_MECHANISMS", null, "unset (no SASL)", null,
            "Comma-separated SASL mechanisms the Kafka listener requires: `PLAIN`, `SCRAM-SHA-256`, `SCRAM-SHA-512`, "
                    + "`OAUTHBEARER`. When set, a client must authenticate before any request but ApiVersions; "
                    + "anything else before that closes the connection."),
    SASL_CREDENTIALS_FILE("KAFSCALE_PROXY_SASL_CREDENTIALS_FILE", null, "required with PLAIN or SCRAM", null,
            "Users for PLAIN and SCRAM: one line `<user> <SCRAM-SHA-256|SCRAM-SHA-512> salt=...,stored_key=...,"
                    + "server_key=...,iterations=N` per user and mechanism, as `scram-credential` prints it (salted "
                    + "keys, never passwords; PLAIN checks a password against the user's SCRAM line). Re-read when "
                    + "it changes (a mounted Kubernetes secret); a bad file at start-up stops it."),
    SASL_MAX_REAUTH_MS("KAFSCALE_PROXY_SASL_MAX_REAUTH_MS", null, "unset (sessions last as long as the connection)",
            Range.of(1000, 604_800_000),
            "Kafka's `connections.max.reauth.ms`: a SASL session lasts at most this long (and no longer than an "
                    + "OAuth token); clients re-authenticate on the same connection before then (KIP-368), and the "
                    + "first other request after the session ended closes the connection."),
    SASL_MAX_CONCURRENT_AUTHENTICATIONS("KAFSCALE_PROXY_SASL_MAX_CONCURRENT_AUTHENTICATIONS",
            String.valueOf(SaslSettings.DEFAULT_MAX_CONCURRENT_AUTHENTICATIONS), null, Range.of(1, 100_000),
            "SASL steps (SCRAM key derivations, token checks) queued or running at once, over all connections; "
                    + "a client past it fails authentication at once and reconnects later."),
    SASL_MAX_TOKEN_BYTES("KAFSCALE_PROXY_SASL_MAX_TOKEN_BYTES", String.valueOf(SaslSettings.DEFAULT_MAX_TOKEN_BYTES),
            null, Range.of(256, 16 * 1024 * 1024),
            "Largest SASL token (SaslAuthenticate `auth_bytes`) accepted; a larger one fails authentication."),
    SASL_OAUTHBEARER_JWKS_URL("KAFSCALE_PROXY_SASL_OAUTHBEARER_JWKS_URL", null, "required with OAUTHBEARER", null,
            "JWKS endpoint (`https://`, `http://` or `file:`) whose keys sign valid tokens (Kafka's "
                    + "`sasl.oauthbearer.jwks.endpoint.url`); fetched at start-up and refreshed hourly, and when a "
                    + "token names an unknown key."),
    SASL_OAUTHBEARER_EXPECTED_ISSUER("KAFSCALE_PROXY_SASL_OAUTHBEARER_EXPECTED_ISSUER", null,
            "unset (any issuer, with a warning)", null,
            "The `iss` a token must carry (`sasl.oauthbearer.expected.issuer`)."),
    SASL_OAUTHBEARER_EXPECTED_AUDIENCE("KAFSCALE_PROXY_SASL_OAUTHBEARER_EXPECTED_AUDIENCE", null,
            "unset (any audience, with a warning)", null,
            "Comma-separated audiences; a token's `aud` must contain one (`sasl.oauthbearer.expected.audience`)."),
    SASL_OAUTHBEARER_CLOCK_SKEW_SECONDS("KAFSCALE_PROXY_SASL_OAUTHBEARER_CLOCK_SKEW_SECONDS",
            String.valueOf(OAuthBearerSettings.DEFAULT_CLOCK_SKEW_SECONDS), null, Range.of(0, 3600),
            "Seconds of clock difference tolerated on a token's `exp`, `nbf` and `iat`."),
    SASL_OAUTHBEARER_SCOPE_CLAIM_NAME("KAFSCALE_PROXY_SASL_OAUTHBEARER_SCOPE_CLAIM_NAME",
            OAuthBearerSettings.DEFAULT_SCOPE_CLAIM, null, null,
            "Claim holding a token's scopes (`sasl.oauthbearer.scope.claim.name`)."),
    SASL_OAUTHBEARER_SUB_CLAIM_NAME("KAFSCALE_PROXY_SASL_OAUTHBEARER_SUB_CLAIM_NAME",
            OAuthBearerSettings.DEFAULT_SUB_CLAIM, null, null,
            "Claim holding the principal's name (`sasl.oauthbearer.sub.claim.name`): the client is `User:<it>`."),

    // ---- LFS (large payloads through S3); read only when KAFSCALE_PROXY_LFS_ENABLED is true ----
    LFS_ENABLED("KAFSCALE_PROXY_LFS_ENABLED", "false", null, null,
            "Enables the LFS module (the HTTP API on `KAFSCALE_LFS_PROXY_HTTP_ADDR`)."),
    LFS_HTTP_ADDR("KAFSCALE_LFS_PROXY_HTTP_ADDR", null, "unset (HTTP API off)", null,
            "LFS HTTP API address (`host:port` or `:port`)."),
    LFS_S3_BUCKET("KAFSCALE_LFS_PROXY_S3_BUCKET", null, "required with LFS", null,
            "Bucket of LFS objects. The example names `kafscale-lfs`, `kafscale-lfs-dev`, `kafscale-lfs-staging` "
                    + "and `kafscale-example` are refused."),
    LFS_S3_REGION("KAFSCALE_LFS_PROXY_S3_REGION", null, "required with LFS", null, "S3 region."),
    LFS_S3_ENDPOINT("KAFSCALE_LFS_PROXY_S3_ENDPOINT", null, "unset (AWS)", null,
            "Custom S3 endpoint URL (MinIO, S3Proxy), e.g. `http://minio:9000`."),
    LFS_S3_PUBLIC_ENDPOINT("KAFSCALE_LFS_PROXY_S3_PUBLIC_ENDPOINT", null, "the S3 endpoint", null,
            "Endpoint written into presigned download URLs."),
    LFS_S3_ACCESS_KEY("KAFSCALE_LFS_PROXY_S3_ACCESS_KEY", null, "unset (AWS default chain)", null,
            "Static access key; used only together with the secret key."),
    LFS_S3_SECRET_KEY("KAFSCALE_LFS_PROXY_S3_SECRET_KEY", null, null, null, "Static secret key."),
    LFS_S3_SESSION_TOKEN("KAFSCALE_LFS_PROXY_S3_SESSION_TOKEN", null, null, null,
            "Session token for the static credentials."),
    LFS_S3_FORCE_PATH_STYLE("KAFSCALE_LFS_PROXY_S3_FORCE_PATH_STYLE", null, "`true` with an endpoint, else `false`",
            null, "Path-style bucket addressing (also in presigned URLs)."),
    LFS_S3_ENSURE_BUCKET("KAFSCALE_LFS_PROXY_S3_ENSURE_BUCKET", "false", null, null,
            "Create the bucket at start-up when it is missing (failures are logged)."),
    LFS_S3_HEALTH_INTERVAL_SEC("KAFSCALE_LFS_PROXY_S3_HEALTH_INTERVAL_SEC", "30", null, Range.of(1, 3600),
            "Seconds between HeadBucket checks; while S3 fails them, `/lfs/*` answers 503 `proxy_not_ready`."),
    S3_NAMESPACE("KAFSCALE_S3_NAMESPACE", "default", null, null,
            "First segment of every LFS object key (`<namespace>/<topic>/lfs/YYYY/MM/DD/obj-<uuid>`)."),
    LFS_MAX_BLOB_SIZE("KAFSCALE_LFS_PROXY_MAX_BLOB_SIZE", "5368709120", null, Range.of(1, 5L << 40),
            "Largest payload in bytes."),
    LFS_PROXY_REWRITE_TOPICS("KAFSCALE_LFS_PROXY_REWRITE_TOPICS", null, "unset (off)", null,
            "Topics (comma-separated, `*` for all) whose records with an `LFS_BLOB` header the Kafka listener "
                    + "uploads to S3 and replaces with an envelope (needs LFS enabled)."),
    LFS_PROXY_OFFLOAD_TOPICS("KAFSCALE_LFS_PROXY_OFFLOAD_TOPICS", null, "unset (off)", null,
            "Topics whose records with a value over `KAFSCALE_LFS_PROXY_OFFLOAD_THRESHOLD_BYTES` the Kafka listener "
                    + "uploads to S3 and replaces with an envelope, no header needed, so plain Kafka clients can "
                    + "produce records larger than the brokers take: comma-separated regular expressions, each "
                    + "matched against the whole topic name (`media\\..*,uploads`). Needs LFS enabled. Producers must "
                    + "be allowed to send such records (`max.request.size`, librdkafka `message.max.bytes`), and the "
                    + "request must fit `KAFSCALE_PROXY_MAX_FRAME_BYTES`; see docs/lfs.md."),
    LFS_PROXY_OFFLOAD_THRESHOLD_BYTES("KAFSCALE_LFS_PROXY_OFFLOAD_THRESHOLD_BYTES",
            String.valueOf(OffloadSettings.DEFAULT_THRESHOLD_BYTES), null, Range.of(1024, Integer.MAX_VALUE),
            "A record value longer than this on an offload topic goes to S3; one of this length or shorter, and a "
                    + "tombstone, passes unchanged. Less than `KAFSCALE_PROXY_MAX_FRAME_BYTES` and "
                    + "`KAFSCALE_LFS_PROXY_MAX_BLOB_SIZE`."),
    LFS_FETCH_RESOLVE_TOPICS("KAFSCALE_LFS_PROXY_FETCH_RESOLVE_TOPICS", null, "unset (off)", null,
            "Topics (comma-separated regular expressions, each over the whole real topic name) whose LFS envelopes "
                    + "the Kafka listener replaces on Fetch with their payload from S3, checked against the "
                    + "envelope's size and SHA-256 (needs LFS enabled)."),
    LFS_FETCH_RESOLVE_MEMORY_BYTES("KAFSCALE_LFS_PROXY_FETCH_RESOLVE_MEMORY_BYTES",
            String.valueOf(FetchResolveSettings.DEFAULT_MEMORY_BYTES), null, Range.of(1, 1L << 40),
            "Payload bytes all Fetches being resolved may hold at once (each holds about twice its payloads); past "
                    + "it a Fetch waits. A payload larger than the budget is resolved alone."),
    LFS_CHUNK_SIZE("KAFSCALE_LFS_PROXY_CHUNK_SIZE", "5242880", null, Range.of(5L << 20, 512L << 20),
            "S3 part size for streamed uploads; an upload holds two parts in memory."),
    LFS_CHECKSUM_ALGO("KAFSCALE_LFS_PROXY_CHECKSUM_ALGO", "sha256", null, null,
            "Checksum when a request names none: `sha256`, `md5`, `crc32` or `none` (SHA-256 is always computed too)."),
    LFS_PROXY_ID("KAFSCALE_LFS_PROXY_ID", null, null, null, "`proxy_id` written into envelopes and ops events."),
    LFS_HTTP_API_KEY("KAFSCALE_LFS_PROXY_HTTP_API_KEY", null, "unset (no auth)", null,
            "API key every `/lfs/*` request must carry (`X-API-Key` or `Authorization: Bearer`)."),
    LFS_HTTP_ALLOWED_ORIGINS("KAFSCALE_LFS_PROXY_HTTP_ALLOWED_ORIGINS", null, "unset (no cross-origin access)", null,
            "Browser origins allowed to call the LFS API cross-origin (CORS), comma-separated "
                    + "(`https://app.example.com`), or `*` for any; a preflight from another origin gets 403."),
    LFS_HTTP_READ_TIMEOUT_SEC("KAFSCALE_LFS_PROXY_HTTP_READ_TIMEOUT_SEC", "30", null, Range.of(1, 86_400),
            "Seconds a request body may stall before the connection closes (an idle timeout: a long upload that "
                    + "keeps moving is not cut off, unlike the original)."),
    LFS_HTTP_WRITE_TIMEOUT_SEC("KAFSCALE_LFS_PROXY_HTTP_WRITE_TIMEOUT_SEC", "300", null, Range.of(1, 86_400),
            "Seconds a response may stall before the connection closes."),
    LFS_HTTP_IDLE_TIMEOUT_SEC("KAFSCALE_LFS_PROXY_HTTP_IDLE_TIMEOUT_SEC", "60", null, Range.of(1, 86_400),
            "Seconds a keep-alive connection may wait for its next request."),
    LFS_HTTP_HEADER_TIMEOUT_SEC("KAFSCALE_LFS_PROXY_HTTP_HEADER_TIMEOUT_SEC", "10", null, Range.of(1, 3600),
            "Seconds a new connection has to send its request head."),
    LFS_HTTP_MAX_HEADER_BYTES("KAFSCALE_LFS_PROXY_HTTP_MAX_HEADER_BYTES", "1048576", null, Range.of(1024, 16L << 20),
            "Largest request head in bytes."),
    LFS_HTTP_SHUTDOWN_TIMEOUT_SEC("KAFSCALE_LFS_PROXY_HTTP_SHUTDOWN_TIMEOUT_SEC", "10", null, Range.of(0, 3600),
            "Seconds open LFS requests get to finish at shutdown."),
    LFS_HTTP_ACCEPT_PROXY_PROTOCOL("KAFSCALE_LFS_PROXY_HTTP_ACCEPT_PROXY_PROTOCOL", "off", null, null,
            "PROXY protocol (v1 and v2) on the LFS listener: `off`, `optional` or `required`, as "
                    + "`KAFSCALE_PROXY_ACCEPT_PROXY_PROTOCOL` for the Kafka listener. The header's source address is "
                    + "the client address of ops events when the request has no `X-Forwarded-For` or `X-Real-IP`."),
    LFS_TRUSTED_PROXIES("KAFSCALE_LFS_PROXY_TRUSTED_PROXIES", null, "unset (trust none)", null,
            "The load balancers and ingress controllers in front of the LFS listener, as IP addresses or CIDR "
                    + "blocks (comma-separated, e.g. `10.0.0.0/8,fd00::/8`). Only a peer among them may name the "
                    + "client by `X-Forwarded-For` (its right-most entry that is not one of them) or `X-Real-IP`; "
                    + "every other peer is its own address, whatever it sends. That address is what the "
                    + "per-client upload and download limits count and ops events report."),
    LFS_HTTP_TLS_ENABLED("KAFSCALE_LFS_PROXY_HTTP_TLS_ENABLED", "false", null, null, "HTTPS on the LFS listener."),
    LFS_HTTP_TLS_CERT_FILE("KAFSCALE_LFS_PROXY_HTTP_TLS_CERT_FILE", null, "required with TLS", null,
            "PEM certificate chain of the LFS listener."),
    LFS_HTTP_TLS_KEY_FILE("KAFSCALE_LFS_PROXY_HTTP_TLS_KEY_FILE", null, "required with TLS", null,
            "PEM private key (PKCS#8) of the LFS listener."),
    LFS_HTTP_TLS_CLIENT_CA_FILE("KAFSCALE_LFS_PROXY_HTTP_TLS_CLIENT_CA_FILE", null, null, null,
            "CA for client certificates; set to verify them (mTLS)."),
    LFS_HTTP_TLS_REQUIRE_CLIENT_CERT("KAFSCALE_LFS_PROXY_HTTP_TLS_REQUIRE_CLIENT_CERT", "false", null, null,
            "With a client CA: refuse clients without a certificate (otherwise one is verified when given)."),
    LFS_TOPIC_MAX_LENGTH("KAFSCALE_LFS_PROXY_TOPIC_MAX_LENGTH", "249", null, Range.of(1, 249),
            "Longest topic name the HTTP API accepts."),
    LFS_DOWNLOAD_TTL_SEC("KAFSCALE_LFS_PROXY_DOWNLOAD_TTL_SEC", "120", null, Range.of(1, 604_800),
            "Longest lifetime of a presigned download URL, in seconds."),
    LFS_PRESIGN_ENABLED("KAFSCALE_LFS_PROXY_PRESIGN_ENABLED", "false", null, null,
            "Allow `mode=presign` downloads (the client then verifies the bytes; a warning is logged every 5 min)."),
    LFS_UPLOAD_SESSION_TTL_SEC("KAFSCALE_LFS_PROXY_UPLOAD_SESSION_TTL_SEC", "3600", null, Range.of(1, 604_800),
            "Lifetime of a multipart upload session, in seconds."),
    LFS_DIAL_TIMEOUT_MS("KAFSCALE_LFS_PROXY_DIAL_TIMEOUT_MS", "5000", null, Range.of(100, 600_000),
            "Broker connect timeout of the LFS path, in milliseconds."),
    LFS_BACKEND_RETRIES("KAFSCALE_LFS_PROXY_BACKEND_RETRIES", "6", null, Range.of(1, 100),
            "Broker connect attempts before an LFS request gets 503 `backend_unavailable`."),
    LFS_BACKEND_BACKOFF_MS("KAFSCALE_LFS_PROXY_BACKEND_BACKOFF_MS", "500", null, Range.of(1, 60_000),
            "Milliseconds between those attempts."),
    LFS_TEMP_DIR("KAFSCALE_LFS_PROXY_TEMP_DIR", null, "the JVM's temporary directory", null,
            "Directory where stream downloads are verified before they are sent (needs room for the largest payload "
                    + "times concurrent downloads)."),
    LFS_IO_THREADS("KAFSCALE_LFS_PROXY_IO_THREADS", "0", "`0` (Netty: 2 × cores)", Range.of(0, 1024),
            "Event loop threads of the LFS listener and its broker client: its own, never the Kafka listener's."),
    LFS_MAX_UPLOADS("KAFSCALE_LFS_PROXY_MAX_UPLOADS", String.valueOf(LfsLimits.DEFAULT_MAX_UPLOADS), null,
            Range.of(1, 100_000),
            "Uploads (`/lfs/produce` bodies and multipart parts) streaming to S3 at once; more get 503 `busy`. "
                    + "Each Produce partition the Kafka listener rewrites (`LFS_BLOB`, offload) takes one too; past "
                    + "the bound it is answered with the retriable `KAFKA_STORAGE_ERROR`. "
                    + "The S3 pool is this plus `KAFSCALE_LFS_PROXY_MAX_DOWNLOADS` plus 32 connections; the session "
                    + "store (32) and the health check (2) have connections of their own."),
    LFS_MAX_UPLOADS_PER_CLIENT("KAFSCALE_LFS_PROXY_MAX_UPLOADS_PER_CLIENT",
            String.valueOf(LfsLimits.DEFAULT_MAX_UPLOADS_PER_CLIENT), null, Range.of(1, 100_000),
            "Uploads streaming at once for one client address (the peer's, or the one a trusted proxy names: "
                    + "`KAFSCALE_LFS_PROXY_TRUSTED_PROXIES`); more get 503 `busy`. At most `KAFSCALE_LFS_PROXY_MAX_UPLOADS`; an eighth of "
                    + "that (at least 1) is kept for addresses holding none, so one address never takes them all."),
    LFS_UPLOAD_MIN_BYTES_PER_SEC("KAFSCALE_LFS_PROXY_UPLOAD_MIN_BYTES_PER_SEC",
            String.valueOf(LfsLimits.DEFAULT_MIN_UPLOAD_BYTES_PER_SECOND), null, Range.of(0, 1L << 30),
            "Slowest an upload body may arrive, averaged over each `KAFSCALE_LFS_PROXY_UPLOAD_RATE_WINDOW_SEC` in "
                    + "which the proxy kept reading; a slower upload is stopped with 408 `upload_too_slow`. `0`: off."),
    LFS_UPLOAD_RATE_WINDOW_SEC("KAFSCALE_LFS_PROXY_UPLOAD_RATE_WINDOW_SEC",
            String.valueOf(LfsLimits.DEFAULT_UPLOAD_RATE_WINDOW.toSeconds()), null, Range.of(1, 3600),
            "Seconds the upload rate is averaged over."),
    LFS_MAX_DOWNLOADS("KAFSCALE_LFS_PROXY_MAX_DOWNLOADS", String.valueOf(LfsLimits.DEFAULT_MAX_DOWNLOADS), null,
            Range.of(1, 10_000),
            "Stream downloads copying from S3 at once (each holds an S3 connection and a thread); more get 503 `busy`."),
    LFS_DOWNLOAD_TEMP_BYTES("KAFSCALE_LFS_PROXY_DOWNLOAD_TEMP_BYTES",
            String.valueOf(LfsLimits.DEFAULT_DOWNLOAD_TEMP_BYTES), null, Range.of(1, 1L << 50),
            "Bytes of `KAFSCALE_LFS_PROXY_TEMP_DIR` all stream downloads may hold at once; a download past it gets "
                    + "503 `busy`. At least `KAFSCALE_LFS_PROXY_MAX_BLOB_SIZE`."),
    LFS_TRACKER_ENABLED("KAFSCALE_LFS_TRACKER_ENABLED", "true", null, null,
            "Ops events (uploads, downloads, orphans) to the tracker topic."),
    LFS_TRACKER_TOPIC("KAFSCALE_LFS_TRACKER_TOPIC", "__lfs_ops_state", null, null, "Tracker topic."),
    LFS_TRACKER_BATCH_SIZE("KAFSCALE_LFS_TRACKER_BATCH_SIZE", "100", null, Range.of(1, 10_000),
            "Events per tracker produce."),
    LFS_TRACKER_FLUSH_MS("KAFSCALE_LFS_TRACKER_FLUSH_MS", "100", null, Range.of(1, 60_000),
            "Longest wait of an event for its batch, in milliseconds."),
    LFS_TRACKER_ENSURE_TOPIC("KAFSCALE_LFS_TRACKER_ENSURE_TOPIC", "true", null, null,
            "Create the tracker topic at start-up when it is missing."),
    LFS_TRACKER_PARTITIONS("KAFSCALE_LFS_TRACKER_PARTITIONS", "3", null, Range.of(1, 10_000),
            "Partitions of a tracker topic created at start-up."),
    LFS_TRACKER_REPLICATION_FACTOR("KAFSCALE_LFS_TRACKER_REPLICATION_FACTOR", "1", null, Range.of(1, 32),
            "Replication factor of a tracker topic created at start-up.");

    /** The prefix of the Kafka listener's names; an unknown name with it is reported. */
    public static final String PREFIX = "KAFSCALE_PROXY_";

    /** Every prefix of a setting name: unknown names with one of them are reported. */
    public static final java.util.List<String> PREFIXES = java.util.List.of(PREFIX, "KAFSCALE_LFS_", "KAFSCALE_S3_");

    private static final int MAX_SUGGESTION_DISTANCE = 3;

    private final String envName;
    private final String defaultValue;
    private final String defaultText;
    private final Range range;
    private final String description;

    ConfigKey(String envName, String defaultValue, String defaultText, Range range, String description) {
        this.envName = envName;
        this.defaultValue = defaultValue;
        this.defaultText = defaultText;
        this.range = range;
        this.description = description;
    }

    /** The environment variable name, also the file key and the flag name. */
    public String envName() {
        return envName;
    }

    /** The value used when the setting is unset, when there is a fixed one. */
    public Optional<String> defaultValue() {
        return Optional.ofNullable(defaultValue);
    }

    /** The default as documented (Markdown): the fixed value in backticks, or what happens when unset. */
    public String defaultText() {
        if (defaultText != null) {
            return defaultText;
        }
        return defaultValue == null ? "unset" : "`" + defaultValue + "`";
    }

    /** The allowed range, for whole-number settings. */
    public Optional<Range> range() {
        return Optional.ofNullable(range);
    }

    /** What the setting does (Markdown), followed by its range when it has one. */
    public String description() {
        return range == null ? description : description + " Allowed: " + range.min() + " to " + range.max() + ".";
    }

    /** Whether {@code name} has the prefix of a setting (so an unknown one is probably a typo). */
    public static boolean hasSettingPrefix(String name) {
        return PREFIXES.stream().anyMatch(name::startsWith);
    }

    /** The setting with this exact name. */
    public static Optional<ConfigKey> byName(String name) {
        return Arrays.stream(values()).filter(k -> k.envName.equals(name)).findFirst();
    }

    /**
     * The known setting a mistyped name most likely meant: same name in another case or with
     * dashes, the name without its {@value #PREFIX} prefix, or a few letters off.
     */
    public static Optional<ConfigKey> closest(String name) {
        String normalized = name.trim().toUpperCase(Locale.ROOT).replace('-', '_');
        String candidate = normalized.startsWith("KAFSCALE_") ? normalized : PREFIX + normalized;
        return Arrays.stream(values())
                .min(Comparator.comparingInt(k -> distance(k.envName, candidate)))
                .filter(k -> distance(k.envName, candidate) <= MAX_SUGGESTION_DISTANCE);
    }

    /** Of {@code among}, the key whose name is fewest edits from {@code name} (normalized as {@link #closest}). */
    static ConfigKey nearest(String name, java.util.Collection<ConfigKey> among) {
        String normalized = name.trim().toUpperCase(Locale.ROOT).replace('-', '_');
        String candidate = normalized.startsWith("KAFSCALE_") ? normalized : PREFIX + normalized;
        return among.stream().min(Comparator.comparingInt(k -> distance(k.envName, candidate))).orElseThrow();
    }

    private static int distance(String a, String b) {
        int[] previous = new int[b.length() + 1];
        int[] current = new int[b.length() + 1];
        for (int j = 0; j <= b.length(); j++) {
            previous[j] = j;
        }
        for (int i = 1; i <= a.length(); i++) {
            current[0] = i;
            for (int j = 1; j <= b.length(); j++) {
                int substitution = previous[j - 1] + (a.charAt(i - 1) == b.charAt(j - 1) ? 0 : 1);
                current[j] = Math.min(substitution, Math.min(previous[j] + 1, current[j - 1] + 1));
            }
            int[] swap = previous;
            previous = current;
            current = swap;
        }
        return previous[b.length()];
    }

    /**
     * The inclusive bounds of a whole-number setting.
     *
     * @param min the smallest allowed value
     * @param max the largest allowed value
     */
    public record Range(long min, long max) {
        static Range of(long min, long max) {
            return new Range(min, max);
        }
    }
}
