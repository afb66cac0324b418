package org.kafscale.proxy.core.policy;

import io.netty.util.concurrent.Future;
import org.apache.kafka.common.protocol.ApiMessage;

/**
 * A policy's hook for the answers of one API, registered with {@link Hooks#onAnswer}: it gets the
 * answer as its generated class and decides as an {@link AnswerPolicy} does.
 *
 * @param <T> the API's response body, such as {@code FetchResponseData}
 */
@FunctionalInterface
public interface AnswerHook<T extends ApiMessage> {
    Future<AnswerOutcome> onAnswer(T answer, PolicyContext context);
}
