package org.kafscale.proxy.testkit;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Base64;
import java.util.concurrent.atomic.AtomicInteger;
import org.jose4j.jwk.JsonWebKey;
import org.jose4j.jwk.JsonWebKeySet;
import org.jose4j.jwk.RsaJsonWebKey;
import org.jose4j.jwk.RsaJwkGenerator;
import org.jose4j.jws.AlgorithmIdentifiers;
import org.jose4j.jws.JsonWebSignature;
import org.jose4j.jwt.JwtClaims;
import org.jose4j.jwt.NumericDate;
import org.jose4j.lang.JoseException;

/**
 * An OAuth 2 authorization server for tests, on a loopback port: a JSON Web Key Set at {@link
 * #jwksUrl()} (what a broker or the proxy validates tokens against) and a token endpoint at {@link
 * #tokenUrl()} that grants one client, by the client-credentials grant (HTTP Basic with its id and
 * secret), JWTs signed with the set's RSA key, with the client id as subject and a lifetime of the
 * test's choosing. A wrong id or secret gets 401.
 */
public final class TestOAuthServer implements AutoCloseable {
    private static final String KEY_ID = "test-key";

    private final String clientId;
    private final String clientSecret;
    private final Duration tokenLifetime;
    private final RsaJsonWebKey key;
    private final HttpServer server;
    private final AtomicInteger grants = new AtomicInteger();

    private TestOAuthServer(String clientId, String clientSecret, Duration tokenLifetime) throws JoseException, IOException {
        this.clientId = clientId;
        this.clientSecret = clientSecret;
        this.tokenLifetime = tokenLifetime;
        this.key = RsaJwkGenerator.generateJwk(2048);
        key.setKeyId(KEY_ID);
        String keySet = new JsonWebKeySet(key).toJson(JsonWebKey.OutputControlLevel.PUBLIC_ONLY);
        server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
        server.createContext("/jwks", exchange -> answer(exchange, 200, keySet));
        server.createContext("/token", this::grant);
        server.start();
    }

    /** A server granting tokens of {@code tokenLifetime} (whole seconds, as JWTs count) to one client. */
    public static TestOAuthServer start(String clientId, String clientSecret, Duration tokenLifetime) {
        try {
            return new TestOAuthServer(clientId, clientSecret, tokenLifetime);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (JoseException e) {
            throw new IllegalStateException("cannot make the test's signing key", e);
        }
    }

    public URI jwksUrl() {
        return URI.create("http://127.0.0.1:" + server.getAddress().getPort() + "/jwks");
    }

    public URI tokenUrl() {
        return URI.create("http://127.0.0.1:" + server.getAddress().getPort() + "/token");
    }

    /** How many tokens were granted so far. */
    public int grants() {
        return grants.get();
    }

    /** A token for {@code subject} signed with the set's key, expiring {@code lifetime} from now. */
    public String token(String subject, Duration lifetime) {
        JwtClaims claims = new JwtClaims();
        claims.setSubject(subject);
        claims.setIssuedAtToNow();
        NumericDate expiry = NumericDate.now();
        expiry.addSeconds(Math.max(1, lifetime.toSeconds()));
        claims.setExpirationTime(expiry);
        claims.setClaim("scope", "kafka");
        JsonWebSignature jws = new JsonWebSignature();
        jws.setPayload(claims.toJson());
        jws.setKey(key.getPrivateKey());
        jws.setKeyIdHeaderValue(KEY_ID);
        jws.setAlgorithmHeaderValue(AlgorithmIdentifiers.RSA_USING_SHA256);
        try {
            return jws.getCompactSerialization();
        } catch (JoseException e) {
            throw new IllegalStateException("cannot sign a test token", e);
        }
    }

    private void grant(HttpExchange exchange) throws IOException {
        String body = new String(exchange.getRequestBody().readAllBytes(), StandardCharsets.UTF_8);
        String expected = "Basic " + Base64.getEncoder().encodeToString((clientId + ":" + clientSecret)
                .getBytes(StandardCharsets.UTF_8));
        if (!expected.equals(exchange.getRequestHeaders().getFirst("Authorization"))
                || !body.contains("grant_type=client_credentials")) {
            answer(exchange, 401, "{\"error\":\"invalid_client\"}");
            return;
        }
        grants.incrementAndGet();
        answer(exchange, 200, "{\"access_token\":\"" + token(clientId, tokenLifetime) + "\",\"token_type\":\"bearer\","
                + "\"expires_in\":" + tokenLifetime.toSeconds() + "}");
    }

    private static void answer(HttpExchange exchange, int status, String json) throws IOException {
        byte[] bytes = json.getBytes(StandardCharsets.UTF_8);
        exchange.getResponseHeaders().add("Content-Type", "application/json");
        exchange.sendResponseHeaders(status, bytes.length);
        try (OutputStream out = exchange.getResponseBody()) {
            out.write(bytes);
        }
    }

    @Override
    public void close() {
        server.stop(0);
    }
}
