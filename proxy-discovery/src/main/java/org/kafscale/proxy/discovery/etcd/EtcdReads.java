package org.kafscale.proxy.discovery.etcd;

import java.util.concurrent.CompletableFuture;
import org.kafscale.proxy.discovery.SingleFlight;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The reads of etcd and the last one: callers while a read runs share it ({@link SingleFlight});
 * each read's result is put in force (the topology, the group leases) and told to the TTL gate.
 *
 * <p>A read after news (a watch event, a broker refusing a route or a coordinator role) is one
 * that starts after the news ({@link #fresh}): a read already running may have read etcd before
 * the change and would put the stale owner back.
 */
final class EtcdReads {
    /** The topology's logger name, which operators filter on. */
    private static final Logger LOGGER = LoggerFactory.getLogger(EtcdTopology.class);

    private final EtcdReader reader;
    private final LeasedCoordinators coordinators;
    private final TtlGate ttlGate;
    private final Runnable healthyRead;
    private final SingleFlight<EtcdRead> reads = new SingleFlight<>(this::readEtcd);
    private volatile EtcdRead last = EtcdRead.NONE;
    private volatile boolean closed;

    /** @param healthyRead told after each healthy read, once the read is in force */
    EtcdReads(EtcdReader reader, LeasedCoordinators coordinators, TtlGate ttlGate, Runnable healthyRead) {
        this.reader = reader;
        this.coordinators = coordinators;
        this.ttlGate = ttlGate;
        this.healthyRead = healthyRead;
    }

    /** The last read (before the first: {@link EtcdRead#NONE}). */
    EtcdRead last() {
        return last;
    }

    /** The read running now, or a new one. */
    CompletableFuture<EtcdRead> current() {
        return reads.current();
    }

    /** A read that starts after this call. */
    CompletableFuture<EtcdRead> fresh() {
        return reads.fresh();
    }

    /** The backstop: any read will do, a running one included. */
    void readQuietly() {
        if (!closed) {
            reads.current().exceptionally(e -> null);
        }
    }

    /** After news that etcd changed: a read that starts after the news. */
    void rereadQuietly() {
        if (!closed) {
            reads.fresh().exceptionally(e -> null);
        }
    }

    boolean closed() {
        return closed;
    }

    /** From here on reads are not asked for, and those still out report nothing. */
    void close() {
        closed = true;
    }

    private CompletableFuture<EtcdRead> readEtcd() {
        return reader.read(() -> last).thenApply(this::apply).whenComplete((read, error) -> {
            if (closed) {
                // Failed by close (the client is gone) or timed out after it: nothing about
                // etcd. Said, it was a "routing stops" line at every shutdown with a read out.
                return;
            }
            if (error != null) {
                ttlGate.failedRead(reader.failed(error));
            }
            ttlGate.report();
        });
    }

    private EtcdRead apply(EtcdRead read) {
        EtcdRead previous = last;
        last = read;
        coordinators.leased(read.groupLeases());
        if (read.healthy()) {
            ttlGate.healthyRead();
            healthyRead.run();
        }
        if (!previous.snapshot().brokers().equals(read.snapshot().brokers())) {
            LOGGER.info("etcd lists brokers {}", read.snapshot().brokers().values());
        }
        return read;
    }
}
