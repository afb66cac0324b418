package org.kafscale.proxy.routing.engine;

import io.netty.channel.EventLoop;
import io.netty.util.concurrent.Future;
import java.util.List;

/**
 * When a {@link PartitionExchange} answers its client: by default once every part is in; an API
 * that answers with what it has before that (Fetch: a deadline, a short linger after records) and
 * keeps the parts still out supplies its own. The exchange only says when parts settle and hands
 * over what is still out when it answers; every timer is the policy's.
 *
 * <p>Called on the connection's event loop, like the exchange.
 *
 * @param <R> the response data
 */
public interface CompletionPolicy<R> {

    /**
     * The exchange starts.
     *
     * @param answered done once the client's reply is (a timer set here should stop with it)
     * @param answerNow answers the client at once with what is settled, the rest as unanswered;
     *                  does nothing once the reply is done
     */
    default void started(EventLoop loop, Future<?> answered, Runnable answerNow) {
    }

    /**
     * A part settled and others are still in flight (none waiting for a retry): whether to answer
     * now, which the policy does through {@code answerNow}, or to keep waiting for them.
     */
    default void stillInFlight(List<Part<R>> inFlight) {
    }

    /**
     * A part still in flight when the client was answered: its answer, when it comes, is the
     * policy's from now on (its frame to release or keep); the exchange no longer looks at it.
     */
    default void leftInFlight(Part<R> part) {
        part.answer().addListener(f -> {
            if (f.isSuccess()) {
                part.answer().getNow().frame().release();
            }
        });
    }

    /** Answers once every part is in. */
    static <R> CompletionPolicy<R> everyPart() {
        return new CompletionPolicy<>() {
        };
    }
}
