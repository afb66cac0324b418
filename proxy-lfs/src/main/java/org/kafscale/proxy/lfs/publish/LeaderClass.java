package org.kafscale.proxy.lfs.publish;

import java.util.Set;
import org.apache.kafka.common.protocol.Errors;

/**
 * The produce errors that mean "this broker does not lead the partition (now)": the record was
 * not written, so the produce may go to the current owner, and the object may be deleted when no
 * broker takes it (spec §4.11).
 */
final class LeaderClass {
    private static final Set<Errors> ERRORS = Set.of(Errors.NOT_LEADER_OR_FOLLOWER, Errors.LEADER_NOT_AVAILABLE,
            Errors.FENCED_LEADER_EPOCH, Errors.UNKNOWN_LEADER_EPOCH);

    private LeaderClass() {
    }

    static boolean contains(Errors error) {
        return ERRORS.contains(error);
    }
}
