package org.kafscale.proxy.app.validation;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
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
        return check(RecordBytes.of(bytes));
    }

    Check check(byte[] bytes) {
        String problem = JsonFormat.problem(bytes);
        if (problem != null) {
            return Check.invalid(problem);
        }
        JsonNode node;
        try {
            node = MAPPER.readTree(bytes);
        } catch (IOException e) {
            return Check.invalid("not JSON: " + e.getMessage());
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
