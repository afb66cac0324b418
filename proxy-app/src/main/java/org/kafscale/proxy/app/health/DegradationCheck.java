package org.kafscale.proxy.app.health;

import java.util.List;

/**
 * Something the proxy depends on that can fail while it still serves: each failing part is one
 * reason of the {@code degraded} state. Cheap and non-blocking: it reads state kept by others.
 */
@FunctionalInterface
public interface DegradationCheck {
    /** What is failing now; empty when nothing is. */
    List<HealthReason> failing();
}
