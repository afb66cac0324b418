package org.kafscale.proxy.core.policy;

import io.netty.util.concurrent.Future;
import org.apache.kafka.common.message.MetadataRequestData;

/**
 * The typed hook of Metadata requests: a policy class implements it (with other typed hooks, for
 * other APIs or for answers) and the chain calls it for every Metadata request, as
 * {@link RequestPolicy#onRequest} with the body already of its class.
 */
public interface MetadataRequestPolicy extends Policy {
    Future<RequestOutcome> onMetadataRequest(MetadataRequestData request, PolicyContext context);
}
