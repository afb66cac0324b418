package org.kafscale.proxy.routing.share;

import io.netty.buffer.ByteBuf;
import io.netty.util.concurrent.Future;
import io.netty.util.concurrent.Promise;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Function;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.message.ShareAcknowledgeRequestData;
import org.apache.kafka.common.message.ShareAcknowledgeResponseData;
import org.apache.kafka.common.message.ShareFetchRequestData;
import org.apache.kafka.common.message.ShareFetchResponseData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.protocol.ByteBufferAccessor;
import org.apache.kafka.common.protocol.Errors;
import org.kafscale.proxy.core.backend.Answer;
import org.kafscale.proxy.core.backend.BackendException;
import org.kafscale.proxy.core.codec.RequestFrame;
import org.kafscale.proxy.core.codec.RequestFrames;
import org.kafscale.proxy.core.codec.ResponseFrames;
import org.kafscale.proxy.core.logging.RateLimitedLog;
import org.kafscale.proxy.core.server.ConnectionContext;
import org.kafscale.proxy.core.server.Replies;
import org.kafscale.proxy.core.server.Reply;
import org.kafscale.proxy.core.topology.BrokerEndpoint;
import org.kafscale.proxy.core.topology.TopicLayout;
import org.kafscale.proxy.core.topology.TopologySnapshot;
import org.kafscale.proxy.routing.engine.Guard;
import org.kafscale.proxy.routing.engine.RoutingServices;
import org.slf4j.LoggerFactory;

/**
 * ShareFetch and ShareAcknowledge (KIP-932) of one client connection, split by partition owner
 * with the share sessions kept per broker ({@link ClientShareSession}).
 *
 * <p>Every broker part is sent on the connection's ordered channel to that broker: a broker ties a
 * share session to the connection that opened it and drops it (releasing the member's acquired
 * records) when that connection closes, so the session's requests must keep to one connection,
 * which closes with the client's.
 *
 * <p>The answer waits for every part: a part's answer may carry records its broker acquired for
 * the member, and an answer dropped or delayed past the client's next request would leave them
 * locked until the acquisition lock times out. A broker answers a ShareFetch within its max wait,
 * so the wait is bounded by the client's own.
 */
public final class ShareRoute {
    private final RateLimitedLog refusals = RateLimitedLog.every10Seconds(LoggerFactory.getLogger(ShareRoute.class));
    private final RoutingServices services;
    private final ShareAnswers answers;
    private final ShareSessions sessions = new ShareSessions();

    /** One per client connection: the sessions it holds die with it. */
    public ShareRoute(RoutingServices services, ShareAnswers answers) {
        this.services = services;
        this.answers = answers;
    }

    public Future<Reply> handle(ConnectionContext context, RequestFrame request, ShareFetchRequestData data) {
        ShareSessions.Key key = new ShareSessions.Key(data.groupId(), data.memberId());
        int epoch = data.shareSessionEpoch();
        return inTurn(context, request, key, epoch, entry -> fetch(context, request, data, key, entry));
    }

    public Future<Reply> handle(ConnectionContext context, RequestFrame request, ShareAcknowledgeRequestData data) {
        ShareSessions.Key key = new ShareSessions.Key(data.groupId(), data.memberId());
        int epoch = data.shareSessionEpoch();
        if (epoch == BrokerShare.OPEN_EPOCH) {
            // Kafka's rule: a ShareAcknowledge cannot open a session.
            return Replies.now(context.loop(), Replies.error(request, Errors.INVALID_SHARE_SESSION_EPOCH));
        }
        return inTurn(context, request, key, epoch, entry -> acknowledge(context, request, data, key, entry));
    }

