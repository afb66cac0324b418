package org.kafscale.proxy.discovery.etcd;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Optional;
import org.junit.jupiter.api.Test;

class KafscaleKeysTest {

    @Test
    void partitionLeaseSplitsAtTheLastSlashSoTopicsMayContainSlashes() {
        assertEquals(Optional.of(new KafscaleKeys.PartitionKey("orders", 7)),
                KafscaleKeys.partitionLease("/kafscale/partition-leases/orders/7"));
        assertEquals(Optional.of(new KafscaleKeys.PartitionKey("a/b", 0)),
                KafscaleKeys.partitionLease("/kafscale/partition-leases/a/b/0"));
    }

    @Test
    void partitionLeaseKeysThatDoNotParseAreRejected() {
        assertTrue(KafscaleKeys.partitionLease("/kafscale/partition-leases/orders/x").isEmpty());
        assertTrue(KafscaleKeys.partitionLease("/kafscale/partition-leases/orders/").isEmpty());
        assertTrue(KafscaleKeys.partitionLease("/kafscale/partition-leases/7").isEmpty());
        assertTrue(KafscaleKeys.partitionLease("/kafscale/partition-leases/orders/-1").isEmpty());
    }

    @Test
    void groupLeaseNeedsANonEmptyGroup() {
        assertEquals(Optional.of("payments"), KafscaleKeys.groupLease("/kafscale/group-leases/payments"));
        assertTrue(KafscaleKeys.groupLease("/kafscale/group-leases/").isEmpty());
    }

    @Test
    void leaseValuesAreDecimalBrokerIds() {
        assertEquals(Optional.of(2), KafscaleKeys.brokerId(" 2\n"));
        assertTrue(KafscaleKeys.brokerId("broker-2").isEmpty());
    }
}
