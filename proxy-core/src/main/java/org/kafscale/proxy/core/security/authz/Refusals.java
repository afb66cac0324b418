package org.kafscale.proxy.core.security.authz;

import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.function.Function;
import org.apache.kafka.common.protocol.Errors;

/** Takes the refused items out of a request's list, keeping each with the error its answer gets. */
final class Refusals {
    private Refusals() {
    }

    /**
     * Removes from {@code items} (the decoded request's own list, in place) each item {@code check}
     * gives an error for, and returns those, in request order, with their errors.
     */
    static <T> Map<T, Errors> takeOut(Iterable<T> items, Function<T, Errors> check) {
        Map<T, Errors> refused = new LinkedHashMap<>();
        for (Iterator<T> it = items.iterator(); it.hasNext(); ) {
            T item = it.next();
            Errors error = check.apply(item);
            if (error != Errors.NONE) {
                refused.put(item, error);
                it.remove();
            }
        }
        return refused;
    }

    /** {@code error} when {@code allowed} is false, else NONE. */
    static Errors unless(boolean allowed, Errors error) {
        return allowed ? Errors.NONE : error;
    }
}
