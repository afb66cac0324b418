package org.kafscale.proxy.core.server;

/**
 * Makes the request handler of each client connection, as it opens (on its event loop). A
 * handler made per connection keeps what it learns about that connection (parked long polls,
 * read-ahead) in plain fields, confined to the connection's event loop like everything else of it.
 */
@FunctionalInterface
public interface RequestHandlers {
    RequestHandler forConnection(ConnectionContext connection);

    /** One stateless handler shared by every connection. */
    static RequestHandlers shared(RequestHandler handler) {
        return connection -> handler;
    }
}
