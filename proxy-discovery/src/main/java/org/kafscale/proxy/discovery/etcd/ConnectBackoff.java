package org.kafscale.proxy.discovery.etcd;

import io.etcd.jetcd.Client;
import io.grpc.ManagedChannel;
import java.lang.reflect.Field;
import java.lang.reflect.Method;
import java.time.Duration;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Cuts short the etcd client's wait between connection attempts.
 *
 * <p>jetcd's gRPC channel waits out an exponential backoff after each failed attempt (1 s, growing
 * by 1.6 up to 2 min; jetcd offers no setting for it), and every call waits for the channel to
 * connect. After an outage past the TTL, the next attempt could come 10 s or more after etcd is
 * back, and routing with it. gRPC's {@link ManagedChannel#resetConnectBackoff()} makes a channel
 * that is waiting try again at once (and does nothing to one that is connected or connecting).
 * jetcd keeps its channel private, so it is reached by reflection; a client built differently
 * (another jetcd version, a test double) keeps its backoff, which is said once at WARN.
 */
final class ConnectBackoff {
    private static final Logger LOGGER = LoggerFactory.getLogger(ConnectBackoff.class);

    /**
     * How often, while reads fail, the etcd client is told to try connecting again: routing
     * resumes within about this much of etcd answering, instead of when the client's own
     * backoff ends.
     */
    private static final Duration RECONNECT_INTERVAL = Duration.ofMillis(500);

    private ConnectBackoff() {
    }

    /**
     * While {@code failing} holds, resets {@code client}'s backoff every {@link #RECONNECT_INTERVAL}
     * on {@code scheduler}: a read waiting for the connection then goes through as soon as etcd is
     * back. Healthy, nothing is done.
     */
    static void cutShortWhile(BooleanSupplier failing, Client client, ScheduledExecutorService scheduler) {
        Runnable reset = resetter(client);
        scheduler.scheduleWithFixedDelay(() -> {
            if (failing.getAsBoolean()) {
                reset.run();
            }
        }, RECONNECT_INTERVAL.toMillis(), RECONNECT_INTERVAL.toMillis(), TimeUnit.MILLISECONDS);
    }

    /** What resets {@code client}'s backoff; a no-op when its channel cannot be reached. */
    private static Runnable resetter(Client client) {
        try {
            Field managerField = client.getClass().getDeclaredField("connectionManager");
            managerField.setAccessible(true);
            Object manager = managerField.get(client);
            Method channel = manager.getClass().getDeclaredMethod("getChannel");
            channel.setAccessible(true);
            return () -> {
                try {
                    ((ManagedChannel) channel.invoke(manager)).resetConnectBackoff();
                } catch (ReflectiveOperationException | RuntimeException e) {
                    LOGGER.debug("Resetting the etcd client's reconnect backoff failed", e);
                }
            };
        } catch (ReflectiveOperationException | RuntimeException e) {
            LOGGER.warn("Cannot reach the gRPC channel of etcd client {} ({}); after an etcd outage, routing resumes only "
                    + "when the client's own reconnect backoff ends", client.getClass().getName(), e.toString());
            return () -> { };
        }
    }
}
