package org.kafscale.proxy.routing.apis;

import org.apache.kafka.common.protocol.ApiMessage;
import org.kafscale.proxy.core.codec.RequestFrame;
import org.kafscale.proxy.core.server.ConnectionContext;

/**
 * One decoded request as its route receives it.
 *
 * @param body the request's body, decoded once by {@link RouteSpec.Typed}
 * @param holdMillis how long a broker may hold it (its spec's {@link Hold}), already announced to the connection
 */
public record Call<Q extends ApiMessage>(ConnectionContext context, RequestFrame request, Q body, long holdMillis) {
}
