package org.kafscale.proxy.app.e2e;

import java.util.Properties;
import java.util.function.UnaryOperator;
import org.apache.kafka.clients.CommonClientConfigs;
import org.apache.kafka.common.security.auth.KafkaPrincipal;
import org.kafscale.proxy.core.server.RequestHandler;
import org.kafscale.proxy.core.server.RequestHandlers;

/**
 * Test-only stand-in for authentication: a connection whose client id is {@code as-<user>-...}
 * is taken to be {@code User:<user>} from its first request on, so authorization can be tested
 * with real clients before the listener authenticates. Tests ask {@link #clientAs} for a client's
 * settings; with SASL on the listener, that method gives SASL credentials instead and {@link
 * #AROUND_HANDLERS} is dropped.
 */
final class ClientIdPrincipals {
    private static final String PREFIX = "as-";

    /** Wraps each connection's handler so the principal is set before the request is authorized. */
    static final UnaryOperator<RequestHandlers> AROUND_HANDLERS = handlers -> connection -> {
        RequestHandler inner = handlers.forConnection(connection);
        return (context, request) -> {
            String clientId = request.clientId();
            if (context.principal().equals(KafkaPrincipal.ANONYMOUS) && clientId != null && clientId.startsWith(PREFIX)) {
                String rest = clientId.substring(PREFIX.length());
                int end = rest.indexOf('-');
                context.authenticatedAs(new KafkaPrincipal(KafkaPrincipal.USER_TYPE, end < 0 ? rest : rest.substring(0, end)));
            }
            return inner.handle(context, request);
        };
    };

    private ClientIdPrincipals() {
    }

    /** Client settings that make the client {@code User:<user>} at the proxy; {@code role} tells clients apart. */
    static Properties clientAs(String user, String role) {
        Properties props = new Properties();
        props.put(CommonClientConfigs.CLIENT_ID_CONFIG, PREFIX + user + "-" + role);
        return props;
    }
}
