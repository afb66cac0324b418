package org.kafscale.proxy.testkit;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A schema registry's read API on a real HTTP socket, for tests: {@code GET /schemas/ids/{id}}
 * answers {@code {"schema": "...", "schemaType": "..."}} as Confluent's registry (and Apicurio's
 * compatibility API) does, 404 with error code 40403 for an id it does not hold. It counts the
 * lookups, so a test can see what a cache saved.
 */
public final class RegistryServer implements AutoCloseable {
    private final HttpServer server;
    private final ExecutorService threads = Executors.newFixedThreadPool(2);
    private final Map<Integer, String[]> schemas = new ConcurrentHashMap<>();
    private final AtomicInteger lookups = new AtomicInteger();

    private RegistryServer(HttpServer server) {
        this.server = server;
    }

    public static RegistryServer start() {
        try {
            HttpServer server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
            RegistryServer registry = new RegistryServer(server);
            server.createContext("/schemas/ids/", registry::answer);
            server.setExecutor(registry.threads);
            server.start();
            return registry;
        } catch (IOException e) {
            throw new IllegalStateException("the registry could not listen", e);
        }
    }

    /** Holds {@code schema} (its text) of {@code type} (AVRO, JSON, PROTOBUF) under {@code id}. */
    public RegistryServer register(int id, String type, String schema) {
        schemas.put(id, new String[] {type, schema});
        return this;
    }

    /** The registry's URL, as clients are configured with it. */
    public URI url() {
        return URI.create("http://127.0.0.1:" + server.getAddress().getPort());
    }

    /** How many schema lookups were asked. */
    public int lookups() {
        return lookups.get();
    }

    private void answer(HttpExchange exchange) throws IOException {
        lookups.incrementAndGet();
        String path = exchange.getRequestURI().getPath();
        String[] schema = null;
        try {
            schema = schemas.get(Integer.parseInt(path.substring(path.lastIndexOf('/') + 1)));
        } catch (NumberFormatException e) {
            // No such id: answered 404 below.
        }
        String body = schema == null ? "{\"error_code\":40403,\"message\":\"Schema not found\"}"
                : "{\"schemaType\":" + quoted(schema[0]) + ",\"schema\":" + quoted(schema[1]) + "}";
        byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
        exchange.getResponseHeaders().set("Content-Type", "application/vnd.schemaregistry.v1+json");
        exchange.sendResponseHeaders(schema == null ? 404 : 200, bytes.length);
        try (OutputStream out = exchange.getResponseBody()) {
            out.write(bytes);
        }
    }

    private static String quoted(String text) {
        StringBuilder out = new StringBuilder("\"");
        for (char c : text.toCharArray()) {
            switch (c) {
                case '"' -> out.append("\\\"");
                case '\\' -> out.append("\\\\");
                case '\n' -> out.append("\\n");
                case '\r' -> out.append("\\r");
                case '\t' -> out.append("\\t");
                default -> out.append(c < 0x20 ? String.format("\\u%04x", (int) c) : String.valueOf(c));
            }
        }
        return out.append('"').toString();
    }

    @Override
    public void close() {
        server.stop(0);
        threads.shutdownNow();
    }
}
