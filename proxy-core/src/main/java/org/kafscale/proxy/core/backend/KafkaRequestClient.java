package org.kafscale.proxy.core.backend;

import io.netty.buffer.ByteBuf;
import io.netty.channel.EventLoop;
import io.netty.channel.EventLoopGroup;
import io.netty.util.concurrent.Future;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.kafka.common.message.ApiVersionsResponseData;
import org.apache.kafka.common.message.ApiVersionsResponseData.ApiVersion;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.Errors;
import org.kafscale.proxy.core.codec.OutboundRequest;
import org.kafscale.proxy.core.codec.OutboundRequests;
import org.kafscale.proxy.core.topology.BrokerEndpoint;

/**
 * The proxy's own Kafka client, for the few requests it makes on its own behalf: discovery
 * (Metadata, FindCoordinator), the brokers' ApiVersions, probes.
 *
 * <p>Like Kafka's NetworkClient it asks each broker for its ApiVersions once per connection and
 * sends every request at the highest version both sides support. Thread-safe; work runs on the
 * given event loop group.
 */
public final class KafkaRequestClient {
    private static final short API_VERSIONS_VERSION = 3;

    private final EventLoopGroup group;
    private final BackendConnector connector;
    private final String clientId;
    private final Duration requestTimeout;
    private final Map<String, CompletableFuture<Session>> sessions = new ConcurrentHashMap<>();

    public KafkaRequestClient(EventLoopGroup group, BackendConnector connector, String clientId,
                              Duration requestTimeout) {
        this.group = group;
        this.connector = connector;
        this.clientId = clientId;
        this.requestTimeout = requestTimeout;
    }

    /** The ApiVersions the broker reported on the current connection, connecting if needed. */
    public CompletableFuture<ApiVersionsResponseData> apiVersions(BrokerEndpoint broker) {
        return session(broker).thenApply(Session::versions);
    }

    /** Sends a request at the highest version both sides support and completes with what its answer says. */
    public <T> CompletableFuture<T> send(BrokerEndpoint broker, OutboundRequest<T> request) {
        return session(broker).thenCompose(session -> {
            ApiKeys api = request.api();
            ApiVersion range = session.versions().apiKeys().find(api.id);
            if (range == null) {
                throw new IllegalStateException(broker + " does not support " + api.name);
            }
            short version = (short) Math.min(Math.min(request.latestVersion(), range.maxVersion()),
                    api.latestVersion());
            if (version < Math.max(request.oldestVersion(), range.minVersion())) {
                throw new IllegalStateException(broker + " supports " + api.name + " v" + range.minVersion()
                        + "-" + range.maxVersion() + ", none usable here");
            }
            return exchange(session, request, version);
        });
    }

    private CompletableFuture<Session> session(BrokerEndpoint broker) {
        String key = broker.id() + "@" + broker.address();
        CompletableFuture<Session> existing = sessions.get(key);
        if (existing != null && (!existing.isDone() || (!existing.isCompletedExceptionally()
                && existing.join().channel().isUsable()))) {
            return existing;
        }
        CompletableFuture<Session> created = new CompletableFuture<>();
        CompletableFuture<Session> raced = sessions.compute(key, (k, v) -> v == existing ? created : v);
        if (raced != created) {
            return raced;
        }
        EventLoop loop = group.next();
        loop.execute(() -> connector.connect(loop, broker).addListener(f -> {
            if (!f.isSuccess()) {
                sessions.remove(key, created);
                created.completeExceptionally(f.cause());
                return;
            }
            BackendChannel channel = (BackendChannel) f.getNow();
            Session bare = new Session(channel, null);
            exchange(bare, OutboundRequests.apiVersions(), API_VERSIONS_VERSION).whenComplete((versions, err) -> {
                if (err == null && versions.errorCode() != Errors.NONE.code()) {
                    err = Errors.forCode(versions.errorCode()).exception();
                }
                if (err != null) {
                    channel.close("ApiVersions failed: " + err);
                    sessions.remove(key, created);
                    created.completeExceptionally(err);
                } else {
                    created.complete(new Session(channel, versions));
                }
            });
        }));
        return created;
    }

    private <T> CompletableFuture<T> exchange(Session session, OutboundRequest<T> request, short version) {
        CompletableFuture<T> result = new CompletableFuture<>();
        BackendChannel channel = session.channel();
        ByteBuf frame = request.encode(version, clientId);
        channel.channel().eventLoop().execute(() -> {
            Future<ByteBuf> answer = channel.request(frame, requestTimeout.toMillis());
            answer.addListener(f -> {
                if (!f.isSuccess()) {
                    result.completeExceptionally(f.cause());
                    return;
                }
                ByteBuf response = answer.getNow();
                try {
                    result.complete(request.decodeAnswer(version, response));
                } catch (RuntimeException e) {
                    channel.fail("answer to " + request.api().name + " does not parse: " + e,
                            BackendException.Cause.BAD_RESPONSE);
                    result.completeExceptionally(e);
                } finally {
                    response.release();
                }
            });
        });
        return result;
    }

    /** Closes every connection. */
    public void close() {
        sessions.values().forEach(f -> f.thenAccept(s -> s.channel().close("client closed")));
        sessions.clear();
    }

    private record Session(BackendChannel channel, ApiVersionsResponseData versions) {
    }
}
