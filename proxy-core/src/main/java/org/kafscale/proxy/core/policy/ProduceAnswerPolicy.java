package org.kafscale.proxy.core.policy;

import io.netty.util.concurrent.Future;
import org.apache.kafka.common.message.ProduceResponseData;

/**
 * The typed hook of Produce answers: a policy class implements it (with other typed hooks, for
 * other APIs or for requests) and the chain calls it for every Produce answer, as
 * {@link AnswerPolicy#onAnswer} with the answer already of its class.
 */
public interface ProduceAnswerPolicy extends Policy {
    Future<AnswerOutcome> onProduceAnswer(ProduceResponseData answer, PolicyContext context);
}
