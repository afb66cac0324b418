package org.kafscale.proxy.routing.engine;

import io.netty.buffer.ByteBuf;
import io.netty.util.concurrent.Future;
import io.netty.util.concurrent.Promise;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.protocol.Errors;
import org.kafscale.proxy.core.backend.BrokerErrors;
import org.kafscale.proxy.core.codec.RequestFrame;
import org.kafscale.proxy.core.codec.RequestFrames;
import org.kafscale.proxy.core.codec.ResponseFrames;
import org.kafscale.proxy.core.hooks.RoutingObserver;
import org.kafscale.proxy.core.server.ConnectionContext;
import org.kafscale.proxy.core.server.Reply;
import org.kafscale.proxy.core.topology.BrokerEndpoint;
import org.kafscale.proxy.core.topology.PartitionRef;
import org.kafscale.proxy.core.topology.TopologySnapshot;
import org.kafscale.proxy.core.backend.Answer;

/**
 * The one engine behind every request that is split by partition owner (Produce, Fetch,
 * ListOffsets, ...): group the partitions by the broker that owns each now, send each broker its
 * part, absorb each answer as it comes, retry what may be retried, and merge every partition back
 * in request order at the client's version. What differs between APIs is asked of its
 * {@link PartitionApi}.
 *
 * <p>The decisions, each in one place here:
 * <ul>
 *   <li><b>Pass-through</b>: on the first attempt, when one broker owns every partition, the
 *       client's own bytes go out and, when nothing needs retrying, the broker's answer goes back
 *       unchanged.</li>
 *   <li><b>Leader class</b> ({@link BrokerErrors#isLeaderClass}): the route is dropped and the
 *       partition retried on the owner the topology names next, never on a broker that refused it
 *       in this request.</li>
 *   <li><b>Connection class</b>: the part's channel is closed already; when the API says the part
 *       may be resent, it goes to a fresh channel.</li>
 *   <li>Retries are per part, as soon as its answer is in, after {@link RetryPolicy#backoffMillis}
 *       (exponential, with jitter); a partition that runs out of attempts gets the last error.</li>
 *   <li><b>When to answer</b> is the API's {@link CompletionPolicy}: once every part is in, unless
 *       it answers earlier and takes over the parts still out.</li>
 * </ul>
 *
 * <p>One topology snapshot per attempt. Everything runs on the connection's event loop; an
 * exception in any step closes the client's connection with the reason instead of leaving its
 * answer (and every later one) pending.
 */
public final class PartitionExchange<Q extends ApiMessage, E, R extends ApiMessage, P> {

    private final RoutingServices services;
    private final ConnectionContext context;
    private final RequestFrame request;
    private final Q data;
    private final PartitionApi<Q, E, R, P> api;
    private final CompletionPolicy<R> completion;
    private final Promise<Reply> reply;
    private final Map<PartitionRef, E> partitions;
    private final Set<PartitionRef> pending;
    private final Map<PartitionRef, P> results = new HashMap<>();
    private final Map<PartitionRef, Tries<P>> tries = new HashMap<>();
    private final List<Part<R>> inFlight = new ArrayList<>();
    private final List<Part<R>> inFlightView = Collections.unmodifiableList(inFlight);
    /** Answer frames whose record sets the merged answer may slice; released once it is written. */
    private final List<ByteBuf> answers = new ArrayList<>();
    /** Made once per exchange, not per attempt or part (method references allocate). */
    private final OwnerGroups.Refusals refusals = this::refused;
    private final PartitionApi.Sender<R> sender = this::exchange;
    private int retriesScheduled;
    private int throttleMillis;
    private boolean sending;
    private boolean passThroughAllowed = true;

    /**
     * What one partition went through in this request; made when something about it needs
     * remembering (a refusal, a failure, a retry, no owner), so a partition taken at the first
     * attempt costs nothing here. Every partition was in the first attempt, which is why it starts at 1.
     */
    private static final class Tries<P> {
        int attempts = 1;
        /** Brokers that refused the partition; made on the first refusal (most partitions never see one). */
        Set<Integer> refusedBy;
        Errors lastError;
        P lastRefusal;
    }

    public PartitionExchange(RoutingServices services, ConnectionContext context, RequestFrame request, Q data,
                             PartitionApi<Q, E, R, P> api) {
        this.services = services;
        this.context = context;
        this.request = request;
        this.data = data;
        this.api = api;
        this.completion = api.completion();
        this.reply = context.newReply();
        this.partitions = api.partitions(data, services.topology().snapshot());
        this.pending = new LinkedHashSet<>(partitions.keySet());
    }

    /** Every partition of the request with its entry, in request order. */
    public Map<PartitionRef, E> partitions() {
        return Collections.unmodifiableMap(partitions);
    }

    /** The result of every partition settled so far (all of them once the reply is done). */
    public Map<PartitionRef, P> results() {
        return Collections.unmodifiableMap(results);
    }

    /** Answers a partition before anything is sent (the LFS rewrite refused it); the request is re-encoded. */
    public void settleUnsent(PartitionRef ref, Errors error) {
        if (pending.remove(ref)) {
            results.put(ref, api.synthetic(ref, error));
        }
        passThroughAllowed = false;
    }

