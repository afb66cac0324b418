package org.kafscale.proxy.app;

import java.util.ArrayDeque;
import java.util.Deque;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What a running proxy owns, closed in the reverse of the order it was taken: what was started
 * last depends on what was started before it, so it stops first. A start-up that fails half-way
 * closes what it had already started, instead of leaving its threads and ports behind.
 */
final class OwnedResources implements AutoCloseable {
    private static final Logger LOGGER = LoggerFactory.getLogger(OwnedResources.class);

    private final Deque<Owned> owned = new ArrayDeque<>();

    /** Takes {@code resource}, to be closed before everything taken earlier; returns it. */
    <T extends AutoCloseable> T own(String name, T resource) {
        owned.push(new Owned(name, resource));
        return resource;
    }

    /**
     * Closes everything, the last taken first. One part's failure is logged and the rest still
     * close: a stop that leaves threads behind because an earlier part threw is worse than a line.
     */
    @Override
    public void close() {
        while (!owned.isEmpty()) {
            Owned next = owned.pop();
            try {
                next.resource().close();
            } catch (Exception e) {
                LOGGER.warn("Closing {} failed: {}", next.name(), e.toString());
            }
        }
    }

    private record Owned(String name, AutoCloseable resource) {
    }
}
