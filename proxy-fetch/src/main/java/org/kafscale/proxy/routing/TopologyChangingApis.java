package org.kafscale.proxy.routing;

import io.netty.util.concurrent.Future;
import io.netty.util.concurrent.Promise;
import io.netty.util.concurrent.ScheduledFuture;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.message.CreatePartitionsRequestData;
import org.apache.kafka.common.message.CreatePartitionsResponseData;
import org.apache.kafka.common.message.CreateTopicsRequestData;
import org.apache.kafka.common.message.CreateTopicsResponseData;
import org.apache.kafka.common.message.DeleteTopicsResponseData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.ByteBufferAccessor;
import org.apache.kafka.common.protocol.Errors;
import org.kafscale.proxy.core.codec.RequestFrame;
import org.kafscale.proxy.core.codec.ResponseFrames;
import org.kafscale.proxy.core.server.ConnectionContext;
import org.kafscale.proxy.core.server.Reply;
import org.kafscale.proxy.core.topology.Topology;
import org.kafscale.proxy.core.topology.TopologySnapshot;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Holds the answer to CreateTopics, CreatePartitions and DeleteTopics until the topology shows
 * the change, so the client's next request through the proxy (a Metadata, a Produce) finds the
 * new topic, the new partitions, or no deleted topic. The proxy answers Metadata from its
 * snapshot, which would otherwise learn of the change only at its next periodic read.
 *
 * <p>What the change is comes from the broker's answer: only topics it reports done (error NONE,
 * not validate-only) are awaited. The topology is read afresh ({@link Topology#refresh()}) until
 * its snapshot shows them; a broker's metadata may lag the controller's answer by a moment, so one
 * read may not be enough. The hold is bounded by {@link #MAX_HOLD_MILLIS}: after it, or when a read
 * fails, the answer goes to the client anyway, as it would have without the wait. Nothing blocks:
 * every step runs on the connection's event loop.
 */
final class TopologyChangingApis {
    private static final Logger LOGGER = LoggerFactory.getLogger(TopologyChangingApis.class);
    /** Longest an answer is held waiting for the topology to show the change. */
    static final long MAX_HOLD_MILLIS = 2_000;
    /** Pause between reads while the snapshot does not show the change yet. */
    private static final long REREAD_PAUSE_MILLIS = 50;

    private final Topology topology;

    TopologyChangingApis(Topology topology) {
        this.topology = topology;
    }

    /**
     * For a request whose spec says it changes the topology (CreateTopics, CreatePartitions,
     * DeleteTopics): {@code answer} itself when it only validates; otherwise a reply completed with
     * it once the topology shows the change (or the bound passed). Call while the request is
     * being handled, so the connection's deadline allows for the hold.
     */
    Future<Reply> afterChangeVisible(ConnectionContext context, RequestFrame request, Future<Reply> answer) {
        if (validateOnly(request)) {
            return answer;
        }
        context.expectHeldFor(MAX_HOLD_MILLIS);
        Promise<Reply> held = context.newReply();
        answer.addListener(f -> {
            if (!f.isSuccess()) {
                held.tryFailure(f.cause());
                return;
            }
            Reply reply = (Reply) f.getNow();
            Predicate<TopologySnapshot> shown = reply instanceof Reply.Send send
                    ? changeDone(context, request, send) : null;
            if (shown == null) {
                if (!held.trySuccess(reply)) {
                    reply.discard();
                }
                return;
            }
            new Wait(context, held, reply, shown).start();
        });
        return held;
    }

    /** One held answer: reads until the snapshot shows the change, or the bound passes. Loop-confined. */
    private final class Wait {
        private final ConnectionContext context;
        private final Promise<Reply> held;
        private final Reply reply;
        private final Predicate<TopologySnapshot> shown;
        private final long deadlineNanos = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(MAX_HOLD_MILLIS);
        private boolean answered;
        private ScheduledFuture<?> bound;

        Wait(ConnectionContext context, Promise<Reply> held, Reply reply, Predicate<TopologySnapshot> shown) {
            this.context = context;
            this.held = held;
            this.reply = reply;
            this.shown = shown;
        }

        void start() {
            bound = context.loop().schedule(this::answer, MAX_HOLD_MILLIS, TimeUnit.MILLISECONDS);
            read();
        }

        private void read() {
            if (answered) {
                return;
            }
            if (shown.test(topology.snapshot())) {
                answer();
                return;
            }
            topology.refresh().whenComplete((snapshot, error) -> context.loop().execute(() -> {
                if (error != null) {
                    context.atDebug(LOGGER).setCause(error)
                            .log("Reading the topology after a topic change failed; answering anyway");
                    answer();
                } else if (shown.test(snapshot) || System.nanoTime() - deadlineNanos >= 0) {
                    answer();
                } else {
                    context.loop().schedule(this::read, REREAD_PAUSE_MILLIS, TimeUnit.MILLISECONDS);
                }
            }));
        }

        private void answer() {
            if (answered) {
                return;
            }
            answered = true;
            if (bound != null) {
                bound.cancel(false);
            }
            if (!held.trySuccess(reply)) {
                reply.discard();
            }
        }
    }

    /**
     * True when the request only asks whether it would succeed. A body that does not parse is
     * the broker's to refuse: it is relayed without a wait.
     */
    private static boolean validateOnly(RequestFrame request) {
        try {
            if (request.isApi(ApiKeys.CREATE_TOPICS)) {
                return request.decodeBody(CreateTopicsRequestData.class).validateOnly();
            }
            if (request.isApi(ApiKeys.CREATE_PARTITIONS)) {
                return request.decodeBody(CreatePartitionsRequestData.class).validateOnly();
            }
            return false;
        } catch (RuntimeException e) {
            return true;
        }
    }

    /**
     * A test that the snapshot shows every change the broker's answer reports done, or null when
     * it reports none (every topic failed) or does not parse (then it is relayed as it is).
     */
    private static Predicate<TopologySnapshot> changeDone(ConnectionContext context, RequestFrame request,
                                                         Reply.Send answer) {
        ApiKeys api = ApiKeys.forId(request.apiKey());
        short version = request.apiVersion();
        List<Predicate<TopologySnapshot>> each = new ArrayList<>();
        try {
            ByteBufferAccessor body = ResponseFrames.body(api, version, answer.frame());
            switch (api) {
                case CREATE_TOPICS -> new CreateTopicsResponseData(body, version).topics().forEach(t -> {
                    if (t.errorCode() == Errors.NONE.code()) {
                        each.add(s -> s.topic(t.name()).isPresent());
                    }
                });
                case CREATE_PARTITIONS -> {
                    Map<String, Integer> counts = new HashMap<>();
                    request.decodeBody(CreatePartitionsRequestData.class).topics()
                            .forEach(t -> counts.put(t.name(), t.count()));
                    new CreatePartitionsResponseData(body, version).results().forEach(r -> {
                        Integer count = counts.get(r.name());
                        if (r.errorCode() == Errors.NONE.code() && count != null) {
                            each.add(s -> s.topic(r.name()).map(t -> t.partitions().size() >= count).orElse(false));
                        }
                    });
                }
                case DELETE_TOPICS -> new DeleteTopicsResponseData(body, version).responses().forEach(r -> {
                    if (r.errorCode() == Errors.NONE.code()) {
                        String name = r.name();
                        Uuid id = r.topicId();
                        each.add(s -> name != null ? s.topic(name).isEmpty()
                                : Uuid.ZERO_UUID.equals(id) || s.topic(id).isEmpty());
                    }
                });
                default -> {
                    return null;
                }
            }
        } catch (RuntimeException e) {
            context.atDebug(LOGGER).setCause(e).log("{}: answer does not parse; relaying it without waiting",
                    request.describe());
            return null;
        }
        if (each.isEmpty()) {
            return null;
        }
        return s -> each.stream().allMatch(p -> p.test(s));
    }
}
