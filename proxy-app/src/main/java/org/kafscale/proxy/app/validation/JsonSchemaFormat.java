package org.kafscale.proxy.app.validation;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.ObjectReader;
import com.networknt.schema.Error;
import com.networknt.schema.Schema;
import com.networknt.schema.SchemaRegistry;
import com.networknt.schema.SpecificationVersion;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.List;
import java.util.stream.Collectors;
import org.kafscale.proxy.core.validation.RecordFormat;

/**
 * JSON that a JSON Schema accepts (draft 2020-12 unless the schema's {@code $schema} names
 * another). The schema's validators are built when it is read, at start-up or when a registry's
 * schema arrives, so a check only walks the record's tree.
 */
public final class JsonSchemaFormat implements RecordFormat {
    private static final ObjectMapper MAPPER = new ObjectMapper();
    /** A second value after the first is not one JSON document: refused, as {@link JsonFormat} does. */
    private static final ObjectReader READER = MAPPER.reader().with(DeserializationFeature.FAIL_ON_TRAILING_TOKENS);
    /** The messages one record's answer carries: enough to fix the record, not a report. */
    private static final int MAX_MESSAGES = 3;

    private final Schema schema;

    private JsonSchemaFormat(Schema schema) {
        this.schema = schema;
    }

    /**
     * The format of JSON Schema {@code text}.
     *
     * @throws IllegalArgumentException when {@code text} is not a JSON Schema
     */
    public static JsonSchemaFormat parse(byte[] text) {
        JsonNode node;
        try {
            node = MAPPER.readTree(text);
        } catch (IOException e) {
            throw new IllegalArgumentException("not JSON: " + e.getMessage(), e);
        }
        if (node == null || !(node.isObject() || node.isBoolean())) {
            throw new IllegalArgumentException("a JSON Schema is an object (or true/false)");
        }
        try {
            Schema schema = SchemaRegistry.withDefaultDialect(SpecificationVersion.DRAFT_2020_12).getSchema(node);
            // Builds every validator, and resolves references, now rather than on the first record.
            schema.initializeValidators();
            return new JsonSchemaFormat(schema);
        } catch (RuntimeException e) {
            throw new IllegalArgumentException("not a JSON Schema: " + e.getMessage(), e);
        }
    }

    @Override
    public Check check(ByteBuffer bytes) {
        return check(RecordBytes.of(bytes), 0);
    }

    /** Whether {@code bytes} from {@code offset} on are one JSON value the schema accepts: parsed once, into a tree. */
    Check check(byte[] bytes, int offset) {
        JsonNode node;
        try {
            node = READER.readTree(bytes, offset, bytes.length - offset);
        } catch (JsonProcessingException e) {
            return Check.invalid("not JSON: " + e.getOriginalMessage()
                    + (e.getLocation() == null ? "" : " (at offset " + e.getLocation().getByteOffset() + ")"));
        } catch (IOException e) {
            return Check.invalid("not JSON: " + e.getMessage());
        }
        if (node == null || node.isMissingNode()) {
            return Check.invalid("not JSON: empty");
        }
        List<Error> errors = schema.validate(node);
        if (errors.isEmpty()) {
            return Check.VALID;
        }
        return Check.invalid("does not match the JSON Schema: " + errors.stream().limit(MAX_MESSAGES)
                .map(Error::getMessage).collect(Collectors.joining("; "))
                + (errors.size() > MAX_MESSAGES ? "; and " + (errors.size() - MAX_MESSAGES) + " more" : ""));
    }
}
