package org.kafscale.proxy.core.backend.security;

import java.util.List;
import java.util.Map;
import javax.security.auth.callback.Callback;
import javax.security.auth.callback.NameCallback;
import javax.security.auth.callback.PasswordCallback;
import javax.security.auth.callback.UnsupportedCallbackException;
import javax.security.auth.login.AppConfigurationEntry;
import org.apache.kafka.common.security.auth.AuthenticateCallbackHandler;
import org.apache.kafka.common.security.auth.SaslExtensionsCallback;
import org.apache.kafka.common.security.oauthbearer.OAuthBearerToken;
import org.apache.kafka.common.security.oauthbearer.OAuthBearerTokenCallback;
import org.apache.kafka.common.security.scram.ScramExtensionsCallback;

/**
 * Answers a SASL client's questions from the proxy's own credentials: the user name and password
 * for PLAIN and SCRAM, the token already fetched for OAUTHBEARER. Extensions are left empty.
 * Built per connection with everything it needs, so answering never blocks.
 */
final class CredentialsCallbackHandler implements AuthenticateCallbackHandler {
    private final String username;
    private final char[] password;
    private final OAuthBearerToken token;

    CredentialsCallbackHandler(String username, String password, OAuthBearerToken token) {
        this.username = username;
        this.password = password == null ? null : password.toCharArray();
        this.token = token;
    }

    @Override
    public void configure(Map<String, ?> configs, String saslMechanism, List<AppConfigurationEntry> jaasConfigEntries) {
        // Everything comes through the constructor.
    }

    @Override
    public void handle(Callback[] callbacks) throws UnsupportedCallbackException {
        for (Callback callback : callbacks) {
            if (callback instanceof NameCallback name && username != null) {
                name.setName(username);
            } else if (callback instanceof PasswordCallback secret && password != null) {
                secret.setPassword(password);
            } else if (callback instanceof OAuthBearerTokenCallback bearer && token != null) {
                bearer.token(token);
            } else if (!(callback instanceof ScramExtensionsCallback) && !(callback instanceof SaslExtensionsCallback)) {
                throw new UnsupportedCallbackException(callback);
            }
        }
    }

    @Override
    public void close() {
    }
}
