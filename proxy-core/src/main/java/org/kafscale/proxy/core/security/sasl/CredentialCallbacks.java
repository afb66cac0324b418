package org.kafscale.proxy.core.security.sasl;

import java.net.SocketAddress;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import javax.security.auth.callback.Callback;
import javax.security.auth.callback.NameCallback;
import javax.security.auth.callback.UnsupportedCallbackException;
import javax.security.auth.login.AppConfigurationEntry;
import org.apache.kafka.common.security.auth.AuthenticateCallbackHandler;
import org.apache.kafka.common.security.plain.PlainAuthenticateCallback;
import org.apache.kafka.common.security.scram.ScramCredential;
import org.apache.kafka.common.security.scram.ScramCredentialCallback;

/**
 * Answers the questions kafka-clients' PLAIN and SCRAM servers ask during one exchange from the
 * credentials file: the SCRAM credential of the named user, or whether a PLAIN password is right.
 * An unknown user gets no credential (the server then fails the exchange as it would for a wrong
 * password); delegation tokens are not supported, so their callback is refused.
 *
 * <p>The readiness probe's user name is answered by the {@link ProbeLogin} alone, never by the
 * file, and only on the proxy's own connections: from anywhere else it is an unknown user.
 */
final class CredentialCallbacks implements AuthenticateCallbackHandler {
    private final Optional<ReloadingCredentials> credentials;
    private final SaslMechanism mechanism;
    private final Optional<ProbeLogin> probe;
    private final SocketAddress client;

    /**
     * @param credentials the users' file, empty when it does not serve {@code mechanism}
     * @param client the address of the connection the exchange runs on
     */
    CredentialCallbacks(Optional<ReloadingCredentials> credentials, SaslMechanism mechanism,
                        Optional<ProbeLogin> probe, SocketAddress client) {
        this.credentials = credentials;
        this.mechanism = mechanism;
        this.probe = probe;
        this.client = client;
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
                scram.scramCredential(user == null ? null : scram(user).orElse(null));
            } else if (callback instanceof PlainAuthenticateCallback plain) {
                // The probe never logs in with PLAIN: its name is refused here.
                plain.authenticated(user != null && !isProbeUser(user) && credentials.isPresent()
                        && PasswordCheck.matches(credentials.get().current().credentials(user), plain.password()));
            } else {
                throw new UnsupportedCallbackException(callback);
            }
        }
    }

    private Optional<ScramCredential> scram(String user) {
        if (isProbeUser(user)) {
            return probe.flatMap(p -> p.credentialFor(mechanism, client));
        }
        return credentials.flatMap(c -> c.current().scram(user, mechanism));
    }

    private boolean isProbeUser(String user) {
        return probe.filter(p -> p.isProbeUser(user)).isPresent();
    }

    @Override
    public void close() {
    }
}
