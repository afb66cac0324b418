package org.kafscale.proxy.routing.fetch;

import io.netty.channel.EventLoop;
import io.netty.util.concurrent.Future;
import io.netty.util.concurrent.ScheduledFuture;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.common.message.FetchRequestData.FetchPartition;
import org.apache.kafka.common.message.FetchResponseData;
import org.apache.kafka.common.protocol.Errors;
import org.kafscale.proxy.core.backend.Answer;
import org.kafscale.proxy.core.hooks.RoutingObserver.ReadAheadOutcome;
import org.kafscale.proxy.core.logging.LogFields;
import org.kafscale.proxy.core.logging.RateLimitedLog;
import org.kafscale.proxy.core.topology.PartitionRef;
import org.kafscale.proxy.routing.engine.RetryPolicy;

/**
 * One connection's Fetch parts that no exchange waits for yet: at most one per broker, each
 * adopted only by a later Fetch of the connection that asks that broker the same (or a part of
 * it, {@link Asked#covers}).
 *
 * <p>Two kinds. A <b>parked poll</b> was still long-polling a broker when the client was answered
 * from another broker: while a consumer gets nothing from a broker, its next Fetch asks that broker
 * for the same partitions at the same offsets with the same limits, so the parked part is exactly
 * the request to wait for. Without this, every client Fetch would stack one more long poll on each
 * idle broker (a broker answers one request per connection at a time), and after a burst a new
 * record could wait behind seconds of queued polls. A parked poll's answer is released when it
 * arrives unadopted: the client fetches those partitions again anyway.
 *
 * <p>A <b>read-ahead</b> is a part parked before it is asked: after a broker's part brought records,
 * the same partitions at the offsets the client will fetch next ({@link ReadAhead}). Its answer is
 * kept when it arrives (within the {@link ReadAheadBudget}, for at most {@link #MAX_HELD_MILLIS})
 * until the client's next Fetch adopts it; a Fetch that asks that broker anything else (a seek,
 * a pause, another isolation level or max bytes, partitions moved away) discards it, and so does
 * an answer carrying any error (a leader move: the client must see the refusal from a fresh fetch)
 * and the connection closing.
 *
 * <p>Confined to the connection's event loop.
 */
public final class ParkedPolls {
    /**
     * How long an answer read ahead is held for a Fetch that does not come (a consumer that paused
     * or stopped fetching that broker's partitions); a held answer's high watermark ages with it.
     */
    static final long MAX_HELD_MILLIS = 10_000;

    private final RateLimitedLog failures;
    private final LogFields connection;
    private final ReadAheadBudget budget;
    private final Map<Integer, Parked> byBroker = new HashMap<>();
    private boolean closed;

    /**
     * @param failures where a parked part that failed is reported
     * @param connection the client connection's log fields, which that line carries
     * @param budget the process-wide bound on held read-ahead answers
     */
    ParkedPolls(RateLimitedLog failures, LogFields connection, ReadAheadBudget budget) {
        this.failures = failures;
        this.connection = connection;
        this.budget = budget;
    }

    /**
     * What a part asked its broker: each partition's entry (offset, partition max bytes, epochs),
     * the request's max bytes and isolation level, and the version the answer is read at. An answer
     * adopted for a different question could be wrong for it (records over the new limit,
     * uncommitted records for read_committed, fields of another version passed through).
     */
    public record Asked(Map<PartitionRef, FetchPartition> partitions, int maxBytes, byte isolationLevel, short version) {
        /**
         * Whether an answer to this also answers {@code other}: the same limits, isolation level
         * and version, and every partition {@code other} asks asked here exactly as there. The
         * partitions only this one asks are left out of the client's answer; the client asks them
         * again from where it stands (a Java consumer leaves out the partitions whose records it
         * still buffers, and asks them the Fetch after).
         */
        boolean covers(Asked other) {
            if (maxBytes != other.maxBytes || isolationLevel != other.isolationLevel || version != other.version
                    || other.partitions.size() > partitions.size()) {
                return false;
            }
            for (Map.Entry<PartitionRef, FetchPartition> asked : other.partitions.entrySet()) {
                if (!asked.getValue().equals(partitions.get(asked.getKey()))) {
                    return false;
                }
            }
            return true;
        }
    }

    /**
     * A part taken over by a Fetch.
     *
     * @param sentAhead sent after its broker returned records (likely to bring more soon), not a
     *                  poll left behind by an earlier Fetch, which is long-polling an idle broker
     * @param covering it asked more partitions than the adopting Fetch: its answer must be merged
     *                 (the extra partitions left out), never passed through as it came
     */
    public record Adopted(Future<Answer<FetchResponseData>> answer, boolean sentAhead, boolean covering) {
    }

    private final class Parked {
        final int brokerId;
        final Asked asked;
        final Future<Answer<FetchResponseData>> answer;
        final boolean readAhead;
        final boolean sentAhead;
        boolean adopted;
        boolean discarded;
        /** Bytes reserved in the budget while the arrived answer is held; 0 while none is. */
        long heldBytes;
        ScheduledFuture<?> expiry;

        Parked(int brokerId, Asked asked, Future<Answer<FetchResponseData>> answer, boolean readAhead,
               boolean sentAhead) {
            this.brokerId = brokerId;
            this.asked = asked;
            this.answer = answer;
            this.readAhead = readAhead;
            this.sentAhead = sentAhead;
        }