    /**
     * Runs {@code step} once the session's previous request is answered: each broker's epoch must
     * be settled before the next request is planned.
     */
    private Future<Reply> inTurn(ConnectionContext context, RequestFrame request, ShareSessions.Key key, int epoch,
                                 Function<ShareSessions.Entry, Future<Reply>> step) {
        ShareSessions.Entry entry = sessions.get(key, epoch == BrokerShare.OPEN_EPOCH);
        if (entry == null) {
            return Replies.now(context.loop(), Replies.error(request, Errors.SHARE_SESSION_NOT_FOUND));
        }
        Promise<Reply> reply = context.newReply();
        Future<?> previous = entry.last;
        entry.last = reply;
        Runnable run = () -> Guard.run(reply, context, request, () -> step.apply(entry).addListener(f -> {
            Reply result = f.isSuccess() ? (Reply) f.getNow() : new Reply.Close(request.describe() + " failed: " + f.cause());
            if (!reply.trySuccess(result)) {
                result.discard();
            }
        }));
        if (previous == null || previous.isDone()) {
            run.run();
        } else {
            previous.addListener(f -> context.loop().execute(run));
        }
        return reply;
    }

    private Future<Reply> fetch(ConnectionContext context, RequestFrame request, ShareFetchRequestData data,
                                ShareSessions.Key key, ShareSessions.Entry entry) {
        Map<SharedPartition, List<AckBatch>> named = new LinkedHashMap<>();
        data.topics().forEach(t -> t.partitions().forEach(p -> named.put(new SharedPartition(t.topicId(), p.partitionIndex()),
                p.acknowledgementBatches().stream().map(AckBatch::of).toList())));
        Set<SharedPartition> forgotten = new LinkedHashSet<>();
        data.forgottenTopicsData().forEach(t -> t.partitions().forEach(p -> forgotten.add(new SharedPartition(t.topicId(), p))));
        TopologySnapshot snapshot = services.topology().snapshot();
        boolean closes = data.shareSessionEpoch() == BrokerShare.FINAL_EPOCH;
        SharePlan plan = entry.session.planFetch(data.shareSessionEpoch() == BrokerShare.OPEN_EPOCH, closes, named,
                forgotten, owners(snapshot));
        if (closes) {
            sessions.remove(key, entry);
        }
        return exchangeAll(context, request, snapshot, entry.session, plan, part -> ShareRequests.fetch(data, part),
                ApiKeys.SHARE_FETCH, body -> new ShareFetchResponseData(body, request.apiVersion()),
                Math.max(0, data.maxWaitMs()),
                outcomes -> answers.mergeFetch(context, request, plan, outcomes));
    }

    private Future<Reply> acknowledge(ConnectionContext context, RequestFrame request, ShareAcknowledgeRequestData data,
                                      ShareSessions.Key key, ShareSessions.Entry entry) {
        Map<SharedPartition, List<AckBatch>> acks = new LinkedHashMap<>();
        data.topics().forEach(t -> t.partitions().forEach(p -> acks.put(new SharedPartition(t.topicId(), p.partitionIndex()),
                p.acknowledgementBatches().stream().map(AckBatch::of).toList())));
        boolean closes = data.shareSessionEpoch() == BrokerShare.FINAL_EPOCH;
        SharePlan plan = entry.session.planAcknowledge(closes, acks);
        if (closes) {
            sessions.remove(key, entry);
        }
        return exchangeAll(context, request, services.topology().snapshot(), entry.session, plan,
                part -> ShareRequests.acknowledge(data, part), ApiKeys.SHARE_ACKNOWLEDGE,
                body -> new ShareAcknowledgeResponseData(body, request.apiVersion()), 0,
                outcomes -> answers.mergeAcknowledge(context, request, plan, outcomes));
    }

    /** A broker's part and its answer (parsed, and the frame its records are views of), or why there is none. */
    record Outcome<R>(BrokerShare part, BrokerEndpoint broker, R body, ByteBuf frame, Throwable failure) {
    }

