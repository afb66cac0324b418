package org.kafscale.proxy.core.security.tls;

import io.netty.handler.ssl.SslContext;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.Arrays;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The listener's current server context, rebuilt when its files change. A check reads every file
 * and compares a digest of their contents, not their modification times: Kubernetes replaces a
 * mounted secret by swapping a symbolic link, which leaves the times of the paths the proxy was
 * given unchanged. New connections take the context current when they are accepted; open ones
 * keep the session they negotiated.
 *
 * <p>A change that does not build (a half-written file, a certificate whose key has not been
 * replaced yet, a bad file) is logged once and the previous context stays; the next change is
 * tried again. Checks run on one background thread, never on an event loop.
 */
final class ReloadingSslContext {
    private static final Logger LOGGER = LoggerFactory.getLogger(ReloadingSslContext.class);

    private final ListenerTlsSettings settings;
    private volatile Contexts current;
    /** Digest of the files {@link #current} was built from. Touched by the checking thread only. */
    private byte[] loaded;
    /** Digest of the last contents that failed to build, so each failure is logged once. */
    private byte[] failed;

    /** The listener's server context and the readiness probe's client context, built from the same files. */
    private record Contexts(SslContext server, SslContext selfClient) {
        static Contexts build(ListenerTlsSettings settings) {
            return new Contexts(ServerSslContexts.build(settings), ServerSslContexts.buildSelfClient(settings));
        }
    }

    private ReloadingSslContext(ListenerTlsSettings settings, Contexts current, byte[] loaded) {
        this.settings = settings;
        this.current = current;
        this.loaded = loaded;
    }

    /** Builds the first context; a failure here is the caller's to report (start-up stops). */
    static ReloadingSslContext load(ListenerTlsSettings settings) {
        byte[] digest = digestOrNull(settings);
        return new ReloadingSslContext(settings, Contexts.build(settings), digest);
    }

    /** The server context for a new client connection. */
    SslContext current() {
        return current.server();
    }

    /** The client context for a new readiness-probe connection to the listener. */
    SslContext currentSelfClient() {
        return current.selfClient();
    }

    /**
     * Rebuilds the context if the files' contents changed since the last build.
     *
     * @return whether a new context is now current
     */
    boolean reloadIfChanged() {
        byte[] digest = digestOrNull(settings);
        if (digest == null || Arrays.equals(digest, loaded) || Arrays.equals(digest, failed)) {
            return false;
        }
        try {
            Contexts rebuilt = Contexts.build(settings);
            current = rebuilt;
            loaded = digest;
            failed = null;
            LOGGER.info("Kafka listener TLS material reloaded from {}: new connections use it, open ones keep theirs",
                    settings.files());
            return true;
        } catch (RuntimeException e) {
            failed = digest;
            LOGGER.warn("Kafka listener TLS material changed but cannot be used ({}); keeping the previous "
                    + "certificate until the files change again", e.getMessage());
            LOGGER.debug("TLS reload failure detail", e);
            return false;
        }
    }

    /** A digest of every file's path and contents, or null when one cannot be read right now. */
    private static byte[] digestOrNull(ListenerTlsSettings settings) {
        MessageDigest sha;
        try {
            sha = MessageDigest.getInstance("SHA-256");
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("the JDK has no SHA-256", e);
        }
        for (Path file : settings.files()) {
            sha.update(file.toString().getBytes(StandardCharsets.UTF_8));
            try {
                sha.update(Files.readAllBytes(file));
            } catch (IOException e) {
                // Between a delete and a create of a replacement: the next check sees the new file.
                LOGGER.debug("TLS file {} unreadable during a reload check: {}", file, e.toString());
                return null;
            }
        }
        return sha.digest();
    }
}
