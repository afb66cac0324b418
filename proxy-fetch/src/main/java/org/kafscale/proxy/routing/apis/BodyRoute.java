package org.kafscale.proxy.routing.apis;

import io.netty.util.concurrent.Future;
import org.apache.kafka.common.protocol.ApiMessage;
import org.kafscale.proxy.core.server.Reply;

/** Where a decoded request goes, decided on its typed body. */
@FunctionalInterface
public interface BodyRoute<Q extends ApiMessage> {
    Future<Reply> handle(Routes routes, Call<Q> call);
}
