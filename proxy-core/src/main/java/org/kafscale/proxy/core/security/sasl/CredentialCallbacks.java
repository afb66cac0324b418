package org.kafscale.proxy.core.security.sasl;

import java.util.List;
import java.util.Map;
import javax.security.auth.callback.Callback;
import javax.security.auth.callback.NameCallback;
import javax.security.auth.callback.UnsupportedCallbackException;
import javax.security.auth.login.AppConfigurationEntry;
import org.apache.kafka.common.security.auth.AuthenticateCallbackHandler;
import org.apache.kafka.common.security.plain.PlainAuthenticateCallback;
import org.apache.kafka.common.security.scram.ScramCredentialCallback;

/**
 * Answers the questions kafka-clients' PLAIN and SCRAM servers ask during one exchange from the
 * credentials file: the SCRAM credential of the named user, or whether a PLAIN password is right.
 * An unknown user gets no credential (the server then fails the exchange as it would for a wrong
 * password); delegation tokens are not supported, so their callback is refused.
 */
final class CredentialCallbacks implements AuthenticateCallbackHandler {
    private final ReloadingCredentials credentials;
    private final SaslMechanism mechanism;

    CredentialCallbacks(ReloadingCredentials credentials, SaslMechanism mechanism) {
        this.credentials = credentials;
        this.mechanism = mechanism;
    }

    @Override
    public void configure(Map<String, ?> configs, String saslMechanism, List<AppConfigurationEntry> jaasConfigEntries) {
    }

    @Override
    public void handle(Callback[] callbacks) throws UnsupportedCallbackException {
        String user = null;
        for (Callback callback : callbacks) {
            if (callback instanceof NameCallback name) {
                user = name.getDefaultName();
            } else if (callback instanceof ScramCredentialCallback scram) {
                scram.scramCredential(user == null ? null : credentials.current().scram(user, mechanism).orElse(null));
            } else if (callback instanceof PlainAuthenticateCallback plain) {
                plain.authenticated(user != null
                        && PasswordCheck.matches(credentials.current().credentials(user), plain.password()));
            } else {
                throw new UnsupportedCallbackException(callback);
            }
        }
    }

    @Override
    public void close() {
    }
}
