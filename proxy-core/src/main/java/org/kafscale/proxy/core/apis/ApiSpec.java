package org.kafscale.proxy.core.apis;

import java.util.Objects;
import org.apache.kafka.common.protocol.ApiKeys;
import org.kafscale.proxy.core.security.authz.Guard;
import org.kafscale.proxy.core.tenant.Isolation;

/**
 * What the proxy does with one API key, as the dispatcher, the ApiVersions answer, the authorizer
 * and the docs need to know it.
 *
 * @param guard its authorization: what the ACLs must allow of the request, checked before it is
 *              answered or routed (a served key has a check of its own, or is one Kafka checks no ACL for)
 * @param doc how it is served, or why it is refused: its row of the API table in {@code docs/architecture.md}
 * @param isolation how it is kept within a virtual cluster, or why a tenant may not send it
 */
public record ApiSpec(ApiKeys api, Serving serving, Guard guard, String doc, Isolation isolation) {

    public ApiSpec {
        Objects.requireNonNull(guard, "guard");
        Objects.requireNonNull(isolation, "isolation");
        if (serving == Serving.REFUSED && !isolation.refuses()) {
            throw new IllegalArgumentException(api + " is refused, so no virtual cluster is served it either");
        }
        if (serving != Serving.REFUSED && guard.refusesWhole()) {
            throw new IllegalArgumentException(api + " is served, so it needs a guard of its own");
        }
    }

    /** A key with no virtual-cluster isolation of its own: refused to tenants. */
    public ApiSpec(ApiKeys api, Serving serving, Guard guard, String doc) {
        this(api, serving, guard, doc, Isolation.NOT_ISOLATED);
    }

    /** Where a key is served. */
    public enum Serving {
        /**
         * Answered by the proxy from its topology (ApiVersions, Metadata, FindCoordinator,
         * DescribeCluster, DescribeTopicPartitions).
         */
        ANSWERED_HERE,
        /** Forwarded to brokers, on any connection. */
        FORWARDED,
        /**
         * About the one broker the connection addresses (its disks): served only on a connection that
         * came in on a broker's own port (advertise mode ports), to that broker. On any other
         * connection the key is neither advertised nor served, as no broker can be named there.
         */
        ADDRESSED_BROKER_ONLY,
        /** Never advertised; a client that sends it anyway is closed, as a broker closes on an unknown key. */
        REFUSED
    }

    /** Whether it is served on some connection. */
    public boolean served() {
        return serving != Serving.REFUSED;
    }

    /** Whether it is served on a connection that does ({@code addressesBroker}) or does not address one broker. */
    public boolean servedOn(boolean addressesBroker) {
        return served() && (addressesBroker || serving != Serving.ADDRESSED_BROKER_ONLY);
    }

    /** Whether brokers answer it, so the versions the proxy advertises must suit them. */
    public boolean forwarded() {
        return serving == Serving.FORWARDED || serving == Serving.ADDRESSED_BROKER_ONLY;
    }

    /** Its text in the API table. */
    public String docRow() {
        return served() ? doc : "**refused** — " + doc;
    }
}
