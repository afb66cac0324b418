package org.kafscale.proxy.app.validation;

import java.nio.ByteBuffer;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import org.kafscale.proxy.core.validation.RecordFormat;

/**
 * Records in a schema registry's wire format: magic byte 0, the schema's id (4 bytes, big-endian),
 * then the encoding of the schema's type (Avro binary, or JSON for a JSON Schema). The schema is
 * looked up by id ({@link SchemaRegistryClient}); until it is there the check is pending, and the
 * request waits for it, not the event loop. Each schema is parsed once, off the loop, on the HTTP
 * client's thread that got it.
 */
public final class RegistryFormat implements RecordFormat {
    /** What a registry schema must be. */
    public enum Kind {
        AVRO("AVRO"), JSON_SCHEMA("JSON");

        private final String registryType;

        Kind(String registryType) {
            this.registryType = registryType;
        }
    }

    private static final byte MAGIC = 0;
    private static final int HEADER = 5;

    private final SchemaRegistryClient registry;
    private final Kind kind;
    /** Each id's parsed format, as its lookup completes; bounded as the client's cache is. */
    private final Map<Integer, Parse> parsed = new LinkedHashMap<>(64, 0.75f, true) {
        @Override
        protected boolean removeEldestEntry(Map.Entry<Integer, Parse> eldest) {
            return size() > SchemaRegistryClient.MAX_SCHEMAS;
        }
    };

    /** A schema ready to check with, or why the id cannot be used. */
    private record Parsed(AvroFormat avro, JsonSchemaFormat json, String problem) {
    }

    public RegistryFormat(SchemaRegistryClient registry, Kind kind) {
        this.registry = registry;
        this.kind = kind;
    }

    @Override
    public Check check(ByteBuffer bytes) {
        if (bytes.remaining() < HEADER || bytes.get(bytes.position()) != MAGIC) {
            return Check.invalid("not in the schema registry's wire format (magic byte 0, then a 4-byte schema id)");
        }
        int id = bytes.getInt(bytes.position() + 1);
        CompletableFuture<Parsed> schema = schema(id);
        if (!schema.isDone()) {
            return new Check.Pending(schema);
        }
        if (schema.isCompletedExceptionally()) {
            Throwable cause = schema.handle((ok, failed) -> failed).join();
            while (cause instanceof java.util.concurrent.CompletionException && cause.getCause() != null) {
                cause = cause.getCause();
            }
            return Check.invalid("schema id " + id + " could not be had from the registry: " + cause.getMessage());
        }
        Parsed ready = schema.join();
        if (ready.problem() != null) {
            return Check.invalid("schema id " + id + " " + ready.problem());
        }
        byte[] all = RecordBytes.of(bytes);
        if (ready.avro() != null) {
            return ready.avro().check(all, HEADER);
        }
        return ready.json().check(all, HEADER);
    }

    /** The parsed schema of the registry's current lookup of {@code id} (the client decides when to ask again). */
    private CompletableFuture<Parsed> schema(int id) {
        CompletableFuture<SchemaRegistryClient.RegistrySchema> lookup = registry.schema(id);
        synchronized (parsed) {
            Parse known = parsed.get(id);
            if (known != null && known.lookup() == lookup) {
                return known.parsed();
            }
            CompletableFuture<Parsed> made = lookup.thenApply(this::parse);
            parsed.put(id, new Parse(lookup, made));
            return made;
        }
    }

    /** One lookup and its parse. */
    private record Parse(CompletableFuture<SchemaRegistryClient.RegistrySchema> lookup,
                         CompletableFuture<Parsed> parsed) {
    }

    private Parsed parse(SchemaRegistryClient.RegistrySchema schema) {
        if (!kind.registryType.equalsIgnoreCase(schema.type())) {
            return new Parsed(null, null, "is a " + schema.type() + " schema, not " + kind.registryType);
        }
        try {
            return kind == Kind.AVRO ? new Parsed(AvroFormat.parse(schema.text()), null, null)
                    : new Parsed(null, JsonSchemaFormat.parse(schema.text().getBytes(
                    java.nio.charset.StandardCharsets.UTF_8)), null);
        } catch (IllegalArgumentException e) {
            return new Parsed(null, null, "does not parse: " + e.getMessage());
        }
    }
}
