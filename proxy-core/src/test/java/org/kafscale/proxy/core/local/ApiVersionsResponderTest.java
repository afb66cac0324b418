package org.kafscale.proxy.core.local;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.kafscale.proxy.core.local.BrokerApiVersionsTest.range;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import org.apache.kafka.common.message.ApiVersionsRequestData;
import org.apache.kafka.common.message.ApiVersionsResponseData;
import org.apache.kafka.common.message.ApiVersionsResponseData.ApiVersion;
import org.apache.kafka.common.message.ApiVersionsResponseData.FinalizedFeatureKey;
import org.apache.kafka.common.message.ApiVersionsResponseData.SupportedFeatureKey;
import org.apache.kafka.common.message.RequestHeaderData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.requests.ApiVersionsRequest;
import org.apache.kafka.common.requests.ApiVersionsResponse;
import org.apache.kafka.common.requests.RequestUtils;
import org.junit.jupiter.api.Test;
import org.kafscale.proxy.core.codec.KafkaWire;
import org.kafscale.proxy.core.codec.RequestFrame;
import org.kafscale.proxy.core.apis.ApiCatalog;
import org.kafscale.proxy.core.security.sasl.SaslAuthenticator;
import org.kafscale.proxy.core.testing.TestApiCatalog;

class ApiVersionsResponderTest {
    private static final ApiCatalog APIS = TestApiCatalog.catalog();

    private static final short VERSION = 3;

    private final BrokerApiVersions brokers = new BrokerApiVersions();
    private final ApiVersionsResponder responder = new ApiVersionsResponder(APIS, brokers);

    @Test
    void beforeAnyBrokerReportsEveryProxiedApiIsAdvertisedAtKafkaClientsStableRange() {
        // Given no broker has reported its versions

        // When a client asks
        ApiVersionsResponseData answer = ask();

        // Then every API the proxy serves is advertised at kafka-clients' own stable range, and nothing else
        Map<Short, ApiVersion> expected = new TreeMap<>();
        for (ApiKeys api : APIS.all().keySet()) {
            if (APIS.servedOn(api, false)) {
                expected.put(api.id, range(api, api.oldestVersion(), api.latestVersion(false)));
            }
        }
        assertEquals(expected, byKey(answer));
        assertEquals(Errors.NONE.code(), answer.errorCode());
    }

    @Test
    void diskApisAreAdvertisedOnlyOnAConnectionThatAddressesABroker() {
        // Given every broker reports every API
        brokers.update(1, everyProxiedApiExcept(Set.of(), Map.of()));

        // When a client asks on the bootstrap port, and on a broker's own port
        Map<Short, ApiVersion> bootstrap = byKey(ask(VERSION, false));
        Map<Short, ApiVersion> brokerPort = byKey(ask(VERSION, true));

        // Then DescribeLogDirs and AlterReplicaLogDirs only where the connection names one broker
        assertFalse(bootstrap.containsKey(ApiKeys.DESCRIBE_LOG_DIRS.id));
        assertFalse(bootstrap.containsKey(ApiKeys.ALTER_REPLICA_LOG_DIRS.id));
        assertTrue(brokerPort.containsKey(ApiKeys.DESCRIBE_LOG_DIRS.id));
        assertTrue(brokerPort.containsKey(ApiKeys.ALTER_REPLICA_LOG_DIRS.id));
        Set<Short> rest = new TreeSet<>(brokerPort.keySet());
        rest.removeAll(Set.of(ApiKeys.DESCRIBE_LOG_DIRS.id, ApiKeys.ALTER_REPLICA_LOG_DIRS.id));
        assertEquals(bootstrap.keySet(), rest, "otherwise the same keys");
    }

