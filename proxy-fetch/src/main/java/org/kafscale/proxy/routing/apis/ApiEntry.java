package org.kafscale.proxy.routing.apis;

import java.util.Objects;
import java.util.Optional;
import org.apache.kafka.common.protocol.ApiKeys;
import org.kafscale.proxy.core.apis.ApiSpec;
import org.kafscale.proxy.core.security.authz.Guard;
import org.kafscale.proxy.core.tenant.Isolation;

/**
 * One key's entry in {@link Apis}, written as named steps so an entry reads as a sentence:
 * {@code Apis.api(KEY).forwarded(route).guard(check).doc("row")}. It yields core's view of the key
 * ({@link ApiSpec}: where served, its guard, its doc row) and, for a forwarded key, its
 * {@link RouteSpec} (route, broker hold, topology change). {@link Apis} checks it is complete as
 * it files it.
 */
public final class ApiEntry {
    private final ApiKeys api;
    private ApiSpec.Serving serving;
    private RouteSpec route;
    private Guard guard;
    private String doc;
    private Isolation isolation = Isolation.NOT_ISOLATED;

    ApiEntry(ApiKeys api) {
        this.api = Objects.requireNonNull(api, "api");
    }

    /** Answered by the proxy itself, from its topology; no route. */
    public ApiEntry answeredHere() {
        return serve(ApiSpec.Serving.ANSWERED_HERE, null);
    }

    /** Forwarded to brokers on any connection, along {@code route}. */
    public ApiEntry forwarded(RouteSpec route) {
        return serve(ApiSpec.Serving.FORWARDED, route);
    }

    /** Served only on a connection that came in on one broker's own port, along {@code route}. */
    public ApiEntry onAddressedBrokerOnly(RouteSpec route) {
        return serve(ApiSpec.Serving.ADDRESSED_BROKER_ONLY, route);
    }

    /** Never advertised, and closed when sent; {@code why} is its row of the API table. */
    public ApiEntry refused(String why) {
        serve(ApiSpec.Serving.REFUSED, null);
        this.guard = Guard.refusedWhole();
        return doc(why);
    }

    /** What the ACLs must allow of the request before it is answered or routed. */
    public ApiEntry guard(Guard guard) {
        this.guard = Objects.requireNonNull(guard, "guard");
        return this;
    }

    /** How it is served: its row of the API table in docs/architecture.md. */
    public ApiEntry doc(String doc) {
        this.doc = Objects.requireNonNull(doc, "doc");
        return this;
    }

    /**
     * How it is kept within a virtual cluster ({@code core.tenant}); a served key without one is
     * refused to tenants ({@link Isolation#NOT_ISOLATED}).
     */
    public ApiEntry isolation(Isolation isolation) {
        this.isolation = Objects.requireNonNull(isolation, "isolation");
        return this;
    }

    ApiKeys api() {
        return api;
    }

    Optional<RouteSpec> route() {
        return Optional.ofNullable(route);
    }

    /** Core's view of the entry; fails on an entry that misses a step or routes another key. */
    ApiSpec spec() {
        if (serving == null || guard == null || doc == null) {
            throw new IllegalStateException(api + " needs where it is served, a guard and a doc row");
        }
        if (route != null && route.api() != api) {
            throw new IllegalStateException(api + " is given the route of " + route.api());
        }
        return new ApiSpec(api, serving, guard, doc, isolation);
    }

    private ApiEntry serve(ApiSpec.Serving serving, RouteSpec route) {
        if (this.serving != null) {
            throw new IllegalStateException(api + " is given two places to be served");
        }
        this.serving = serving;
        this.route = route;
        return this;
    }
}
