package org.kafscale.proxy.core.server;

import java.util.function.Predicate;

/**
 * The user event that drains a connection (as {@link ClientConnectionHandler#DRAIN} does) when
 * {@code affected} holds for it: what a live reconfiguration sends every connection of a
 * listener, so only those whose configuration changed answer what they have read and close.
 * The test runs on the connection's event loop, after its context exists, so a connection that
 * opens meanwhile is either tested or made from the new configuration already.
 *
 * @param affected whether this connection must reconnect to take the new configuration; called
 *     on its event loop, so it must not block
 */
public record DrainIf(Predicate<ConnectionContext> affected) {
}