    /** The records changed after the client sent them: every part is re-encoded, nothing passes through. */
    public void disallowPassThrough() {
        passThroughAllowed = false;
    }

    public Future<Reply> start() {
        reply.addListener(f -> releaseAnswers());
        guarded(() -> {
            completion.started(context.loop(), reply, () -> guarded(this::finish));
            send(List.copyOf(pending), true);
        });
        return reply;
    }

    /**
     * Takes over a request whose first attempt went out before this exchange was made: the client's
     * bytes, whole to {@code broker} (a Produce sent undecoded). {@code firstAnswer} is that
     * attempt's answer (or failure), taken as if this exchange had sent it: every partition was in
     * it, and what it leaves to retry is retried, once it is in, as {@link #start()} would have.
     */
    public Future<Reply> resume(BrokerEndpoint broker, Future<Answer<R>> firstAnswer) {
        reply.addListener(f -> releaseAnswers());
        guarded(() -> {
            completion.started(context.loop(), reply, () -> guarded(this::finish));
            Part<R> part = new Part<>(broker, List.copyOf(pending));
            inFlight.add(part);
            part.answer(firstAnswer);
            firstAnswer.addListener(f -> guarded(() -> onPart(part, passThroughAllowed && api.mayPassThrough())));
        });
        return reply;
    }

    private void send(List<PartitionRef> refs, boolean firstAttempt) {
        TopologySnapshot snapshot = services.topology().snapshot();
        Map<Integer, List<PartitionRef>> byOwner = OwnerGroups.of(refs, snapshot, refusals);
        List<PartitionRef> unroutable = byOwner.remove(OwnerGroups.NO_OWNER);
        if (firstAttempt && !byOwner.isEmpty()) {
            services.observer().fannedOut(api.api(), byOwner.size());
        }
        boolean passThrough = firstAttempt && unroutable == null && byOwner.size() == 1 && passThroughAllowed
                && api.mayPassThrough();
        sending = true;
        try {
            List<PartitionRef> later = unroutable == null ? List.of() : new ArrayList<>();
            if (unroutable != null) {
                for (PartitionRef ref : unroutable) {
                    Tries<P> t = tries(ref);
                    if (!firstAttempt) {
                        t.attempts++;
                    }
                    if (t.lastError == null) {
                        t.lastError = OwnerGroups.whyNoOwner(ref, snapshot);
                    }
                    if (api.retriesUnroutable()) {
                        later.add(ref);
                    } else {
                        settle(ref, api.synthetic(ref, t.lastError));
                    }
                }
            }
            for (Map.Entry<Integer, List<PartitionRef>> group : byOwner.entrySet()) {
                sendPart(new Part<>(snapshot.broker(group.getKey()).orElseThrow(), group.getValue()), firstAttempt,
                        passThrough);
            }
            retryLater(later);
        } finally {
            sending = false;
        }
        maybeFinish();
    }

    private void sendPart(Part<R> part, boolean firstAttempt, boolean passThrough) {
        if (!firstAttempt) {
            part.partitions().forEach(ref -> tries(ref).attempts++);
        }
        inFlight.add(part);
        boolean clientBytes = passThrough && api.sendsClientBytes(data);
        Future<Answer<R>> answer = api.send(part, () -> clientBytes ? request.frame().retainedDuplicate()
                : RequestFrames.reencode(request, api.subRequest(data, part.partitions(), partitions)), sender);
        part.answer(answer);
        answer.addListener(f -> guarded(() -> onPart(part, passThrough)));
    }

    private Future<Answer<R>> exchange(BrokerEndpoint broker, ByteBuf frame, long extraWaitMillis, boolean idleChannel) {
        short version = request.apiVersion();
        return services.forwarder().exchange(context, broker, frame, extraWaitMillis, idleChannel, api.api(), version,
                body -> api.parseResponse(body, version));
    }

    private void onPart(Part<R> part, boolean passThrough) {
        inFlight.remove(part);
        Future<Answer<R>> answer = part.answer();
        if (part.abandoned()) {
            return;
        }
        if (reply.isDone()) {
            if (answer.isSuccess()) {
                answer.getNow().frame().release();
            }
            return;
        }
        if (answer.isSuccess()) {
            onAnswer(part, answer.getNow(), passThrough);
        } else {
            onFailure(part, answer.cause());
        }
        maybeFinish();
    }

    private void onAnswer(Part<R> part, Answer<R> answer, boolean passThrough) {
        // Owned from here on, so a step below that throws cannot leak it: released with the reply.
        answers.add(answer.frame());
        R response = answer.body();
        Map<PartitionRef.AnswerKey, P> byKey = api.results(response);
        List<PartitionRef> retry = List.of(); // made on the first partition to retry (most answers have none)
        for (PartitionRef ref : part.partitions()) {
            P result = byKey.get(ref.answerKey());
            if (result == null) {
                retry = added(retry, ref); // the broker left it out: ask again
            } else if (BrokerErrors.isLeaderClass(api.errorCode(result))) {
                refuse(part.broker(), ref, result);
                retry = added(retry, ref);
            } else {
                settle(ref, api.accepted(result));
            }
        }
        if (passThrough && retry.isEmpty() && api.passesThrough(response)) {
            // The frame goes back as it came: the reply owns it now, not the answers to release.
            answers.remove(answers.size() - 1);
            if (!reply.trySuccess(Reply.send(answer.frame()))) {
                answer.frame().release();
            }
            return;
        }
        throttleMillis = Math.max(throttleMillis, api.throttleTimeMs(response));
        retryLater(retry);
    }