    @Test
    void forwardedApiIsAdvertisedAtTheIntersectionOfKafkaClientsAndEveryBroker() {
        // Given brokers that each narrow Fetch differently
        brokers.update(1, everyProxiedApiExcept(Set.of(), Map.of(ApiKeys.FETCH, range(ApiKeys.FETCH, 0, 16))));
        brokers.update(2, everyProxiedApiExcept(Set.of(), Map.of(ApiKeys.FETCH, range(ApiKeys.FETCH, 6, 20))));

        // When a client asks
        ApiVersionsResponseData answer = ask();

        // Then Fetch is advertised from the highest minimum to the lowest maximum of all three
        short kafkaClientsMin = ApiKeys.FETCH.oldestVersion();
        assertEquals(range(ApiKeys.FETCH, Math.max(6, kafkaClientsMin), 16), answer.apiKeys().find(ApiKeys.FETCH.id));
    }

    @Test
    void brokerRangeWiderThanKafkaClientsIsCutToKafkaClientsStableRange() {
        // Given a broker that claims Produce versions beyond what kafka-clients can encode
        brokers.update(1, everyProxiedApiExcept(Set.of(), Map.of(ApiKeys.PRODUCE, range(ApiKeys.PRODUCE, 0, 99))));

        // When a client asks
        ApiVersionsResponseData answer = ask();

        // Then Produce is advertised at kafka-clients' stable range only
        assertEquals(range(ApiKeys.PRODUCE, ApiKeys.PRODUCE.oldestVersion(), ApiKeys.PRODUCE.latestVersion(false)),
                answer.apiKeys().find(ApiKeys.PRODUCE.id));
    }

    @Test
    void apiMissingAtOneBrokerIsNotAdvertised() {
        // Given one broker without JoinGroup
        brokers.update(1, everyProxiedApiExcept(Set.of(), Map.of()));
        brokers.update(2, everyProxiedApiExcept(Set.of(ApiKeys.JOIN_GROUP), Map.of()));

        // When a client asks
        ApiVersionsResponseData answer = ask();

        // Then JoinGroup is not advertised, while other forwarded APIs are
        assertNull(answer.apiKeys().find(ApiKeys.JOIN_GROUP.id));
        assertEquals(range(ApiKeys.SYNC_GROUP, ApiKeys.SYNC_GROUP.oldestVersion(), ApiKeys.SYNC_GROUP.latestVersion(false)),
                answer.apiKeys().find(ApiKeys.SYNC_GROUP.id));
    }

    @Test
    void findCoordinatorFollowsTheBrokersRangeThoughTheProxyAnswersIt() {
        // Given brokers that only know FindCoordinator up to v3 (no batched lookups)
        brokers.update(1, everyProxiedApiExcept(Set.of(),
                Map.of(ApiKeys.FIND_COORDINATOR, range(ApiKeys.FIND_COORDINATOR, 0, 3))));

        // When a client asks
        ApiVersionsResponseData answer = ask();

        // Then FindCoordinator is advertised up to v3
        assertEquals(range(ApiKeys.FIND_COORDINATOR, 0, 3), answer.apiKeys().find(ApiKeys.FIND_COORDINATOR.id));
    }

    @Test
    void metadataAnsweredByTheProxyKeepsKafkaClientsRangeWhateverBrokersReport() {
        // Given brokers that report an old Metadata range
        brokers.update(1, everyProxiedApiExcept(Set.of(), Map.of(ApiKeys.METADATA, range(ApiKeys.METADATA, 0, 8))));

        // When a client asks
        ApiVersionsResponseData answer = ask();

        // Then Metadata is advertised at kafka-clients' stable range
        assertEquals(range(ApiKeys.METADATA, ApiKeys.METADATA.oldestVersion(), ApiKeys.METADATA.latestVersion(false)),
                answer.apiKeys().find(ApiKeys.METADATA.id));
    }

