package org.kafscale.proxy.core.security.tls;

import io.netty.handler.ssl.SslContext;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.lang.ref.WeakReference;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.Arrays;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * TLS material built from files (the listener's server context, the broker channels' client
 * context), rebuilt when the files change. A check reads every file and compares a digest of
 * their contents, not their modification times: Kubernetes replaces a mounted secret by swapping a
 * symbolic link, which leaves the times of the paths the proxy was given unchanged. New
 * connections take the material current when they start; open ones keep the session they
 * negotiated.
 *
 * <p>A change that does not build (a half-written file, a certificate whose key has not been
 * replaced yet, a bad file) is logged once and the previous material stays; the next change is
 * tried again. Checks run on a background thread, never on an event loop.
 *
 * @param <T> what is built from the files
 */
public final class ReloadingSslContext<T> {
    private static final Logger LOGGER = LoggerFactory.getLogger(ReloadingSslContext.class);

    /** Names the material in log lines, such as "Kafka listener TLS material". */
    private final String what;
    private final List<Path> files;
    private final Supplier<T> build;
    private volatile T current;
    /** Digest of the files {@link #current} was built from. Touched by the checking thread only. */
    private byte[] loaded;
    /** Digest of the last contents that failed to build, so each failure is logged once. */
    private byte[] failed;

    private ReloadingSslContext(String what, List<Path> files, Supplier<T> build, T current, byte[] loaded) {
        this.what = what;
        this.files = files;
        this.build = build;
        this.current = current;
        this.loaded = loaded;
    }

    /**
     * Builds the first material; a failure here is the caller's to report (start-up stops).
     *
     * @param what names the material in log lines
     * @param files the files it is built from, all of them
     * @param build builds it from the files as they are now; throws when they cannot be used
     */
    public static <T> ReloadingSslContext<T> load(String what, List<Path> files, Supplier<T> build) {
        List<Path> watched = List.copyOf(files);
        byte[] digest = digestOrNull(watched);
        return new ReloadingSslContext<>(what, watched, build, build.get(), digest);
    }

    /** The listener's server context and the readiness probe's client context, built from the same files. */
    record ListenerContexts(SslContext server, SslContext selfClient) {
    }

    /** The Kafka listener's material. */
    static ReloadingSslContext<ListenerContexts> load(ListenerTlsSettings settings) {
        return load("Kafka listener TLS material", settings.files(), () -> new ListenerContexts(
                ServerSslContexts.build(settings), ServerSslContexts.buildSelfClient(settings)));
    }

    /**
     * Checks the files every {@code interval} on a thread shared by the whole JVM, for as long as
     * this material is in use: the check holds it weakly, so material its owner dropped (a broker
     * connector has no close of its own) stops being checked once it is collected.
     */
    public void follow(Duration interval) {
        if (files.isEmpty()) {
            return;
        }
        WeakReference<ReloadingSslContext<?>> followed = new WeakReference<>(this);
        AtomicReference<ScheduledFuture<?>> task = new AtomicReference<>();
        task.set(SharedChecks.THREAD.scheduleWithFixedDelay(() -> {
            ReloadingSslContext<?> material = followed.get();
            if (material == null) {
                ScheduledFuture<?> self = task.get();
                if (self != null) {
                    self.cancel(false);
                }
                return;
            }
            material.reloadIfChanged();
        }, interval.toMillis(), interval.toMillis(), TimeUnit.MILLISECONDS));
    }

    /** The JVM's one thread for {@link #follow} checks, started with the first. */
    private static final class SharedChecks {
        static final ScheduledExecutorService THREAD = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread thread = new Thread(r, "tls-file-checks");
            thread.setDaemon(true);
            return thread;
        });
    }

    /** The material for a new connection. */
    public T current() {
        return current;
    }

    /** The files the material is built from. */
    public List<Path> files() {
        return files;
    }

    /**
     * Rebuilds the material if the files' contents changed since the last build.
     *
     * @return whether new material is now current
     */
    public boolean reloadIfChanged() {
        byte[] digest = digestOrNull(files);
        if (digest == null || Arrays.equals(digest, loaded) || Arrays.equals(digest, failed)) {
            return false;
        }
        try {
            T rebuilt = build.get();
            current = rebuilt;
            loaded = digest;
            failed = null;
            LOGGER.info("{} reloaded from {}: new connections use it, open ones keep theirs", what, files);
            return true;
        } catch (RuntimeException e) {
            failed = digest;
            LOGGER.warn("{} changed but cannot be used ({}); keeping the previous certificate until the files "
                    + "change again", what, e.getMessage());
            LOGGER.debug("TLS reload failure detail", e);
            return false;
        }
    }

    /** A digest of every file's path and contents, or null when one cannot be read right now. */
    private static byte[] digestOrNull(List<Path> files) {
        MessageDigest sha;
        try {
            sha = MessageDigest.getInstance("SHA-256");
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("the JDK has no SHA-256", e);
        }
        for (Path file : files) {
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
