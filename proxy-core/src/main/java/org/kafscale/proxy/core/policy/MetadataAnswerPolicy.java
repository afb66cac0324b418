package org.kafscale.proxy.core.policy;

import io.netty.util.concurrent.Future;
import org.apache.kafka.common.message.MetadataResponseData;

/**
 * The typed hook of Metadata answers: a policy class implements it (with other typed hooks, for
 * other APIs or for requests) and the chain calls it for every Metadata answer, as
 * {@link AnswerPolicy#onAnswer} with the answer already of its class.
 */
public interface MetadataAnswerPolicy extends Policy {
    Future<AnswerOutcome> onMetadataAnswer(MetadataResponseData answer, PolicyContext context);
}
