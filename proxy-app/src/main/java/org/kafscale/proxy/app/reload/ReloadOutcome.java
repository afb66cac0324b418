package org.kafscale.proxy.app.reload;

import java.time.Instant;
import java.util.List;
import java.util.Optional;

/**
 * What one reload did, as {@code POST /admin/reload} answers it and the log says it.
 *
 * @param trigger what asked for it ({@code POST /admin/reload}, a changed file)
 * @param applied what it applied now
 * @param atNextStart what changed and applies only at the next start (it is named, not applied)
 * @param error why it was refused, naming the setting or the path in the file
 */
public record ReloadOutcome(Result result, String trigger, Instant at, List<String> applied, List<String> atNextStart,
                            Optional<String> error) {

    public enum Result {
        /** Something changed and is in force now. */
        APPLIED,
        /** Nothing a reload applies changed (what only a restart applies may have). */
        UNCHANGED,
        /** The new configuration is invalid: nothing changed, the running one stays. */
        REFUSED;

        /** The metric's label. */
        public String label() {
            return name().toLowerCase(java.util.Locale.ROOT);
        }
    }

    static ReloadOutcome refused(String trigger, String error) {
        return new ReloadOutcome(Result.REFUSED, trigger, Instant.now(), List.of(), List.of(), Optional.of(error));
    }
}
