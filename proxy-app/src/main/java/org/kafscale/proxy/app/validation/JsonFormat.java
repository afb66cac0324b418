package org.kafscale.proxy.app.validation;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.JsonToken;
import java.io.IOException;
import java.nio.ByteBuffer;
import org.kafscale.proxy.core.validation.RecordFormat;

/**
 * Well-formed JSON: exactly one JSON value (UTF-8), nothing after it but white space. Read as
 * tokens, no tree built: the cheapest check that a consumer's JSON parser will take the record.
 */
public final class JsonFormat implements RecordFormat {
    private static final JsonFactory FACTORY = JsonFactory.builder().build();

    @Override
    public Check check(ByteBuffer bytes) {
        String problem = problem(RecordBytes.of(bytes));
        return problem == null ? Check.VALID : Check.invalid(problem);
    }

    /** Why {@code bytes} is not one well-formed JSON value; null when it is. */
    static String problem(byte[] bytes) {
        try (JsonParser parser = FACTORY.createParser(bytes)) {
            JsonToken first = parser.nextToken();
            if (first == null) {
                return "not JSON: empty";
            }
            parser.skipChildren();
            if (parser.nextToken() != null) {
                return "not JSON: more than one value (at offset " + parser.currentTokenLocation().getByteOffset() + ")";
            }
            return null;
        } catch (JsonProcessingException e) {
            return "not JSON: " + e.getOriginalMessage() + " (at offset " + e.getLocation().getByteOffset() + ")";
        } catch (IOException e) {
            return "not JSON: " + e.getMessage();
        }
    }
}
