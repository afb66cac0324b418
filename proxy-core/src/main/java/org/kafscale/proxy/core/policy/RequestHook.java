package org.kafscale.proxy.core.policy;

import io.netty.util.concurrent.Future;
import org.apache.kafka.common.protocol.ApiMessage;

/**
 * A policy's hook for the requests of one API, registered with {@link Hooks#onRequest}: it gets
 * the body as its generated class and decides as a {@link RequestPolicy} does.
 *
 * @param <T> the API's request body, such as {@code ProduceRequestData}
 */
@FunctionalInterface
public interface RequestHook<T extends ApiMessage> {
    Future<RequestOutcome> onRequest(T body, PolicyContext context);
}
