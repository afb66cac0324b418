package org.kafscale.proxy.core.topology;

import java.util.List;

/**
 * Where one partition lives.
 *
 * @param partition the partition index
 * @param owner the broker id that serves it (leader, or lease owner), or {@link #NO_OWNER}
 * @param leaderEpoch the leader epoch, or -1 when the source does not know it
 * @param replicas replica broker ids as the source reports them
 * @param isr in-sync replica broker ids
 * @param offlineReplicas offline replica broker ids
 */
public record PartitionLayout(int partition, int owner, int leaderEpoch, List<Integer> replicas,
                              List<Integer> isr, List<Integer> offlineReplicas) {
    public static final int NO_OWNER = -1;

    public PartitionLayout {
        replicas = List.copyOf(replicas);
        isr = List.copyOf(isr);
        offlineReplicas = List.copyOf(offlineReplicas);
    }

    public boolean hasOwner() {
        return owner != NO_OWNER;
    }
}
