package org.kafscale.proxy.core.security.authz;

import java.util.function.Function;
import org.apache.kafka.common.acl.AclOperation;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.protocol.Errors;

/**
 * The authorization of one API key, as its spec in {@code core.apis.ApiCatalog} holds it: a typed
 * check of the decoded request ({@link #of}), one cluster operation ({@link #cluster}), none at all
 * ({@link #unchecked}: keys Kafka checks no ACL for), or, for keys never served, a refusal of the
 * whole request ({@link #refusedWhole}).
 */
public final class Guard {
    private static final Guard UNCHECKED = new Guard(Kind.UNCHECKED, (request, version, access) -> Verdict.ALLOW);
    private static final Guard REFUSED_WHOLE = new Guard(Kind.REFUSED_WHOLE, (request, version, access) -> {
        access.cluster(AclOperation.ALL);
        return new Verdict.Refuse(Errors.CLUSTER_AUTHORIZATION_FAILED);
    });

    private enum Kind { UNCHECKED, CHECKED, REFUSED_WHOLE }

    private final Kind kind;
    private final ApiGuard<ApiMessage> check;

    private Guard(Kind kind, ApiGuard<ApiMessage> check) {
        this.kind = kind;
        this.check = check;
    }

    /** {@code check} decides on the request, decoded as {@code body}. */
    public static <Q extends ApiMessage> Guard of(Class<Q> body, ApiGuard<Q> check) {
        return new Guard(Kind.CHECKED, (request, version, access) -> check.check(body.cast(request), version, access));
    }

    /** Read on the one group the request names ({@code group}), as Kafka checks a member's group calls. */
    public static <Q extends ApiMessage> Guard readGroup(Class<Q> body, Function<Q, String> group) {
        return of(body, (request, version, access) ->
                GroupGuards.oneGroup(group.apply(request), AclOperation.READ, access));
    }

    /** {@code operation} on the cluster resource, as Kafka checks its cluster-wide admin APIs. */
    public static Guard cluster(AclOperation operation) {
        return new Guard(Kind.CHECKED, (request, version, access) -> access.cluster(operation) ? Verdict.ALLOW
                : new Verdict.Refuse(Errors.CLUSTER_AUTHORIZATION_FAILED));
    }

    /** Allowed to anyone: connection set-up and the cluster's description (Kafka checks no ACL for them). */
    public static Guard unchecked() {
        return UNCHECKED;
    }

    /**
     * For keys the proxy never serves (the dispatcher refuses them first): were one ever checked,
     * it is refused whole with CLUSTER_AUTHORIZATION_FAILED (fail closed).
     */
    public static Guard refusedWhole() {
        return REFUSED_WHOLE;
    }

    /** Whether the request is decoded and checked at all (not {@link #unchecked}). */
    public boolean checks() {
        return kind != Kind.UNCHECKED;
    }

    /** Whether this is the fail-closed refusal of a key that is never served. */
    public boolean refusesWhole() {
        return kind == Kind.REFUSED_WHOLE;
    }

    /** The decision for {@code request}, as {@code access} allows. */
    Verdict check(ApiMessage request, short version, Access access) {
        return check.check(request, version, access);
    }
}
