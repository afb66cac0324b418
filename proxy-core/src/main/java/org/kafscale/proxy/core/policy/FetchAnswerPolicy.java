package org.kafscale.proxy.core.policy;

import io.netty.util.concurrent.Future;
import org.apache.kafka.common.message.FetchResponseData;

/**
 * The typed hook of Fetch answers: a policy class implements it (with other typed hooks, for
 * other APIs or for requests) and the chain calls it for every Fetch answer, as
 * {@link AnswerPolicy#onAnswer} with the answer already of its class.
 */
public interface FetchAnswerPolicy extends Policy {
    Future<AnswerOutcome> onFetchAnswer(FetchResponseData answer, PolicyContext context);
}
