package org.kafscale.proxy.routing.apis;

import io.netty.util.concurrent.Future;
import java.util.Optional;
import org.kafscale.proxy.core.codec.RequestFrame;
import org.kafscale.proxy.core.server.ConnectionContext;
import org.kafscale.proxy.core.server.Reply;

/**
 * How a decoded route may take a request as the client's bytes before its body is decoded, when
 * what it needs to decide can be read without the decode (a Produce whose partitions one broker
 * leads). Empty when it cannot: the body is decoded and the typed route takes it.
 */
@FunctionalInterface
public interface BytesFirst {
    Optional<Future<Reply>> handle(Routes routes, ConnectionContext context, RequestFrame request);
}
