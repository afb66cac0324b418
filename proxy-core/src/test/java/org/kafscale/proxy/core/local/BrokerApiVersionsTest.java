package org.kafscale.proxy.core.local;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Optional;
import org.apache.kafka.common.message.ApiVersionsResponseData;
import org.apache.kafka.common.message.ApiVersionsResponseData.ApiVersion;
import org.apache.kafka.common.protocol.ApiKeys;
import org.junit.jupiter.api.Test;

class BrokerApiVersionsTest {

    private final BrokerApiVersions versions = new BrokerApiVersions();

    @Test
    void commonRangeIsTheIntersectionOfEveryBrokersRange() {
        // Given two brokers with overlapping Fetch ranges
        versions.update(1, report(range(ApiKeys.FETCH, 4, 17)));
        versions.update(2, report(range(ApiKeys.FETCH, 0, 12)));

        // When the common range is asked for
        Optional<ApiVersion> common = versions.common(ApiKeys.FETCH.id);

        // Then it is the overlap
        assertEquals(Optional.of(range(ApiKeys.FETCH, 4, 12)), common);
    }

    @Test
    void apiOneBrokerLacksIsNotCommon() {
        // Given one broker with JoinGroup and one without
        versions.update(1, report(range(ApiKeys.FETCH, 4, 17), range(ApiKeys.JOIN_GROUP, 0, 9)));
        versions.update(2, report(range(ApiKeys.FETCH, 4, 17)));

        // When the common range of JoinGroup is asked for
        Optional<ApiVersion> common = versions.common(ApiKeys.JOIN_GROUP.id);

        // Then there is none
        assertEquals(Optional.empty(), common);
    }

    @Test
    void rangesThatDoNotOverlapAreNotCommon() {
        // Given two brokers whose Produce ranges do not overlap
        versions.update(1, report(range(ApiKeys.PRODUCE, 3, 7)));
        versions.update(2, report(range(ApiKeys.PRODUCE, 9, 13)));

        // When the common range is asked for
        Optional<ApiVersion> common = versions.common(ApiKeys.PRODUCE.id);

        // Then there is none
        assertEquals(Optional.empty(), common);
    }

    @Test
    void aNewFinalizedEpochAloneIsNoNewsButANewLevelIs() {
        // Given broker 1 reported transaction.version 1 at epoch 10
        ApiVersionsResponseData first = report(range(ApiKeys.FETCH, 4, 17)).setFinalizedFeaturesEpoch(10);
        first.finalizedFeatures().add(new ApiVersionsResponseData.FinalizedFeatureKey().setName("transaction.version")
                .setMinVersionLevel((short) 1).setMaxVersionLevel((short) 1));
        versions.update(1, first);

        // When the next probe sees only a later epoch, or a new level
        ApiVersionsResponseData laterEpoch = first.duplicate().setFinalizedFeaturesEpoch(99);
        ApiVersionsResponseData newLevel = laterEpoch.duplicate();
        newLevel.finalizedFeatures().find("transaction.version").setMinVersionLevel((short) 2).setMaxVersionLevel((short) 2);

        // Then only the new level differs
        assertFalse(versions.differs(1, laterEpoch));
        assertTrue(versions.differs(1, newLevel));
        assertTrue(versions.differs(2, first), "a broker not yet reported");
    }

    @Test
    void retainOnlyForgetsBrokersThatLeft() {
        // Given a narrow broker 2 next to a wide broker 1
        versions.update(1, report(range(ApiKeys.FETCH, 4, 17)));
        versions.update(2, report(range(ApiKeys.FETCH, 4, 12)));

        // When broker 2 leaves the cluster
        versions.retainOnly(List.of(1));

        // Then it is forgotten and no longer narrows the common range
        assertFalse(versions.knows(2));
        assertTrue(versions.knows(1));
        assertEquals(Optional.of(range(ApiKeys.FETCH, 4, 17)), versions.common(ApiKeys.FETCH.id));
    }

    @Test
    void retainOnlyWithNoneOfTheReportingBrokersLeavesNothingReported() {
        // Given one reporting broker
        versions.update(1, report(range(ApiKeys.FETCH, 4, 17)));

        // When the cluster no longer lists it
        versions.retainOnly(List.of(7));

        // Then no broker has reported and nothing is common
        assertFalse(versions.anyReported());
        assertEquals(Optional.empty(), versions.common(ApiKeys.FETCH.id));
    }

    @Test
    void aBrokersNewReportReplacesItsEarlierOne() {
        // Given a broker that reported Fetch up to v12
        versions.update(1, report(range(ApiKeys.FETCH, 4, 12)));

        // When it reports again after an upgrade
        versions.update(1, report(range(ApiKeys.FETCH, 4, 17)));

        // Then only the new report counts
        assertEquals(Optional.of(range(ApiKeys.FETCH, 4, 17)), versions.common(ApiKeys.FETCH.id));
    }

    @Test
    void beforeAnyReportNothingIsKnownOrCommon() {
        // Given no broker has reported

        // When the state is asked for
        boolean anyReported = versions.anyReported();

        // Then nothing is reported, known or common
        assertFalse(anyReported);
        assertFalse(versions.knows(1));
        assertEquals(Optional.empty(), versions.common(ApiKeys.FETCH.id));
    }

    static ApiVersion range(ApiKeys api, int min, int max) {
        return new ApiVersion().setApiKey(api.id).setMinVersion((short) min).setMaxVersion((short) max);
    }

    static ApiVersionsResponseData report(ApiVersion... ranges) {
        ApiVersionsResponseData data = new ApiVersionsResponseData();
        for (ApiVersion range : ranges) {
            data.apiKeys().add(range.duplicate());
        }
        return data;
    }
}
