package org.kafscale.proxy.core.security.authz;

import org.apache.kafka.common.protocol.ApiMessage;

/** The authorization of one API: what its request asks of which resources, and what is allowed. */
@FunctionalInterface
public interface ApiGuard<Q extends ApiMessage> {
    Verdict check(Q request, short version, Access access);
}
