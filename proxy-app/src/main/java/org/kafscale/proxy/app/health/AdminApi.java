package org.kafscale.proxy.app.health;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.netty.buffer.Unpooled;
import io.netty.handler.codec.http.DefaultFullHttpResponse;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpUtil;
import io.netty.handler.codec.http.HttpVersion;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ScheduledExecutorService;
import org.kafscale.proxy.app.config.ConfigKey;
import org.kafscale.proxy.app.reload.ConfigReload;
import org.kafscale.proxy.app.reload.ReloadAnswers;
import org.kafscale.proxy.app.reload.ReloadOutcome;

/**
 * The admin API on the health listener, off the Kafka path: {@code POST /admin/reload} reloads
 * the configuration and answers what it did; {@code GET /admin/config} shows the configuration
 * in force, secrets redacted. Every request must carry {@code Authorization: Bearer <token>}
 * ({@code KAFSCALE_PROXY_ADMIN_TOKEN}); without a token set the API is off. Answers are JSON, an
 * error with a code ({@code unauthorized}, {@code admin_disabled}, {@code not_found},
 * {@code method_not_allowed}, {@code invalid_configuration}).
 */
public final class AdminApi {
    static final String PREFIX = "/admin/";
    private static final ObjectMapper JSON = new ObjectMapper();

    private final Optional<byte[]> token;
    private final ConfigReload reload;
    private final ScheduledExecutorService reloads;

    /** @param reloads where reloads run: never the health listener's event loop */
    public AdminApi(Optional<String> token, ConfigReload reload, ScheduledExecutorService reloads) {
        this.token = token.map(t -> t.getBytes(StandardCharsets.UTF_8));
        this.reload = reload;
        this.reloads = reloads;
    }

    /**
     * The answer to one admin request; completes on another thread for a reload. Reads only what
     * it is given, so the request may be released at once.
     */
    CompletableFuture<FullHttpResponse> answer(HttpMethod method, String path, String authorization) {
        if (token.isEmpty()) {
            return done(error(HttpResponseStatus.FORBIDDEN, "admin_disabled",
                    "the admin API is off: set " + ConfigKey.ADMIN_TOKEN.envName()));
        }
        if (!authorized(authorization)) {
            FullHttpResponse refused = error(HttpResponseStatus.UNAUTHORIZED, "unauthorized",
                    "an admin request needs Authorization: Bearer <" + ConfigKey.ADMIN_TOKEN.envName() + ">");
            refused.headers().set(HttpHeaderNames.WWW_AUTHENTICATE, "Bearer");
            return done(refused);
        }
        return switch (path) {
            case PREFIX + "reload" -> HttpMethod.POST.equals(method)
                    ? reload.reloadOn(reloads, "POST /admin/reload").thenApply(AdminApi::reloaded)
                    : done(notAllowed("POST"));
            case PREFIX + "config" -> HttpMethod.GET.equals(method) ? done(json(HttpResponseStatus.OK, reload.inForce()))
                    : done(notAllowed("GET"));
            default -> done(error(HttpResponseStatus.NOT_FOUND, "not_found", "no admin path " + path));
        };
    }

    private boolean authorized(String authorization) {
        if (authorization == null || !authorization.startsWith("Bearer ")) {
            return false;
        }
        byte[] given = authorization.substring("Bearer ".length()).trim().getBytes(StandardCharsets.UTF_8);
        // Constant time: how long the comparison takes says nothing about the token.
        return MessageDigest.isEqual(given, token.get());
    }

    private static FullHttpResponse reloaded(ReloadOutcome outcome) {
        // 422: the request was fine, the configuration it asked to apply is not.
        return json(outcome.result() == ReloadOutcome.Result.REFUSED ? HttpResponseStatus.UNPROCESSABLE_ENTITY
                : HttpResponseStatus.OK, ReloadAnswers.json(outcome));
    }

    private static FullHttpResponse notAllowed(String allowed) {
        FullHttpResponse refused = error(HttpResponseStatus.METHOD_NOT_ALLOWED, "method_not_allowed",
                "this admin path takes " + allowed);
        refused.headers().set(HttpHeaderNames.ALLOW, allowed);
        return refused;
    }

    private static FullHttpResponse error(HttpResponseStatus status, String code, String message) {
        ObjectNode body = JsonNodeFactory.instance.objectNode();
        body.put("error", code);
        body.put("message", message);
        return json(status, body);
    }

    private static FullHttpResponse json(HttpResponseStatus status, JsonNode body) {
        byte[] bytes;
        try {
            bytes = JSON.writerWithDefaultPrettyPrinter().writeValueAsBytes(body);
        } catch (com.fasterxml.jackson.core.JsonProcessingException e) {
            throw new IllegalStateException(e);
        }
        FullHttpResponse response = new DefaultFullHttpResponse(HttpVersion.HTTP_1_1, status,
                Unpooled.wrappedBuffer(bytes));
        response.headers().set(HttpHeaderNames.CONTENT_TYPE, "application/json");
        HttpUtil.setContentLength(response, bytes.length);
        return response;
    }

    private static CompletableFuture<FullHttpResponse> done(FullHttpResponse response) {
        return CompletableFuture.completedFuture(response);
    }
}
