package org.kafscale.proxy.app.validation;

import java.io.IOException;
import java.nio.ByteBuffer;
import org.apache.avro.Schema;
import org.apache.avro.SchemaParseException;
import org.apache.avro.generic.GenericDatumReader;
import org.apache.avro.io.BinaryDecoder;
import org.apache.avro.io.DecoderFactory;
import org.kafscale.proxy.core.validation.RecordFormat;

/**
 * Avro binary of one schema: the bytes decode as a datum of the schema (the writer's), to the
 * last byte. The bare binary, as a schema file names it; a registry's wire format (a magic byte
 * and a schema id before it) is {@link RegistryFormat}'s.
 */
public final class AvroFormat implements RecordFormat {
    private final Schema schema;
    private final GenericDatumReader<Object> reader;

    public AvroFormat(Schema schema) {
        this.schema = schema;
        this.reader = new GenericDatumReader<>(schema);
    }

    /**
     * The format of Avro schema {@code text} (JSON).
     *
     * @throws IllegalArgumentException when {@code text} is not an Avro schema
     */
    public static AvroFormat parse(String text) {
        try {
            return new AvroFormat(new Schema.Parser().parse(text));
        } catch (SchemaParseException | NullPointerException e) {
            throw new IllegalArgumentException("not an Avro schema: " + e.getMessage(), e);
        }
    }

    @Override
    public Check check(ByteBuffer bytes) {
        return check(RecordBytes.of(bytes), 0);
    }

    /** Whether {@code bytes} from {@code offset} to the end are one datum of the schema. */
    Check check(byte[] bytes, int offset) {
        BinaryDecoder decoder = DecoderFactory.get().binaryDecoder(bytes, offset, bytes.length - offset, null);
        try {
            // GenericDatumReader keeps its resolver per thread: one is shared by every event loop.
            reader.read(null, decoder);
            if (!decoder.isEnd()) {
                return Check.invalid("not Avro of " + schema.getFullName() + ": bytes left after the datum");
            }
            return Check.VALID;
        } catch (IOException | RuntimeException e) {
            return Check.invalid("not Avro of " + schema.getFullName() + ": " + describe(e));
        }
    }

    private static String describe(Exception e) {
        String message = e.getMessage();
        return message == null || message.isBlank() ? e.getClass().getSimpleName() : message;
    }
}
