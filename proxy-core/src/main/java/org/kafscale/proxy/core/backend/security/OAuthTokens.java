package org.kafscale.proxy.core.backend.security;

import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import javax.security.auth.callback.Callback;
import javax.security.auth.login.AppConfigurationEntry;
import org.apache.kafka.common.config.ConfigDef;
import org.apache.kafka.common.config.SaslConfigs;
import org.apache.kafka.common.config.SslConfigs;
import org.apache.kafka.common.security.oauthbearer.OAuthBearerLoginCallbackHandler;
import org.apache.kafka.common.security.oauthbearer.OAuthBearerLoginModule;
import org.apache.kafka.common.security.oauthbearer.OAuthBearerToken;
import org.apache.kafka.common.security.oauthbearer.OAuthBearerTokenCallback;

/**
 * The proxy's OAUTHBEARER token, fetched with a client-credentials grant by kafka-clients' own
 * {@link OAuthBearerLoginCallbackHandler} (which also retries and checks the token's claims).
 *
 * <p>Fetching is an HTTP call, so it runs on a thread of its own, never on an event loop: a
 * connection asks for {@link #token()} and continues when it completes. One token serves every
 * connection until it is {@link #REFRESH_AT} through its lifetime; then the next connection's
 * request fetches a new one (connections already open keep theirs until the broker's session
 * lifetime retires them).
 *
 * <p>A broker ends an OAUTHBEARER session when its token expires, so a channel's session is what
 * is left of the token it authenticated with. Handing a token out only in the first half of its
 * life gives every channel at least half a token's lifetime, and the 15 % of it the channel keeps
 * as margin before the session ends ({@code BackendChannel.RETIRE_AT}) stays long enough for a
 * request in flight to reach the broker in time.
 */
final class OAuthTokens implements AutoCloseable {
    /** Fraction of a token's lifetime after which it is no longer handed out. */
    static final double REFRESH_AT = 0.5;
    /** Connect and read timeout of each call to the token endpoint. */
    private static final Duration HTTP_TIMEOUT = Duration.ofSeconds(10);

    private final OAuthBearerLoginCallbackHandler handler = new OAuthBearerLoginCallbackHandler();
    private final ExecutorService fetcher = Executors.newSingleThreadExecutor(r -> {
        Thread thread = new Thread(r, "backend-oauth-token");
        thread.setDaemon(true);
        return thread;
    });
    private CompletableFuture<OAuthBearerToken> current;
    private long refreshAtMillis;

    OAuthTokens(BackendSaslSettings.OAuthClientCredentials credentials) {
        allowTokenEndpoint(credentials.tokenEndpoint().toString());
        Map<String, Object> props = new HashMap<>();
        props.put(SaslConfigs.SASL_MECHANISM, OAuthBearerLoginModule.OAUTHBEARER_MECHANISM);
        props.put(SaslConfigs.SASL_OAUTHBEARER_TOKEN_ENDPOINT_URL, credentials.tokenEndpoint().toString());
        // kafka-clients waits forever on a silent token endpoint unless told otherwise.
        props.put(SaslConfigs.SASL_LOGIN_CONNECT_TIMEOUT_MS, (int) HTTP_TIMEOUT.toMillis());
        props.put(SaslConfigs.SASL_LOGIN_READ_TIMEOUT_MS, (int) HTTP_TIMEOUT.toMillis());
        ConfigDef definition = new ConfigDef();
        SaslConfigs.addClientSaslSupport(definition);
        SslConfigs.addClientSslSupport(definition);
        Map<String, String> options = new HashMap<>();
        options.put(OAuthBearerLoginCallbackHandler.CLIENT_ID_CONFIG, credentials.clientId());
        options.put(OAuthBearerLoginCallbackHandler.CLIENT_SECRET_CONFIG, credentials.clientSecret());
        if (credentials.scope() != null) {
            options.put(OAuthBearerLoginCallbackHandler.SCOPE_CONFIG, credentials.scope());
        }
        handler.configure(definition.parse(props), OAuthBearerLoginModule.OAUTHBEARER_MECHANISM, List.of(
                new AppConfigurationEntry(OAuthBearerLoginModule.class.getName(),
                        AppConfigurationEntry.LoginModuleControlFlag.REQUIRED, options)));
    }

    /**
     * kafka-clients fetches tokens only from URLs the JVM allows ({@code
     * org.apache.kafka.sasl.oauthbearer.allowed.urls}); the operator configured this one for the
     * proxy, so it is added to that list.
     */
    private static synchronized void allowTokenEndpoint(String url) {
        String property = "org.apache.kafka.sasl.oauthbearer.allowed.urls";
        String allowed = System.getProperty(property, "");
        if (!List.of(allowed.split(",")).contains(url)) {
            System.setProperty(property, allowed.isEmpty() ? url : allowed + "," + url);
        }
    }

    /** A token with life left in it: the cached one, or one being fetched. */
    synchronized CompletableFuture<OAuthBearerToken> token() {
        boolean fresh = current != null && !current.isCompletedExceptionally()
                && (!current.isDone() || System.currentTimeMillis() < refreshAtMillis);
        if (!fresh) {
            current = CompletableFuture.supplyAsync(this::fetch, fetcher);
        }
        return current;
    }

    private OAuthBearerToken fetch() {
        OAuthBearerTokenCallback callback = new OAuthBearerTokenCallback();
        try {
            handler.handle(new Callback[] {callback});
        } catch (Exception e) {
            throw new IllegalStateException("cannot get an OAUTHBEARER token: " + e.getMessage(), e);
        }
        OAuthBearerToken token = callback.token();
        if (token == null) {
            throw new IllegalStateException("cannot get an OAUTHBEARER token: "
                    + (callback.errorDescription() != null ? callback.errorDescription() : callback.errorCode()));
        }
        long now = System.currentTimeMillis();
        synchronized (this) {
            refreshAtMillis = now + (long) ((token.lifetimeMs() - now) * REFRESH_AT);
        }
        return token;
    }

    @Override
    public void close() {
        fetcher.shutdownNow();
        handler.close();
    }
}
