package org.kafscale.proxy.app.validation;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;

/**
 * Schemas by id from a schema registry's REST API, Confluent's {@code GET /schemas/ids/{id}}
 * (which Apicurio Registry serves under {@code /apis/ccompat/v7}): fetched asynchronously on the
 * HTTP client's own threads, never a connection's event loop, and kept in a cache bounded to
 * {@link #MAX_SCHEMAS} ids, least recently used out. A registry id names one schema for good, so
 * a cached schema is never refetched. A failed lookup (an unknown id, a registry that is down) is
 * kept for {@link #RETRY_AFTER}, so every record of a batch gets its reason and a stream of bad
 * ids does not become a stream of requests to the registry; the first record after that asks again.
 */
public final class SchemaRegistryClient {
    /** Ids kept: a topic's producers use a handful each; thousands is a registry, not a working set. */
    static final int MAX_SCHEMAS = 1000;
    static final Duration TIMEOUT = Duration.ofSeconds(5);
    static final Duration RETRY_AFTER = Duration.ofSeconds(1);
    private static final ObjectMapper MAPPER = new ObjectMapper();

    /** A registry's schema as it answered: its text and type (AVRO when it names none, as Confluent's does). */
    public record RegistrySchema(int id, String type, String text) {
    }

    private final URI base;
    private final HttpClient http;
    /** When each failed lookup in the cache failed (System.nanoTime), by id. */
    private final Map<Integer, Long> failedAt = new java.util.HashMap<>();
    private final Map<Integer, CompletableFuture<RegistrySchema>> cache = new LinkedHashMap<>(64, 0.75f, true) {
        @Override
        protected boolean removeEldestEntry(Map.Entry<Integer, CompletableFuture<RegistrySchema>> eldest) {
            return size() > MAX_SCHEMAS;
        }
    };

    /** @param base the registry's URL, up to where {@code /schemas/ids/{id}} follows */
    public SchemaRegistryClient(URI base) {
        String text = base.toString();
        this.base = URI.create(text.endsWith("/") ? text : text + "/");
        this.http = HttpClient.newBuilder().connectTimeout(TIMEOUT).build();
    }

    public URI base() {
        return base;
    }

    /**
     * The schema of {@code id}: the cached lookup (done, or under way), or a new one. Called on
     * event loops: holds the cache's lock only to look up and insert.
     */
    public CompletableFuture<RegistrySchema> schema(int id) {
        CompletableFuture<RegistrySchema> lookup;
        synchronized (cache) {
            lookup = cache.get(id);
            if (lookup != null && (!lookup.isCompletedExceptionally()
                    || System.nanoTime() - failedAt.getOrDefault(id, 0L) < RETRY_AFTER.toNanos())) {
                return lookup;
            }
            lookup = new CompletableFuture<>();
            cache.put(id, lookup);
            failedAt.remove(id);
        }
        CompletableFuture<RegistrySchema> mine = lookup;
        fetch(id).whenComplete((schema, failed) -> {
            if (failed != null) {
                synchronized (cache) {
                    if (cache.get(id) == mine) {
                        failedAt.put(id, System.nanoTime());
                    }
                    failedAt.keySet().retainAll(cache.keySet());
                }
                mine.completeExceptionally(failed instanceof CompletionException && failed.getCause() != null
                        ? failed.getCause() : failed);
            } else {
                mine.complete(schema);
            }
        });
        return mine;
    }

    private CompletableFuture<RegistrySchema> fetch(int id) {
        HttpRequest request = HttpRequest.newBuilder(base.resolve("schemas/ids/" + id)).timeout(TIMEOUT)
                .header("Accept", "application/vnd.schemaregistry.v1+json, application/json").GET().build();
        return http.sendAsync(request, HttpResponse.BodyHandlers.ofByteArray()).thenApply(response -> {
            if (response.statusCode() == 404) {
                throw new IllegalStateException("schema id " + id + " is not in the registry");
            }
            if (response.statusCode() != 200) {
                throw new IllegalStateException("the registry answered HTTP " + response.statusCode()
                        + " for schema id " + id);
            }
            JsonNode body;
            try {
                body = MAPPER.readTree(response.body());
            } catch (IOException e) {
                throw new IllegalStateException("the registry's answer for schema id " + id + " is not JSON", e);
            }
            JsonNode schema = body == null ? null : body.get("schema");
            if (schema == null || !schema.isTextual()) {
                throw new IllegalStateException("the registry's answer for schema id " + id + " has no schema");
            }
            JsonNode type = body.get("schemaType");
            return new RegistrySchema(id, type == null || type.isNull() ? "AVRO" : type.asText(), schema.asText());
        });
    }
}
