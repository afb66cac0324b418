package org.kafscale.proxy.core.backend.security;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.common.security.oauthbearer.OAuthBearerToken;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The proxy's OAUTHBEARER token comes from a real HTTP token endpoint by the client-credentials
 * grant, and one token serves connections until it ages.
 */
class OAuthTokensTest {
    private HttpServer endpoint;
    private final List<String> requests = new CopyOnWriteArrayList<>();

    @BeforeEach
    void startTokenEndpoint() throws IOException {
        endpoint = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
        endpoint.createContext("/token", exchange -> {
            String body = new String(exchange.getRequestBody().readAllBytes(), StandardCharsets.UTF_8);
            requests.add(exchange.getRequestHeaders().getFirst("Authorization") + " " + body);
            byte[] answer = ("{\"access_token\":\"" + jwt("kafscale-proxy") + "\",\"token_type\":\"bearer\","
                    + "\"expires_in\":3600}").getBytes(StandardCharsets.UTF_8);
            exchange.getResponseHeaders().add("Content-Type", "application/json");
            exchange.sendResponseHeaders(200, answer.length);
            exchange.getResponseBody().write(answer);
            exchange.close();
        });
        endpoint.start();
    }

    @AfterEach
    void stopTokenEndpoint() {
        endpoint.stop(0);
    }

    @Test
    void theTokenComesFromTheClientCredentialsGrantAndIsReused() throws Exception {
        URI url = URI.create("http://127.0.0.1:" + endpoint.getAddress().getPort() + "/token");
        try (OAuthTokens tokens = new OAuthTokens(new BackendSaslSettings.OAuthClientCredentials(url,
                "kafscale-proxy", "s3cr3t", "kafka"))) {
            // When two connections ask for a token
            OAuthBearerToken first = tokens.token().get(30, TimeUnit.SECONDS);
            OAuthBearerToken second = tokens.token().get(30, TimeUnit.SECONDS);

            // Then one grant served both, as the proxy's client with its secret and scope
            assertEquals("kafscale-proxy", first.principalName());
            assertSame(first, second);
            assertEquals(1, requests.size(), requests.toString());
            String basic = "Basic " + Base64.getEncoder().encodeToString("kafscale-proxy:s3cr3t"
                    .getBytes(StandardCharsets.UTF_8));
            assertTrue(requests.get(0).startsWith(basic) && requests.get(0).contains("grant_type=client_credentials")
                    && requests.get(0).contains("scope=kafka"), requests.get(0));
        }
    }

    /** An unsigned JWT for {@code subject}, valid for an hour (the client checks claims, not signatures). */
    private static String jwt(String subject) {
        long now = System.currentTimeMillis() / 1000;
        Base64.Encoder b64 = Base64.getUrlEncoder().withoutPadding();
        String header = b64.encodeToString("{\"alg\":\"none\"}".getBytes(StandardCharsets.UTF_8));
        String claims = b64.encodeToString(("{\"sub\":\"" + subject + "\",\"iat\":" + now + ",\"exp\":" + (now + 3600)
                + ",\"scope\":\"kafka\"}").getBytes(StandardCharsets.UTF_8));
        return header + "." + claims + "." + b64.encodeToString("sig".getBytes(StandardCharsets.UTF_8));
    }
}
