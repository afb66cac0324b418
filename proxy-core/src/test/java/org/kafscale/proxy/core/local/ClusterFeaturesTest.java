package org.kafscale.proxy.core.local;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.List;
import java.util.Map;
import org.apache.kafka.common.message.ApiVersionsResponseData;
import org.apache.kafka.common.message.ApiVersionsResponseData.FinalizedFeatureKey;
import org.apache.kafka.common.message.ApiVersionsResponseData.SupportedFeatureKey;
import org.junit.jupiter.api.Test;

class ClusterFeaturesTest {

    @Test
    void supportedFeatureIsTheOverlapOfEveryBrokersRange() {
        // Given two brokers supporting transaction.version 0-2 and 1-3
        ApiVersionsResponseData a = report(-1, Map.of("transaction.version", range(0, 2)), Map.of());
        ApiVersionsResponseData b = report(-1, Map.of("transaction.version", range(1, 3)), Map.of());

        // When intersected
        ClusterFeatures features = ClusterFeatures.of(List.of(a, b));

        // Then 1-2
        assertEquals(range(1, 2).setName("transaction.version"), features.supported().get("transaction.version"));
    }

    @Test
    void supportedFeatureOneBrokerLacksOrWhoseRangesDoNotOverlapIsDropped() {
        // Given group.version on one broker only, and share.version ranges that do not overlap
        ApiVersionsResponseData a = report(-1, Map.of("group.version", range(0, 1), "share.version", range(0, 0)), Map.of());
        ApiVersionsResponseData b = report(-1, Map.of("share.version", range(1, 1)), Map.of());

        // When intersected
        ClusterFeatures features = ClusterFeatures.of(List.of(a, b));

        // Then neither is supported
        assertEquals(Map.of(), features.supported());
    }

    @Test
    void brokersThatAgreeAdvertiseTheirFinalizedLevelsAndEpoch() {
        // Given three brokers with the same finalized features at epoch 12
        ApiVersionsResponseData report = report(12, Map.of(), Map.of("transaction.version", 2, "group.version", 1));

        // When intersected
        ClusterFeatures features = ClusterFeatures.of(List.of(report, report.duplicate(), report.duplicate()));

        // Then those levels and that epoch
        assertEquals(Map.of("transaction.version", finalized("transaction.version", 2),
                "group.version", finalized("group.version", 1)), features.finalized());
        assertEquals(12, features.epoch());
    }

    @Test
    void duringAnUpgradeTheLevelAndEpochEveryBrokerHasAppliedAreAdvertised() {
        // Given broker 1 has applied transaction.version 2 (epoch 15), broker 2 still has level 1 (epoch 14)
        ApiVersionsResponseData upgraded = report(15, Map.of(), Map.of("transaction.version", 2, "group.version", 1));
        ApiVersionsResponseData behind = report(14, Map.of(), Map.of("transaction.version", 1, "group.version", 1));

        // When intersected
        ClusterFeatures features = ClusterFeatures.of(List.of(upgraded, behind));

        // Then the lower level and the lower epoch: the state every broker has reached
        assertEquals(finalized("transaction.version", 1), features.finalized().get("transaction.version"));
        assertEquals(14, features.epoch());
    }

    @Test
    void featureFinalizedOnOneBrokerOnlyIsNotFinalized() {
        // Given share.version finalized on broker 1 only
        ApiVersionsResponseData a = report(3, Map.of(), Map.of("share.version", 1));
        ApiVersionsResponseData b = report(3, Map.of(), Map.of());

        // When intersected
        ClusterFeatures features = ClusterFeatures.of(List.of(a, b));

        // Then it is not finalized
        assertEquals(Map.of(), features.finalized());
    }

    @Test
    void noReportMeansNoFeaturesAndNoEpoch() {
        assertEquals(ClusterFeatures.NONE, ClusterFeatures.of(List.of()));
        assertEquals(-1, ClusterFeatures.NONE.epoch());
    }

    static ApiVersionsResponseData report(long epoch, Map<String, SupportedFeatureKey> supported,
                                          Map<String, Integer> finalized) {
        ApiVersionsResponseData data = new ApiVersionsResponseData().setFinalizedFeaturesEpoch(epoch);
        supported.forEach((name, key) -> data.supportedFeatures().add(key.duplicate().setName(name)));
        finalized.forEach((name, level) -> data.finalizedFeatures().add(finalized(name, level)));
        return data;
    }

    static SupportedFeatureKey range(int min, int max) {
        return new SupportedFeatureKey().setMinVersion((short) min).setMaxVersion((short) max);
    }

    static FinalizedFeatureKey finalized(String name, int level) {
        return new FinalizedFeatureKey().setName(name).setMinVersionLevel((short) level).setMaxVersionLevel((short) level);
    }
}
