package org.kafscale.proxy.app;

import org.kafscale.proxy.core.server.ConnectionContext;
import org.kafscale.proxy.core.server.RequestHandler;
import org.kafscale.proxy.core.server.RequestHandlers;

/**
 * A listener's request handlers as a live reconfiguration leaves them: each new connection gets
 * the path in force when it opens, and keeps it (a reload drains the connections it changes).
 */
final class CurrentHandlers implements RequestHandlers {
    private volatile RequestHandlers current;

    CurrentHandlers(RequestHandlers first) {
        this.current = first;
    }

    void replace(RequestHandlers next) {
        current = next;
    }

    @Override
    public RequestHandler forConnection(ConnectionContext connection) {
        return current.forConnection(connection);
    }
}
