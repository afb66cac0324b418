package org.kafscale.proxy.core.policy;

import io.netty.util.concurrent.Future;
import org.apache.kafka.common.message.ProduceRequestData;

/**
 * The typed hook of Produce requests: a policy class implements it (with other typed hooks, for
 * other APIs or for answers) and the chain calls it for every Produce request, as
 * {@link RequestPolicy#onRequest} with the body already of its class.
 */
public interface ProduceRequestPolicy extends Policy {
    Future<RequestOutcome> onProduceRequest(ProduceRequestData request, PolicyContext context);
}
