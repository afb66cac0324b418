package org.kafscale.proxy.discovery.etcd;

import io.etcd.jetcd.ByteSequence;
import io.etcd.jetcd.Client;
import io.etcd.jetcd.ClientBuilder;
import io.grpc.netty.GrpcSslContexts;
import io.netty.handler.ssl.SslContextBuilder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import javax.net.ssl.SSLException;
import org.kafscale.proxy.core.security.tls.TlsProvider;

/**
 * How to reach KafScale's etcd.
 *
 * @param endpoints client URLs (KAFSCALE_PROXY_ETCD_ENDPOINTS)
 * @param username etcd user, if auth is on
 * @param password etcd password
 * @param caFile CA certificate for TLS to etcd (an addition to the original)
 * @param certFile client certificate for mutual TLS
 * @param keyFile client key for mutual TLS
 * @param tlsProvider the TLS implementation of the connection when it uses TLS
 */
public record EtcdSettings(List<String> endpoints, Optional<String> username, Optional<String> password,
                           Optional<Path> caFile, Optional<Path> certFile, Optional<Path> keyFile,
                           TlsProvider tlsProvider) {

    private static final Duration CONNECT_TIMEOUT = Duration.ofSeconds(2);
    /** jetcd retries failed calls; bounded so a dead etcd is reported within a read's deadline. */
    private static final Duration RETRY_MAX_DURATION = Duration.ofSeconds(2);

    /** A jetcd client for these settings. */
    public Client connect() {
        ClientBuilder builder = Client.builder()
                .endpoints(endpoints.toArray(String[]::new))
                .connectTimeout(CONNECT_TIMEOUT)
                .retryMaxDuration(RETRY_MAX_DURATION);
        username.ifPresent(u -> builder.user(ByteSequence.from(u, StandardCharsets.UTF_8)));
        password.ifPresent(p -> builder.password(ByteSequence.from(p, StandardCharsets.UTF_8)));
        if (caFile.isPresent() || certFile.isPresent()) {
            try {
                builder.sslContext(ssl -> configureTls(ssl));
            } catch (SSLException e) {
                throw new IllegalArgumentException("etcd TLS settings are unusable: " + e.getMessage(), e);
            }
        }
        return builder.build();
    }

    private void configureTls(SslContextBuilder ssl) {
        // gRPC would pick OpenSSL by itself whenever netty-tcnative is on the class path; the
        // process's choice decides instead (also its ALPN setup, which differs per provider).
        GrpcSslContexts.configure(ssl, tlsProvider.sslProvider());
        caFile.ifPresent(ca -> ssl.trustManager(ca.toFile()));
        if (certFile.isPresent() && keyFile.isPresent()) {
            ssl.keyManager(certFile.get().toFile(), keyFile.get().toFile());
        }
    }
}
