package org.kafscale.proxy.routing.fetch;

import org.apache.kafka.common.message.FetchRequestData.FetchPartition;
import org.apache.kafka.common.message.FetchResponseData;
import org.kafscale.proxy.core.backend.Answer;
import io.netty.util.concurrent.Future;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;
import org.kafscale.proxy.core.topology.PartitionRef;
import org.kafscale.proxy.core.logging.RateLimitedLog;
import org.kafscale.proxy.routing.engine.RetryPolicy;

/**
 * One connection's Fetch parts that were still long-polling a broker when the client was answered
 * from another broker.
 *
 * <p>While a consumer gets nothing from a broker, its next Fetch asks that broker for the same
 * partitions at the same offsets with the same limits, so the parked part is exactly the request
 * to wait for: the next exchange adopts it instead of sending another. Without this, every client Fetch would stack one
 * more long poll on each idle broker (a broker answers one request per connection at a time), and
 * after a burst a new record could wait behind seconds of queued polls.
 */
public final class ParkedPolls {
    private final RateLimitedLog failures;
    private final Map<Integer, Parked> byBroker = new HashMap<>();

    /** @param failures where a parked part that failed is reported */
    ParkedPolls(RateLimitedLog failures) {
        this.failures = failures;
    }

    /**
     * What a part asked its broker: each partition's entry (offset, partition max bytes, epochs),
     * the request's max bytes and isolation level. An answer adopted for a different question could
     * be wrong for it (records over the new limit, uncommitted records for read_committed).
     */
    public record Asked(Map<PartitionRef, FetchPartition> partitions, int maxBytes, byte isolationLevel) {
    }

    private static final class Parked {
        final Asked asked;
        final Future<Answer<FetchResponseData>> answer;
        boolean adopted;

        Parked(Asked asked, Future<Answer<FetchResponseData>> answer) {
            this.asked = asked;
            this.answer = answer;
        }
    }

    /** Keeps a part no exchange waits for any more; its answer is released unless adopted first. */
    public void park(int brokerId, Asked asked, Future<Answer<FetchResponseData>> answer) {
        Parked parked = new Parked(asked, answer);
        byBroker.put(brokerId, parked);
        answer.addListener(f -> {
            byBroker.remove(brokerId, parked);
            if (parked.adopted) {
                return;
            }
            if (f.isSuccess()) {
                parked.answer.getNow().frame().release();
            } else {
                // Its channel is closed already; the client, answered meanwhile, fetches these
                // partitions again and that Fetch goes on a fresh channel.
                if (!RetryPolicy.cancelled(f.cause())) {
                    failures.warn("Parked Fetch part at broker {} failed: {}; the next Fetch goes on a fresh channel",
                            brokerId, f.cause().getMessage());
                }
            }
        });
    }

    /** The parked part for {@code brokerId} when it asked exactly this (same partitions, offsets and limits). */
    public Optional<Future<Answer<FetchResponseData>>> adopt(int brokerId, Asked asked) {
        Parked parked = byBroker.get(brokerId);
        if (parked == null || parked.answer.isDone() || !parked.asked.equals(asked)) {
            return Optional.empty();
        }
        byBroker.remove(brokerId);
        parked.adopted = true;
        return Optional.of(parked.answer);
    }
}