    @Test
    void requestAboveTheNewestVersionGetsTheKip511AnswerAtVersionZero() {
        // Given ApiVersions v99 (newer than kafka-clients knows) with a v2 header, as a future client sends it
        RequestHeaderData header = new RequestHeaderData().setRequestApiKey(ApiKeys.API_VERSIONS.id)
                .setRequestApiVersion((short) 99).setCorrelationId(17).setClientId("future-client");
        ApiVersionsRequestData body = new ApiVersionsRequestData().setClientSoftwareName("future").setClientSoftwareVersion("9.9");
        short newest = ApiKeys.API_VERSIONS.latestVersion();
        RequestFrame request = KafkaWire.requestFrame(Unpooled.wrappedBuffer(
                RequestUtils.serialize(header, (short) 2, body, newest)));

        // When the proxy answers
        ByteBuf answer;
        try {
            answer = responder.answer(request);
        } finally {
            request.frame().release();
        }

        // Then the answer parses at v0: UNSUPPORTED_VERSION and the ApiVersions range, for correlation id 17
        KafkaWire.Response parsed = KafkaWire.parseResponseAndRelease(answer, ApiKeys.API_VERSIONS, (short) 0);
        ApiVersionsResponseData data = parsed.as(ApiVersionsResponse.class).data();
        assertEquals(17, parsed.correlationId());
        assertEquals(Errors.UNSUPPORTED_VERSION.code(), data.errorCode());
        assertEquals(range(ApiKeys.API_VERSIONS, ApiKeys.API_VERSIONS.oldestVersion(), ApiKeys.API_VERSIONS.latestVersion(false)),
                data.apiKeys().find(ApiKeys.API_VERSIONS.id));
    }

    @Test
    void featuresCommonToEveryBrokerAreAdvertisedWithTheirEpoch() {
        // Given two brokers that agree on transaction.version 2 but differ in what group.version they support
        ApiVersionsResponseData one = everyProxiedApiExcept(Set.of(), Map.of());
        ApiVersionsResponseData two = one.duplicate();
        one.setFinalizedFeaturesEpoch(20);
        two.setFinalizedFeaturesEpoch(20);
        for (ApiVersionsResponseData report : List.of(one, two)) {
            report.finalizedFeatures().add(new FinalizedFeatureKey().setName("transaction.version")
                    .setMinVersionLevel((short) 2).setMaxVersionLevel((short) 2));
            report.supportedFeatures().add(new SupportedFeatureKey().setName("transaction.version")
                    .setMinVersion((short) 0).setMaxVersion((short) 2));
        }
        one.supportedFeatures().add(new SupportedFeatureKey().setName("group.version")
                .setMinVersion((short) 0).setMaxVersion((short) 1));
        brokers.update(1, one);
        brokers.update(2, two);

        // When a client asks (v4: features whose range starts at 0 are shown from v4 on)
        ApiVersionsResponseData answer = ask((short) 4);

        // Then what both share: transaction.version supported 0-2, finalized at 2, epoch 20; no group.version
        assertEquals(List.of("transaction.version"), answer.supportedFeatures().stream().map(SupportedFeatureKey::name).toList());
        assertEquals(2, answer.supportedFeatures().find("transaction.version").maxVersion());
        assertEquals(2, answer.finalizedFeatures().find("transaction.version").maxVersionLevel());
        assertEquals(20, answer.finalizedFeaturesEpoch());
    }

    @Test
    void belowVersionFourFeaturesWhoseRangeStartsAtZeroAreLeftOutAsBrokersDo() {
        // Given brokers supporting metadata.version 7-31 and group.version 0-1
        ApiVersionsResponseData report = everyProxiedApiExcept(Set.of(), Map.of());
        report.supportedFeatures().add(new SupportedFeatureKey().setName("metadata.version")
                .setMinVersion((short) 7).setMaxVersion((short) 31));
        report.supportedFeatures().add(new SupportedFeatureKey().setName("group.version")
                .setMinVersion((short) 0).setMaxVersion((short) 1));
        brokers.update(1, report);

        // When a v3 client asks (KIP-1022: it cannot read a range starting at 0)
        ApiVersionsResponseData answer = ask((short) 3);

        // Then group.version is left out, metadata.version shown
        assertEquals(List.of("metadata.version"), answer.supportedFeatures().stream().map(SupportedFeatureKey::name).toList());
    }

