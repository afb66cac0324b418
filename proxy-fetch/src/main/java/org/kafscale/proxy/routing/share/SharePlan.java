package org.kafscale.proxy.routing.share;

import java.util.List;
import java.util.Map;
import org.apache.kafka.common.protocol.Errors;

/**
 * One client request turned into broker requests, and what the proxy answers itself.
 *
 * @param parts one request per broker, by ascending broker id
 * @param refusedAcks partitions whose acknowledgements no broker can take (the session that
 *                    delivered their records is gone), with the error the client gets for them
 * @param unknown partitions the request named whose topic id no broker knows, with their error
 */
record SharePlan(List<BrokerShare> parts, Map<SharedPartition, Errors> refusedAcks, Map<SharedPartition, Errors> unknown) {
}
