package org.kafscale.proxy.routing.fetch;

import io.netty.channel.EventLoop;
import io.netty.util.concurrent.Future;
import io.netty.util.concurrent.ScheduledFuture;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.common.message.FetchResponseData;
import org.kafscale.proxy.routing.engine.CompletionPolicy;
import org.kafscale.proxy.routing.engine.Part;

/**
 * When a Fetch is answered: no waiting on the slowest broker. Once one part brought records, the
 * client gets them after at most {@link #DATA_LINGER_MICROS} more for parts that may still bring
 * data (sent less than {@link #LONG_POLL_AFTER_MICROS} ago, not adopted); whatever happens, within
 * its max wait plus {@link #DEADLINE_MARGIN_MILLIS}. Parts still out then are handed back to the
 * {@link FetchApi} to park or keep. One per Fetch.
 */
final class FetchCompletion implements CompletionPolicy<FetchResponseData> {
    /** How long parts still in flight may join an answer once another part brought records. */
    static final long DATA_LINGER_MICROS = 2_000;
    /**
     * A part older than this is long-polling a broker that had no data when it was sent (a broker
     * with data answers within a millisecond or two, more under load), so lingering for it would
     * only add latency: parked polls adopted from an earlier Fetch always are.
     */
    static final long LONG_POLL_AFTER_MICROS = 5_000;
    /** How far past the client's max wait the proxy may take before answering with what it has. */
    static final long DEADLINE_MARGIN_MILLIS = 100;

    private final FetchApi fetch;
    private EventLoop loop;
    private Runnable answerNow;
    private ScheduledFuture<?> linger;

    FetchCompletion(FetchApi fetch) {
        this.fetch = fetch;
    }

    @Override
    public void started(EventLoop loop, Future<?> answered, Runnable answerNow) {
        this.loop = loop;
        this.answerNow = answerNow;
        ScheduledFuture<?> deadline = loop.schedule(answerNow, fetch.maxWaitMillis() + DEADLINE_MARGIN_MILLIS,
                TimeUnit.MILLISECONDS);
        answered.addListener(f -> {
            deadline.cancel(false);
            if (linger != null) {
                linger.cancel(false);
            }
        });
    }

    /**
     * Brokers that have data answer within a millisecond or two, so a short linger lets their parts
     * join while a broker that is long-polling is not waited for. When every part still out is
     * already long-polling, there is nothing to linger for.
     */
    @Override
    public void stillInFlight(List<Part<FetchResponseData>> inFlight) {
        if (!fetch.anyRecords()) {
            return;
        }
        long now = System.nanoTime();
        for (Part<FetchResponseData> part : inFlight) {
            if (!part.adopted() && now - part.startedNanos() < TimeUnit.MICROSECONDS.toNanos(LONG_POLL_AFTER_MICROS)) {
                if (linger == null) {
                    linger = loop.schedule(answerNow, DATA_LINGER_MICROS, TimeUnit.MICROSECONDS);
                }
                return;
            }
        }
        answerNow.run();
    }

    @Override
    public void leftInFlight(Part<FetchResponseData> part) {
        fetch.stillPolling(part);
    }
}