    /**
     * Sends each part to its broker, settles each broker session as its answer comes, and merges
     * once all are in. The answer frames stay alive until the merged answer is encoded (its record
     * sets are slices of them), then are released.
     */
    private <R extends ApiMessage> Future<Reply> exchangeAll(
            ConnectionContext context, RequestFrame request, TopologySnapshot snapshot, ClientShareSession session,
            SharePlan plan, Function<BrokerShare, ApiMessage> body, ApiKeys api, Function<ByteBufferAccessor, R> parser,
            long holdMillis, Function<List<Outcome<R>>, ByteBuf> merge) {
        Promise<Reply> reply = context.newReply();
        List<BrokerShare> parts = plan.parts();
        services.observer().fannedOut(api, parts.size());
        List<Outcome<R>> outcomes = new ArrayList<>();
        List<ByteBuf> frames = new ArrayList<>();
        int[] outstanding = {parts.size()};
        Runnable finish = () -> Guard.run(reply, context, request, () -> {
            try {
                ByteBuf merged = merge.apply(outcomes);
                if (!reply.trySuccess(Reply.send(merged))) {
                    merged.release();
                }
            } finally {
                frames.forEach(ByteBuf::release);
            }
        });
        if (parts.isEmpty()) {
            finish.run();
            return reply;
        }
        for (BrokerShare part : parts) {
            BrokerEndpoint broker = snapshot.broker(part.broker()).orElse(null);
            if (broker == null) {
                session.settled(part, false);
                outcomes.add(new Outcome<>(part, null, null, null, new IllegalStateException("broker " + part.broker() + " is gone")));
                if (--outstanding[0] == 0) {
                    finish.run();
                }
                continue;
            }
            ByteBuf frame = RequestFrames.reencode(request, body.apply(part));
            Future<Answer<R>> sent = services.forwarder().exchange(context, broker, frame, holdMillis, false, api,
                    request.apiVersion(), parser);
            sent.addListener(f -> {
                try {
                    Guard.run(reply, context, request,
                            () -> absorb(context, api, request, session, part, broker, sent, frames, outcomes));
                } finally {
                    // Counted whatever happened, so the frames are always released.
                    if (--outstanding[0] == 0) {
                        finish.run();
                    }
                }
            });
        }
        return reply;
    }

    /** One part's answer (or failure): the broker session is settled and the outcome kept for the merge. */
    private <R extends ApiMessage> void absorb(ConnectionContext context, ApiKeys api, RequestFrame request,
                                               ClientShareSession session, BrokerShare part,
                                               BrokerEndpoint broker, Future<Answer<R>> sent, List<ByteBuf> frames,
                                               List<Outcome<R>> outcomes) {
        if (!sent.isSuccess()) {
            if (!BackendException.cancelled(sent.cause())) {
                services.partFailures().warn(context, "{} part for {} failed: {}", api.name, broker,
                        sent.cause().getMessage());
            }
            session.settled(part, false);
            outcomes.add(new Outcome<>(part, broker, null, null, sent.cause()));
            return;
        }
        Answer<R> answer = sent.getNow();
        frames.add(answer.frame());
        short error = ShareAnswers.topLevelError(answer.body());
        if (error != Errors.NONE.code()) {
            refusals.info(context, "{} refused the share session of {} (epoch {}): {}; opening it again next time",
                    broker, request.describe(), part.epoch(), Errors.forCode(error).name());
        }
        session.settled(part, error == Errors.NONE.code());
        outcomes.add(new Outcome<>(part, broker, answer.body(), answer.frame(), null));
    }

    private static ClientShareSession.Owners owners(TopologySnapshot snapshot) {
        return new ClientShareSession.Owners() {
            @Override
            public int owner(SharedPartition p) {
                return snapshot.topic(p.topicId()).map(TopicLayout::name)
                        .map(name -> snapshot.owner(name, p.partition()).orElse(-1)).orElse(-1);
            }

            @Override
            public boolean topicKnown(SharedPartition p) {
                return snapshot.topic(p.topicId()).isPresent();
            }
        };
    }

    static String name(TopologySnapshot snapshot, Uuid topicId) {
        return snapshot.topic(topicId).map(TopicLayout::name).orElse(null);
    }
}
