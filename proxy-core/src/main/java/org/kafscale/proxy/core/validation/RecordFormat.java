package org.kafscale.proxy.core.validation;

import java.nio.ByteBuffer;
import java.util.concurrent.CompletionStage;

/**
 * One format a record's key or value must have (well-formed JSON, a JSON Schema, an Avro schema,
 * ...). Called on a connection's event loop for every record of a topic a rule covers: it must
 * not block. A format that needs something it does not have yet (a schema from a registry) says
 * so with {@link Check.Pending}; the record is checked again once that is done.
 */
public interface RecordFormat {

    /**
     * Whether {@code bytes} (a view of the record's key or value; read it without moving the
     * caller's position: the buffer is the caller's) has this format.
     */
    Check check(ByteBuffer bytes);

    /** What {@link #check} found. */
    sealed interface Check {
        Check VALID = new Valid();

        static Check invalid(String reason) {
            return new Invalid(reason);
        }

        record Valid() implements Check {
        }

        /** @param reason why, for the producer's callback: says what is wrong, not the bytes */
        record Invalid(String reason) implements Check {
        }

        /** Not decided yet: check again once {@code ready} completes (from any thread, successfully or not). */
        record Pending(CompletionStage<?> ready) implements Check {
        }
    }
}
