package org.kafscale.proxy.routing.engine;

import io.netty.util.concurrent.Future;
import java.util.List;
import org.kafscale.proxy.core.topology.BrokerEndpoint;
import org.kafscale.proxy.core.topology.PartitionRef;
import org.kafscale.proxy.core.backend.Answer;

/**
 * One broker's share of a request in one attempt: which partitions went where, and when.
 * Event-loop confined, like its exchange.
 */
public final class Part<R> {
    private final BrokerEndpoint broker;
    private final List<PartitionRef> partitions;
    private final long startedNanos = System.nanoTime();
    private boolean adopted;
    private Future<Answer<R>> answer;
    private boolean abandoned;

    Part(BrokerEndpoint broker, List<PartitionRef> partitions) {
        this.broker = broker;
        this.partitions = partitions;
    }

    public BrokerEndpoint broker() {
        return broker;
    }

    public List<PartitionRef> partitions() {
        return partitions;
    }

    /** {@link System#nanoTime()} when the exchange sent (or adopted) this part. */
    public long startedNanos() {
        return startedNanos;
    }

    /** The part is an earlier exchange's request taken over, not one sent by this exchange. */
    public boolean adopted() {
        return adopted;
    }

    public void markAdopted() {
        adopted = true;
    }

    /** The broker's answer to come. */
    public Future<Answer<R>> answer() {
        return answer;
    }

    void answer(Future<Answer<R>> answer) {
        this.answer = answer;
    }

    boolean abandoned() {
        return abandoned;
    }

    void abandon() {
        abandoned = true;
    }
}