    /** {@code list} with {@code ref} added, made mutable on the first addition. */
    private static List<PartitionRef> added(List<PartitionRef> list, PartitionRef ref) {
        List<PartitionRef> mutable = list.isEmpty() ? new ArrayList<>() : list;
        mutable.add(ref);
        return mutable;
    }

    private void refuse(BrokerEndpoint broker, PartitionRef ref, P result) {
        short code = api.errorCode(result);
        Tries<P> t = tries(ref);
        if (t.refusedBy == null) {
            t.refusedBy = new HashSet<>(2);
        }
        t.refusedBy.add(broker.id());
        t.lastError = Errors.forCode(code);
        t.lastRefusal = result;
        services.staleRoutes().drop(context, broker, ref, code);
        if (api.countsLeaderRetries()) {
            services.observer().retried(api.api(), RoutingObserver.RetryCause.LEADER);
        }
    }

    private void onFailure(Part<R> part, Throwable cause) {
        boolean resend = api.mayResend(cause);
        if (!RetryPolicy.cancelled(cause)) {
            services.partFailures().warn(context, "{} part for {} partitions failed at {}: {}{}", api.api().name,
                    part.partitions().size(),
                    part.broker(), cause.getMessage(), resend ? "; retrying on a fresh channel" : "");
        }
        if (!resend) {
            part.partitions().forEach(ref -> settle(ref, api.synthetic(ref, api.connectionError())));
            return;
        }
        services.observer().retried(api.api(), RoutingObserver.RetryCause.CONNECTION);
        part.partitions().forEach(ref -> tries(ref).lastError = api.connectionError());
        retryLater(part.partitions());
    }

    /** Sends again, after a backoff, the partitions that have attempts left; the others get their last error. */
    private void retryLater(List<PartitionRef> refs) {
        if (refs.isEmpty()) {
            return;
        }
        List<PartitionRef> again = new ArrayList<>(refs.size());
        int attempts = 0;
        for (PartitionRef ref : refs) {
            Tries<P> t = tries(ref);
            if (t.attempts < api.maxAttempts()) {
                again.add(ref);
                attempts = Math.max(attempts, t.attempts);
            } else {
                settle(ref, api.failed(ref, lastError(t), t.lastRefusal));
            }
        }
        if (again.isEmpty()) {
            return;
        }
        retriesScheduled++;
        context.loop().schedule(() -> guarded(() -> {
            retriesScheduled--;
            if (!reply.isDone()) {
                send(again, false);
            }
        }), RetryPolicy.backoffMillis(attempts + 1), TimeUnit.MILLISECONDS);
    }

    private void settle(PartitionRef ref, P result) {
        results.put(ref, result);
        pending.remove(ref);
    }

    /** Answers once nothing is out any more, or earlier when the API's {@link CompletionPolicy} says so. */
    private void maybeFinish() {
        if (reply.isDone() || sending) {
            return;
        }
        if (inFlight.isEmpty() && retriesScheduled == 0) {
            finish();
            return;
        }
        if (retriesScheduled == 0) {
            completion.stillInFlight(inFlightView);
        }
    }

    private void finish() {
        if (reply.isDone()) {
            return;
        }
        for (Part<R> part : inFlight) {
            part.abandon();
            completion.leftInFlight(part);
        }
        for (PartitionRef ref : pending) {
            Tries<P> t = tries.get(ref);
            results.put(ref, api.unanswered(ref, t == null ? Errors.NOT_LEADER_OR_FOLLOWER : lastError(t),
                    t == null ? null : t.lastRefusal));
        }
        pending.clear();
        ByteBuf encoded = ResponseFrames.encode(api.api(), request.apiVersion(), request.correlationId(),
                api.merge(data, partitions, results, throttleMillis), answers);
        if (!reply.trySuccess(Reply.send(encoded))) {
            encoded.release();
        }
    }

    private void guarded(Runnable step) {
        Guard.run(reply, context, request, step);
    }

    private boolean refused(PartitionRef ref, int brokerId) {
        Tries<P> t = tries.get(ref);
        return t != null && t.refusedBy != null && t.refusedBy.contains(brokerId);
    }

    private Tries<P> tries(PartitionRef ref) {
        return tries.computeIfAbsent(ref, r -> new Tries<>());
    }

    private static Errors lastError(Tries<?> t) {
        return t.lastError != null ? t.lastError : Errors.NOT_LEADER_OR_FOLLOWER;
    }

    private void releaseAnswers() {
        answers.forEach(ByteBuf::release);
        answers.clear();
    }
}
