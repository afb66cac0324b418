package org.kafscale.proxy.core.security.authz;

import java.util.function.Consumer;
import java.util.function.Supplier;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.protocol.Errors;

/** What authorization decided for one request. */
public sealed interface Verdict {
    Verdict ALLOW = new Allow();

    /** Every resource is allowed: the request goes on as the client sent it. */
    record Allow() implements Verdict {
    }

    /** Nothing may go on: Kafka's error answer for the whole request ({@code getErrorResponse}). */
    record Refuse(Errors error) implements Verdict {
    }

    /** Nothing goes on; this answer, made here, goes back. */
    record Answer(ApiMessage answer) implements Verdict {
    }

    /** Nothing goes on and no answer exists (an acks=0 Produce): the connection closes, as Kafka's does. */
    record Close(String reason) implements Verdict {
    }

    /**
     * The request goes on, narrowed to what is allowed ({@code narrowed}; null when the client's own
     * request goes on), and its answer is edited before it goes back: the refused parts are added
     * with their errors, or what the client may not see is taken out.
     */
    record Edit(ApiMessage narrowed, Consumer<ApiMessage> edit) implements Verdict {
    }

    /**
     * Some parts refused: with nothing left, the refused parts alone make the answer (on {@code
     * empty}); otherwise the narrowed request goes on and the refused parts join its answer.
     */
    static <S extends ApiMessage> Verdict partly(boolean nothingLeft, ApiMessage narrowed, Supplier<S> empty,
                                                Consumer<S> addRefused) {
        if (nothingLeft) {
            S answer = empty.get();
            addRefused.accept(answer);
            return new Answer(answer);
        }
        return edit(narrowed, addRefused);
    }

    /** The answer is edited as it goes back; the request goes on unchanged. */
    static <S extends ApiMessage> Verdict editAnswer(Consumer<S> edit) {
        return edit(null, edit);
    }

    /** {@code narrowed} goes on (null: the client's request) and its answer is edited as it goes back. */
    @SuppressWarnings("unchecked")
    static <S extends ApiMessage> Verdict edit(ApiMessage narrowed, Consumer<S> edit) {
        return new Edit(narrowed, answer -> edit.accept((S) answer));
    }
}
