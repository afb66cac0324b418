package org.kafscale.proxy.discovery.etcd;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.code_intelligence.jazzer.api.FuzzedDataProvider;
import com.code_intelligence.jazzer.junit.FuzzTest;
import java.io.IOException;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.kafscale.proxy.core.topology.BrokerEndpoint;
import org.kafscale.proxy.testkit.ThreadAllocation;

/**
 * Coverage-guided fuzzing of what the proxy reads from KafScale's etcd keys: the metadata
 * snapshot's JSON and the partition and group lease keys and values.
 *
 * <p>Documented outcomes. A snapshot either parses or {@link KafscaleSnapshot#parse} throws (an
 * {@link IOException} or a {@link RuntimeException}: {@link EtcdTopology} keeps its last good
 * snapshot for both); one that parses always becomes a topology, whichever partitions the leases
 * give owners, since nothing after the parse is guarded. A lease key or value that does not parse
 * is empty, never an exception. Allocation stays in proportion to the bytes read.
 */
class EtcdValuesFuzzTest {
    private static final List<BrokerEndpoint> STATIC_BROKER = List.of(new BrokerEndpoint(0, "localhost", 9092, null));
    private static final int ALLOCATION_PER_BYTE = 512;
    private static final int ALLOCATION_BASE_BYTES = 1 << 20;

    @FuzzTest
    void aSnapshotThatParsesBecomesATopology(byte[] json) {
        ThreadAllocation.assertAtMost(ALLOCATION_BASE_BYTES + (long) ALLOCATION_PER_BYTE * json.length,
                "snapshot of " + json.length + " bytes", () -> parseAndLayOut(json));
    }

    @FuzzTest
    void leaseKeysAndValuesParseOrAreIgnored(FuzzedDataProvider data) {
        String key = data.consumeString(300);
        String value = data.consumeRemainingAsString();
        String partitionKey = data.consumeBoolean() ? key : KafscaleKeys.PARTITION_LEASES + key;
        KafscaleKeys.partitionLease(partitionKey).ifPresent(lease -> {
            assertFalse(lease.topic().isEmpty(), "a partition lease names a topic");
            assertTrue(lease.partition() >= 0, "a partition lease names a partition >= 0");
        });
        KafscaleKeys.groupLease(KafscaleKeys.GROUP_LEASES + key)
                .ifPresent(group -> assertFalse(group.isEmpty(), "a group lease names a group"));
        KafscaleKeys.brokerId(value);
    }

    /** What {@link EtcdTopology} does with the snapshot key's value, every partition given an owner. */
    private static void parseAndLayOut(byte[] json) {
        KafscaleSnapshot document;
        try {
            document = KafscaleSnapshot.parse(json);
        } catch (IOException | RuntimeException documented) {
            return;
        }
        List<BrokerEndpoint> brokers = document.brokers().isEmpty() ? STATIC_BROKER : document.brokers();
        Map<String, Map<Integer, Integer>> owners = new HashMap<>();
        for (KafscaleSnapshot.Topic topic : document.topics()) {
            for (var partition : topic.partitions()) {
                if (partition != null) {
                    owners.computeIfAbsent(topic.name(), t -> new HashMap<>()).put(partition.partition(), brokers.get(0).id());
                }
            }
        }
        document.topology(brokers, owners);
    }
}