        /** The answer arrived with nobody waiting for it: held when read ahead and sound, else released. */
        void arrived(EventLoop loop) {
            if (adopted) {
                return;
            }
            if (!answer.isSuccess()) {
                byBroker.remove(brokerId, this);
                // Its channel is closed already; the client, answered meanwhile, fetches these
                // partitions again and that Fetch goes on a fresh channel.
                if (!RetryPolicy.cancelled(answer.cause()) && !closed) {
                    failures.warn(connection,
                            "{} Fetch part at broker {} failed: {}; the next Fetch goes on a fresh channel",
                            readAhead ? "Read-ahead" : "Parked", brokerId, answer.cause().getMessage());
                }
                return;
            }
            Answer<FetchResponseData> arrived = answer.getNow();
            long bytes = arrived.frame().readableBytes();
            if (!readAhead || discarded || byBroker.get(brokerId) != this) {
                // A parked poll nobody adopted, or a read-ahead dropped (and reported) already.
                byBroker.remove(brokerId, this);
                arrived.frame().release();
                return;
            }
            ReadAheadOutcome dropped = closed ? ReadAheadOutcome.CLOSED
                    : anyError(arrived.body()) ? ReadAheadOutcome.ERROR
                    : !budget.reserve(bytes) ? ReadAheadOutcome.OVER_BUDGET
                    : null;
            if (dropped != null) {
                byBroker.remove(brokerId, this);
                arrived.frame().release();
                budget.outcome(dropped);
                return;
            }
            heldBytes = bytes;
            expiry = loop.schedule(() -> discard(ReadAheadOutcome.EXPIRED), MAX_HELD_MILLIS, TimeUnit.MILLISECONDS);
        }

        /**
         * No Fetch will take this: a held answer is released now, one still to come when it
         * arrives. A read-ahead reports why ({@code why}) once, now or as it arrives.
         */
        void discard(ReadAheadOutcome why) {
            if (discarded) {
                return;
            }
            byBroker.remove(brokerId, this);
            discarded = true;
            if (readAhead) {
                budget.outcome(why);
            }
            if (heldBytes > 0) {
                releaseHeld();
                answer.getNow().frame().release();
            }
        }

        /** Taken by a Fetch: the answer (held or still to come) is the exchange's from here on. */
        Adopted adopt(boolean covering) {
            byBroker.remove(brokerId, this);
            adopted = true;
            if (readAhead) {
                budget.outcome(ReadAheadOutcome.ADOPTED);
            }
            if (heldBytes > 0) {
                releaseHeld();
            }
            return new Adopted(answer, sentAhead, covering);
        }

        private void releaseHeld() {
            budget.release(heldBytes);
            heldBytes = 0;
            if (expiry != null) {
                expiry.cancel(false);
            }
        }
    }

    /** Keeps a part no exchange waits for any more; its answer is released unless adopted first. */
    public void park(int brokerId, Asked asked, Future<Answer<FetchResponseData>> answer, EventLoop loop) {
        keep(new Parked(brokerId, asked, answer, false, false), loop);
    }

    /**
     * Keeps a part whose answer is held for the Fetch that will ask it: one sent ahead of that
     * Fetch ({@code sentAhead}), or one abandoned still polling.
     */
    void readAhead(int brokerId, Asked asked, Future<Answer<FetchResponseData>> answer, EventLoop loop,
                   boolean sentAhead) {
        keep(new Parked(brokerId, asked, answer, true, sentAhead), loop);
    }

    private void keep(Parked parked, EventLoop loop) {
        Parked earlier = byBroker.put(parked.brokerId, parked);
        if (earlier != null && earlier.readAhead) {
            earlier.discard(ReadAheadOutcome.MISSED);
        }
        // A parked poll replaced here is released when it arrives: it is no longer the broker's entry.
        parked.answer.addListener(f -> parked.arrived(loop));
    }

    /**
     * The parked part for {@code brokerId} when it asked this (the same partitions, offsets and
     * limits, or more partitions with those the same: {@link Asked#covers}): a parked poll still in
     * flight, or a read-ahead in flight or held. A read-ahead that asked anything else is
     * discarded: the client moved on (a seek, new limits, a partition resumed).
     */
    public Optional<Adopted> adopt(int brokerId, Asked asked) {
        Parked parked = byBroker.get(brokerId);
        if (parked == null) {
            return Optional.empty();
        }
        if (!parked.asked.covers(asked)) {
            if (parked.readAhead) {
                parked.discard(ReadAheadOutcome.MISSED);
            }
            return Optional.empty();
        }
        if (parked.answer.isDone() && parked.heldBytes == 0) {
            return Optional.empty(); // arrived and released (a parked poll), or failed
        }
        return Optional.of(parked.adopt(parked.asked.partitions().size() > asked.partitions().size()));
    }

    /** Whether a part for {@code brokerId} is kept (in flight or held). */
    boolean holds(int brokerId) {
        return byBroker.containsKey(brokerId);
    }

    /** The connection closed: every held answer is released, every one still to come when it arrives. */
    void close() {
        closed = true;
        List.copyOf(byBroker.values()).forEach(p -> p.discard(ReadAheadOutcome.CLOSED));
    }

    private static boolean anyError(FetchResponseData response) {
        if (response.errorCode() != Errors.NONE.code()) {
            return true;
        }
        for (FetchResponseData.FetchableTopicResponse topic : response.responses()) {
            for (FetchResponseData.PartitionData partition : topic.partitions()) {
                if (partition.errorCode() != Errors.NONE.code()) {
                    return true;
                }
            }
        }
        return false;
    }
}
