package org.kafscale.proxy.core.policy;

import io.netty.util.concurrent.Future;
import org.apache.kafka.common.message.FetchRequestData;

/**
 * The typed hook of Fetch requests: a policy class implements it (with other typed hooks, for
 * other APIs or for answers) and the chain calls it for every Fetch request, as
 * {@link RequestPolicy#onRequest} with the body already of its class.
 */
public interface FetchRequestPolicy extends Policy {
    Future<RequestOutcome> onFetchRequest(FetchRequestData request, PolicyContext context);
}
