package org.kafscale.proxy.core.server;

import io.netty.channel.Channel;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Supplier;
import org.kafscale.proxy.core.logging.LogFields;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Decides whether a client connection is read ({@code autoRead}) from the reasons it has to pause
 * ({@link ReadPause}), logs each change of reasons at DEBUG, and tells the listener how long each
 * reason paused reading. Confined to the connection's event loop; time is read on the loop's
 * clock, so a test loop that moves time by hand moves it too.
 */
final class ReadGate {
    private static final Logger LOGGER = LoggerFactory.getLogger(ReadGate.class);
    private static final ReadPause[] REASONS = ReadPause.values();

    private final Channel channel;
    private final ConnectionListener listener;
    private final Runnable resumed;
    private final Supplier<String> client;
    private final LogFields fields;
    /** The reasons in force, one bit each ({@link ReadPause#bit}). */
    private int reasons;
    /** When each reason in force began, on the loop's clock. */
    private final long[] since = new long[REASONS.length];
    private boolean stopped;

    /**
     * @param resumed run whenever reading resumes
     * @param client names the client in log lines
     * @param fields the connection's fields, carried by those lines
     */
    ReadGate(Channel channel, ConnectionListener listener, Runnable resumed, Supplier<String> client,
             LogFields fields) {
        this.channel = channel;
        this.listener = listener;
        this.resumed = resumed;
        this.client = client;
        this.fields = fields;
    }

    /** Reads while no reason is given; pauses, or stays paused, for the reasons given. */
    void update(int reasonBits) {
        if (stopped || reasonBits == reasons) {
            return;
        }
        long now = channel.eventLoop().ticker().nanoTime();
        int ended = reasons & ~reasonBits;
        int began = reasonBits & ~reasons;
        for (ReadPause reason : REASONS) {
            if ((began & reason.bit()) != 0) {
                since[reason.ordinal()] = now;
            } else if ((ended & reason.bit()) != 0) {
                report(reason, now);
            }
        }
        boolean wasReading = reasons == 0;
        reasons = reasonBits;
        if (LOGGER.isDebugEnabled()) {
            if (reasonBits == 0) {
                fields.addTo(LOGGER.atDebug()).log("Reading from client {} resumes", client.get());
            } else {
                fields.addTo(LOGGER.atDebug()).log("Reading from client {} {}: {}", client.get(),
                        wasReading ? "pauses" : "stays paused", describe(reasonBits));
            }
        }
        boolean read = reasonBits == 0;
        if (channel.config().isAutoRead() != read) {
            channel.config().setAutoRead(read);
            if (read) {
                resumed.run();
            }
        }
    }

    /** Whether reading is paused for {@code reason}. */
    boolean pausedFor(ReadPause reason) {
        return (reasons & reason.bit()) != 0;
    }

    /** The connection closed: the pauses in force end here, and later updates change nothing. */
    void stop() {
        if (stopped) {
            return;
        }
        stopped = true;
        long now = channel.eventLoop().ticker().nanoTime();
        for (ReadPause reason : REASONS) {
            if ((reasons & reason.bit()) != 0) {
                report(reason, now);
            }
        }
        reasons = 0;
    }

    private void report(ReadPause reason, long now) {
        try {
            listener.readsPaused(reason, now - since[reason.ordinal()]);
        } catch (RuntimeException e) {
            LOGGER.debug("Connection listener failed in readsPaused", e);
        }
    }

    static List<String> describe(int reasonBits) {
        List<String> names = new ArrayList<>();
        for (ReadPause reason : REASONS) {
            if ((reasonBits & reason.bit()) != 0) {
                names.add(reason.label());
            }
        }
        return names;
    }
}
