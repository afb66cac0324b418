package org.kafscale.proxy.app.health;

import java.time.Instant;

/**
 * One reason behind a health state.
 *
 * @param reason a stable code, e.g. {@code broker_unreachable} (docs/operations.md lists what to do for each)
 * @param detail what exactly, for the operator
 * @param since when it began
 */
public record HealthReason(String reason, String detail, Instant since) {
}
