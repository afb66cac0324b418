package org.kafscale.proxy.core.audit;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One sink behind a bounded queue, written by a thread of its own. {@link #offer} never waits: when
 * the queue is full the line is dropped and counted ({@link AuditSinkObserver#QUEUE_FULL}), so a
 * slow or stuck sink costs the request path nothing. Lines a write fails on are dropped and counted
 * too ({@link AuditSinkObserver#SINK_ERROR}), and the sink is down until a write or a
 * {@link AuditSink#probe} succeeds. Each sink has its own queue: a stuck file does not hold up the
 * topic.
 */
public final class SinkQueue implements AutoCloseable {
    private static final Logger LOGGER = LoggerFactory.getLogger(SinkQueue.class);
    /** Lines written in one call: a topic sink sends them as one flush. */
    static final int BATCH = 512;
    /** How often a down sink is probed while nothing is queued. */
    static final Duration PROBE_INTERVAL = Duration.ofSeconds(1);
    /** How long closing waits for the queued lines to be written. */
    static final Duration CLOSE_TIMEOUT = Duration.ofSeconds(5);

    private final AuditSink sink;
    private final AuditSinkObserver observer;
    private final BlockingQueue<String> queue;
    private final Thread writer;
    private volatile boolean down;
    /** While down: the write that failed and when (read by health; written by the sink's thread). */
    private volatile Outage outage;
    private volatile boolean closing;

    /**
     * Why a sink is down.
     *
     * @param sink the sink's name
     * @param failure the failed write's error
     * @param since when it went down
     */
    public record Outage(String sink, String failure, Instant since) {
    }

    /** Starts the sink's thread. */
    public SinkQueue(AuditSink sink, int capacity, AuditSinkObserver observer) {
        this.sink = sink;
        this.observer = observer;
        this.queue = new ArrayBlockingQueue<>(capacity);
        this.writer = new Thread(this::run, "audit-sink-" + sink.name());
        writer.setDaemon(true);
        writer.start();
    }

    public String name() {
        return sink.name();
    }

    /** Queues {@code line} for the sink, or drops and counts it when the queue is full. Never blocks. */
    public void offer(String line) {
        if (!queue.offer(line)) {
            observer.dropped(sink.name(), AuditSinkObserver.QUEUE_FULL, 1);
        }
    }

    /**
     * Whether a line offered now would be written, as far as can be told: the sink's last write
     * succeeded and its queue has room. failClosed refuses mutating calls while it is false.
     */
    public boolean accepting() {
        return !down && queue.remainingCapacity() > 0;
    }

    private void run() {
        List<String> batch = new ArrayList<>(BATCH);
        while (!closing || !queue.isEmpty()) {
            String first;
            try {
                first = queue.poll(PROBE_INTERVAL.toMillis(), TimeUnit.MILLISECONDS);
            } catch (InterruptedException e) {
                break;
            }
            if (first == null) {
                if (down && !closing) {
                    probe();
                }
                continue;
            }
            batch.add(first);
            queue.drainTo(batch, BATCH - 1);
            try {
                sink.write(batch);
                observer.written(sink.name(), batch.size());
                up();
            } catch (Exception e) {
                observer.dropped(sink.name(), AuditSinkObserver.SINK_ERROR, batch.size());
                down(e);
            }
            batch.clear();
        }
    }

    private void probe() {
        try {
            sink.probe();
            up();
        } catch (Exception e) {
            LOGGER.debug("Audit sink {} is still down: {}", sink.name(), e.toString());
        }
    }

    /** While the sink is down: why and since when. */
    public Optional<Outage> outage() {
        return Optional.ofNullable(outage);
    }

    private void up() {
        if (down) {
            down = false;
            outage = null;
            LOGGER.info("Audit sink {} writes again", sink.name());
        }
    }

    private void down(Exception e) {
        if (!down) {
            outage = new Outage(sink.name(), e.toString(), Instant.now());
            down = true;
            LOGGER.warn("Audit sink {} failed; its events are dropped until it writes again: {}", sink.name(),
                    e.toString());
        }
    }

    /** Writes what is queued (for at most {@link #CLOSE_TIMEOUT}), then closes the sink. */
    @Override
    public void close() {
        closing = true;
        try {
            writer.join(CLOSE_TIMEOUT.toMillis());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        if (writer.isAlive()) {
            writer.interrupt();
            int lost = queue.size();
            if (lost > 0) {
                observer.dropped(sink.name(), AuditSinkObserver.SINK_ERROR, lost);
            }
            LOGGER.warn("Audit sink {} did not finish writing within {} ms; {} events left unwritten", sink.name(),
                    CLOSE_TIMEOUT.toMillis(), lost);
        }
        try {
            sink.close();
        } catch (Exception e) {
            LOGGER.warn("Closing audit sink {} failed: {}", sink.name(), e.toString());
        }
    }
}