    @Test
    void beforeAnyBrokerReportsNoFeatureIsAdvertised() {
        // Given no broker has reported

        // When a client asks
        ApiVersionsResponseData answer = ask();

        // Then no feature is supported or finalized, and the epoch is Kafka's "none"
        assertTrue(answer.supportedFeatures().isEmpty());
        assertTrue(answer.finalizedFeatures().isEmpty());
        assertEquals(-1, answer.finalizedFeaturesEpoch());
    }

    /** Asks the responder at {@link #VERSION} and parses the answer with kafka-clients. */
    @Test
    void saslApisOfTheListenerAreAdvertisedInKeyOrderBesideTheProxiedOnes() {
        // Given a SASL listener's responder
        List<ApiVersion> sasl = SaslAuthenticator.advertisedApis();
        ApiVersionsResponder withSasl = new ApiVersionsResponder(APIS, brokers, sasl);

        // When a client asks
        ApiVersionsResponseData answer = ask(withSasl, VERSION, false);

        // Then SaslHandshake and SaslAuthenticate are listed at Kafka's ranges, the rest as without SASL
        Map<Short, ApiVersion> keys = new TreeMap<>(byKey(answer));
        assertEquals(range(ApiKeys.SASL_HANDSHAKE, ApiKeys.SASL_HANDSHAKE.oldestVersion(),
                ApiKeys.SASL_HANDSHAKE.latestVersion()), keys.remove(ApiKeys.SASL_HANDSHAKE.id));
        assertEquals(range(ApiKeys.SASL_AUTHENTICATE, ApiKeys.SASL_AUTHENTICATE.oldestVersion(),
                ApiKeys.SASL_AUTHENTICATE.latestVersion()), keys.remove(ApiKeys.SASL_AUTHENTICATE.id));
        assertEquals(byKey(ask()), keys);
        List<Short> order = answer.apiKeys().stream().map(ApiVersion::apiKey).toList();
        assertEquals(order.stream().sorted().toList(), order, "in key order");
    }

    private ApiVersionsResponseData ask() {
        return ask(VERSION);
    }

    private ApiVersionsResponseData ask(short version) {
        return ask(version, false);
    }

    private ApiVersionsResponseData ask(short version, boolean addressesBroker) {
        return ask(responder, version, addressesBroker);
    }

    private static ApiVersionsResponseData ask(ApiVersionsResponder responder, short version, boolean addressesBroker) {
        RequestFrame request = KafkaWire.requestFrame(new ApiVersionsRequest.Builder().build(version), 3, "client");
        ByteBuf answer;
        try {
            answer = responder.answer(request, addressesBroker);
        } finally {
            request.frame().release();
        }
        KafkaWire.Response parsed = KafkaWire.parseResponseAndRelease(answer, ApiKeys.API_VERSIONS, version);
        assertEquals(3, parsed.correlationId());
        return parsed.as(ApiVersionsResponse.class).data();
    }

    /** A broker report listing every proxied API at kafka-clients' range, minus some, with some ranges replaced. */
    private static ApiVersionsResponseData everyProxiedApiExcept(Set<ApiKeys> missing, Map<ApiKeys, ApiVersion> overrides) {
        ApiVersionsResponseData data = new ApiVersionsResponseData();
        for (ApiKeys api : APIS.all().keySet()) {
            if (!APIS.served(api) || missing.contains(api)) {
                continue;
            }
            ApiVersion v = overrides.getOrDefault(api, range(api, api.oldestVersion(), api.latestVersion(false)));
            data.apiKeys().add(v.duplicate());
        }
        return data;
    }

    private static Map<Short, ApiVersion> byKey(ApiVersionsResponseData data) {
        Map<Short, ApiVersion> map = new TreeMap<>();
        data.apiKeys().forEach(v -> map.put(v.apiKey(), v.duplicate()));
        return map;
    }
}
