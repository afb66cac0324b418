package org.kafscale.proxy.core.security.sasl;

import java.net.SocketAddress;
import java.security.NoSuchAlgorithmException;
import java.security.SecureRandom;
import java.util.Base64;
import java.util.HexFormat;
import java.util.Optional;
import java.util.function.Predicate;
import org.apache.kafka.common.security.scram.ScramCredential;
import org.apache.kafka.common.security.scram.internals.ScramFormatter;
import org.kafscale.proxy.core.backend.security.BackendSaslSettings;

/**
 * The readiness probe's login to the proxy's own SASL listener, minted once per process: a random
 * user name and a 256-bit random secret, held only in memory (never written to the credentials
 * file or a log), so the probe can prove the read path through the real listener, SASL gate
 * included.
 *
 * <p>The probe always speaks {@link #MECHANISM}, whatever the listener enables: a listener that
 * enables only OAUTHBEARER has no password mechanism, and the proxy cannot mint a token its JWKS
 * would accept. The listener accepts that mechanism and this credential only on a connection the
 * proxy opened to itself ({@code own}, the proxy's {@link org.kafscale.proxy.core.security.OwnConnections}),
 * so for every other client nothing changes: the mechanism stays unlisted when not enabled, and
 * the probe's user name is unknown (its login fails like any wrong password) even with the secret.
 */
public final class ProbeLogin {
    /** SCRAM: the secret never crosses the connection, and the listener's side needs no key derivation. */
    public static final SaslMechanism MECHANISM = SaslMechanism.SCRAM_SHA_512;
    /** Kafka's minimum; the secret is random, so more iterations would only cost the probe time. */
    private static final int ITERATIONS = 4096;
    private static final int SECRET_BYTES = 32;
    private static final String NAME_PREFIX = "kafscale-proxy-probe-";

    private final String username;
    private final String secret;
    private final ScramCredential credential;
    private final Predicate<SocketAddress> own;

    private ProbeLogin(String username, String secret, ScramCredential credential, Predicate<SocketAddress> own) {
        this.username = username;
        this.secret = secret;
        this.credential = credential;
        this.own = own;
    }

    /**
     * A fresh login.
     *
     * @param own whether a client connection from an address is one the proxy opened to itself
     */
    public static ProbeLogin mint(Predicate<SocketAddress> own) {
        SecureRandom random = new SecureRandom();
        byte[] id = new byte[8];
        random.nextBytes(id);
        byte[] secret = new byte[SECRET_BYTES];
        random.nextBytes(secret);
        String password = Base64.getUrlEncoder().withoutPadding().encodeToString(secret);
        try {
            ScramCredential credential = new ScramFormatter(MECHANISM.scram().orElseThrow())
                    .generateCredential(password, ITERATIONS);
            return new ProbeLogin(NAME_PREFIX + HexFormat.of().formatHex(id), password, credential, own);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(MECHANISM.kafkaName() + " is not available in this JVM", e);
        }
    }

    /** The probe's user name (not secret: it appears as the probe connections' principal). */
    public String username() {
        return username;
    }

    /** What the probe's client logs in with. */
    public BackendSaslSettings clientSettings() {
        return BackendSaslSettings.password(MECHANISM.kafkaName(), username, secret);
    }

    /** Whether the listener lets {@code client} use {@link #MECHANISM} for this login. */
    boolean admits(SaslMechanism mechanism, SocketAddress client) {
        return mechanism == MECHANISM && own.test(client);
    }

    /** Whether {@code user} is the probe's name, which the credentials file never answers for. */
    boolean isProbeUser(String user) {
        return username.equals(user);
    }

    /** The probe's credential, for a connection the proxy opened to itself only. */
    Optional<ScramCredential> credentialFor(SaslMechanism mechanism, SocketAddress client) {
        return admits(mechanism, client) ? Optional.of(credential) : Optional.empty();
    }

    /** Never the secret. */
    @Override
    public String toString() {
        return MECHANISM.kafkaName() + " as " + username;
    }
}
