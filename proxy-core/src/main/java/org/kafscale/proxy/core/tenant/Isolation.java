package org.kafscale.proxy.core.tenant;

import java.util.Objects;
import org.apache.kafka.common.protocol.ApiMessage;

/**
 * How one API is kept within a virtual cluster ({@link TenantPolicy}): sent as it is (it names
 * nothing of a tenant's), rewritten (the request's names become real names, the answer's become
 * the client's again and lose what is not the tenant's), or refused (it can only be about the
 * whole real cluster, so no tenant may send it). One per API key, in the API registry, with its
 * row of the API table.
 */
public final class Isolation {
    /** What every served key not yet given an isolation of its own gets. */
    public static final Isolation NOT_ISOLATED = refused("its names are not mapped per virtual cluster, so a tenant "
            + "could reach the real cluster's");

    private enum Kind { AS_IS, REWRITTEN, ANSWERED_HERE, REFUSED }

    private final Kind kind;
    private final Rewrite<ApiMessage> request;
    private final Rewrite<ApiMessage> answer;
    /** Whether one request's answer must be read, asked after its request was rewritten. */
    private final AnswerNeeded<ApiMessage> answerNeeded;
    private final String doc;
    /** The tenant policy's own answer to the request, for {@link Kind#ANSWERED_HERE}. */
    private final LocalAnswer<ApiMessage> local;

    private Isolation(Kind kind, Rewrite<ApiMessage> request, Rewrite<ApiMessage> answer,
                      AnswerNeeded<ApiMessage> answerNeeded, String doc) {
        this(kind, request, answer, answerNeeded, null, doc);
    }

    private Isolation(Kind kind, Rewrite<ApiMessage> request, Rewrite<ApiMessage> answer,
                      AnswerNeeded<ApiMessage> answerNeeded, LocalAnswer<ApiMessage> local, String doc) {
        this.local = local;
        this.kind = kind;
        this.request = request;
        this.answer = answer;
        this.answerNeeded = answerNeeded;
        this.doc = Objects.requireNonNull(doc, "doc");
    }

    private Isolation(Kind kind, Rewrite<ApiMessage> request, Rewrite<ApiMessage> answer, String doc) {
        this(kind, request, answer, (body, version, scope) -> answer != null, doc);
    }

    /** Changes one message in place for one request's {@link TenantScope}. */
    @FunctionalInterface
    public interface Rewrite<T extends ApiMessage> {
        /** @throws TenantRefusal when the request may not go on for this tenant */
        void rewrite(T message, TenantScope scope);
    }

    /** Whether one request's answer holds anything to map, asked once its request was rewritten. */
    @FunctionalInterface
    public interface AnswerNeeded<T extends ApiMessage> {
        boolean test(T request, short version, TenantScope scope);
    }

    /** The answer the tenant policy gives a request itself, from what the proxy knows of the tenant. */
    @FunctionalInterface
    public interface LocalAnswer<T extends ApiMessage> {
        /** @throws TenantRefusal when the request is answered with an error instead */
        ApiMessage answer(T request, TenantScope scope);
    }

    /** Sent and answered as it is: it names no topic, group or transactional id. */
    public static Isolation asIs(String doc) {
        return new Isolation(Kind.AS_IS, null, null, doc);
    }

    /** The request's names become real names, its answer's the client's again. */
    public static <Q extends ApiMessage, A extends ApiMessage> Isolation rewritten(Class<Q> requestBody,
            Rewrite<? super Q> request, Class<A> answerBody, Rewrite<? super A> answer, String doc) {
        return new Isolation(Kind.REWRITTEN, typed(requestBody, request), typed(answerBody, answer), doc);
    }

    /**
     * As {@link #rewritten}, but a request's answer is read only when {@code answerNeeded} says,
     * after the request was rewritten: an answer that carries nothing to map (a Fetch by the
     * tenant's own topic ids) is written as the broker's bytes, its records never copied.
     */
    public static <Q extends ApiMessage, A extends ApiMessage> Isolation rewritten(Class<Q> requestBody,
            Rewrite<? super Q> request, Class<A> answerBody, Rewrite<? super A> answer,
            AnswerNeeded<? super Q> answerNeeded, String doc) {
        Objects.requireNonNull(answerNeeded, "answerNeeded");
        return new Isolation(Kind.REWRITTEN, typed(requestBody, request), typed(answerBody, answer),
                (body, version, scope) -> answerNeeded.test(requestBody.cast(body), version, scope), doc);
    }

    /** The request's names become real names; its answer names nothing of the tenant's and is not read. */
    public static <Q extends ApiMessage> Isolation requestRewritten(Class<Q> requestBody, Rewrite<? super Q> request,
                                                                    String doc) {
        return new Isolation(Kind.REWRITTEN, typed(requestBody, request), null, doc);
    }

    /** The request names nothing of the tenant's; its answer is rewritten (a cluster id, a listing). */
    public static <A extends ApiMessage> Isolation answerRewritten(Class<A> answerBody, Rewrite<? super A> answer,
                                                                   String doc) {
        return new Isolation(Kind.REWRITTEN, null, typed(answerBody, answer), doc);
    }

    /**
     * Answered by the tenant policy from the virtual cluster's own settings (what the proxy, not a
     * broker, holds for it); never sent to a broker.
     */
    public static <Q extends ApiMessage> Isolation answeredHere(Class<Q> requestBody, LocalAnswer<? super Q> answer,
                                                                String doc) {
        Objects.requireNonNull(answer, "answer");
        return new Isolation(Kind.ANSWERED_HERE, null, null, (body, version, scope) -> false,
                (body, scope) -> answer.answer(requestBody.cast(body), scope), doc);
    }

    /** Never served to a virtual cluster: the client is closed, as for a key no broker knows. */
    public static Isolation refused(String why) {
        return new Isolation(Kind.REFUSED, null, null, why);
    }

    public boolean refuses() {
        return kind == Kind.REFUSED;
    }

    /** Whether the tenant policy answers the request itself ({@link #answerHere}). */
    public boolean answersHere() {
        return kind == Kind.ANSWERED_HERE;
    }

    /** Whether the request or its answer is changed for a tenant. */
    public boolean rewrites() {
        return kind == Kind.REWRITTEN;
    }

    /** Whether its answer is rewritten: one that is not is written as the broker's bytes, never parsed. */
    public boolean rewritesAnswers() {
        return answer != null;
    }

    /** Whether the answer to {@code body} at {@code version} (rewritten for {@code scope}) must be read and rewritten. */
    boolean rewritesAnswerTo(ApiMessage body, short version, TenantScope scope) {
        return answer != null && answerNeeded.test(body, version, scope);
    }

    /** How it is served to a virtual cluster, or why not. */
    public String doc() {
        return doc;
    }

    /** Its text in the API table's virtual-cluster column. */
    public String docRow() {
        return refuses() ? "**refused** — " + doc : doc;
    }

    ApiMessage answerHere(ApiMessage body, TenantScope scope) {
        return local.answer(body, scope);
    }

    void rewriteRequest(ApiMessage body, TenantScope scope) {
        if (request != null) {
            request.rewrite(body, scope);
        }
    }

    void rewriteAnswer(ApiMessage body, TenantScope scope) {
        if (answer != null) {
            answer.rewrite(body, scope);
        }
    }

    private static <T extends ApiMessage> Rewrite<ApiMessage> typed(Class<T> body, Rewrite<? super T> rewrite) {
        Objects.requireNonNull(rewrite, "rewrite");
        return (message, scope) -> rewrite.rewrite(body.cast(message), scope);
    }
}
