package org.kafscale.proxy.app.e2e;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.function.ToIntFunction;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.IsolationLevel;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.compress.Compression;
import org.apache.kafka.common.message.FindCoordinatorRequestData;
import org.apache.kafka.common.message.JoinGroupRequestData;
import org.apache.kafka.common.message.JoinGroupRequestData.JoinGroupRequestProtocol;
import org.apache.kafka.common.message.JoinGroupRequestData.JoinGroupRequestProtocolCollection;
import org.apache.kafka.common.message.ListOffsetsRequestData.ListOffsetsPartition;
import org.apache.kafka.common.message.ListOffsetsRequestData.ListOffsetsTopic;
import org.apache.kafka.common.message.ProduceRequestData;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.SimpleRecord;
import org.apache.kafka.common.requests.AbstractRequest;
import org.apache.kafka.common.requests.AbstractResponse;
import org.apache.kafka.common.requests.ApiVersionsRequest;
import org.apache.kafka.common.requests.ApiVersionsResponse;
import org.apache.kafka.common.requests.FetchRequest;
import org.apache.kafka.common.requests.FetchResponse;
import org.apache.kafka.common.requests.FindCoordinatorRequest;
import org.apache.kafka.common.requests.FindCoordinatorResponse;
import org.apache.kafka.common.requests.JoinGroupRequest;
import org.apache.kafka.common.requests.JoinGroupResponse;
import org.apache.kafka.common.requests.ListOffsetsRequest;
import org.apache.kafka.common.requests.ListOffsetsResponse;
import org.apache.kafka.common.requests.MetadataRequest;
import org.apache.kafka.common.requests.MetadataResponse;
import org.apache.kafka.common.requests.ProduceRequest;
import org.apache.kafka.common.requests.ProduceResponse;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.kafscale.proxy.app.config.ProxyConfig;
import org.kafscale.proxy.core.testing.RawKafkaConnection;
import org.kafscale.proxy.testkit.EtcdProcess;
import org.kafscale.proxy.testkit.Eventually;
import org.kafscale.proxy.testkit.KafkaCluster;
import org.kafscale.proxy.testkit.KafscaleEtcdWriter;

/**
 * When etcd cannot be read past the cache TTL, the proxy stops routing rather than route on stale
 * data, answers each request with the not-ready answer and closes; it recovers without a restart.
 */
class EtcdOutageIT {
    private static final String TOPIC = "outage";
    private static final Duration TTL = Duration.ofSeconds(6);
    private static final Duration DEADLINE = Duration.ofSeconds(40);

    private static KafkaCluster cluster;
    private static EtcdProcess etcd;

    @BeforeAll
    static void start() {
        cluster = KafkaCluster.start(3);
        etcd = EtcdProcess.startNew();
        cluster.createTopic(TOPIC, Map.of(0, cluster.brokerIds().get(1)));
        try (KafscaleEtcdWriter kafscale = KafscaleEtcdWriter.connect(etcd.endpoint())) {
            kafscale.publishSnapshot(cluster, List.of(TOPIC));
            kafscale.publishPartitionLeases(cluster, List.of(TOPIC));
        }
    }

    @AfterAll
    static void stop() {
        etcd.close();
        cluster.close();
    }

    @Test
    void pastTheTtlWithoutEtcdEveryRequestButApiVersionsIsRefusedAndServiceResumesWhenEtcdReturns() throws Exception {
        try (RunningProxy proxy = RunningProxy.start(cluster, "brokers", Map.of(
                ProxyConfig.BACKENDS, "",
                ProxyConfig.ETCD_ENDPOINTS, etcd.endpoint(),
                ProxyConfig.ETCD_RESYNC_MS, "500",
                ProxyConfig.BACKEND_CACHE_TTL_SEC, String.valueOf(TTL.toSeconds())));
             KafkaProducer<String, String> producer = EtcdTopologyIT.producer(proxy)) {
            producer.send(new ProducerRecord<>(TOPIC, 0, "k", "before")).get(30, TimeUnit.SECONDS);

            // When: etcd goes away
            etcd.stop();
            // Then: within the TTL the proxy keeps serving
            producer.send(new ProducerRecord<>(TOPIC, 0, "k", "within-ttl")).get(TTL.toSeconds() - 1, TimeUnit.SECONDS);

            // Then: past it, not ready
            Eventually.await(DEADLINE, "/readyz 503 past the TTL", () -> proxy.healthStatus("/readyz") == 503
                    && proxy.healthBody("/readyz").contains("not routing"));
            assertRefused(proxy, new MetadataRequest.Builder(List.of(TOPIC), false).build((short) 12),
                    (MetadataResponse r) -> r.data().brokers().isEmpty() && r.data().controllerId() == -1
                            ? r.data().topics().find(TOPIC).errorCode() : -1);
            assertRefused(proxy, new FindCoordinatorRequest.Builder(new FindCoordinatorRequestData()
                            .setKeyType((byte) 0).setCoordinatorKeys(List.of("g"))).build((short) 4),
                    (FindCoordinatorResponse r) -> r.data().coordinators().get(0).errorCode());
            assertRefused(proxy, produceRequest(), (ProduceResponse r) ->
                    r.data().responses().iterator().next().partitionResponses().get(0).errorCode());
            assertRefused(proxy, fetchRequest(), (FetchResponse r) -> r.error().code());
            assertRefused(proxy, joinGroupRequest(), (JoinGroupResponse r) -> r.data().errorCode());
            assertRefused(proxy, listOffsetsRequest(), (ListOffsetsResponse r) ->
                    r.data().topics().get(0).partitions().get(0).errorCode());

            // When: etcd is back
            etcd.start();
            // Then: the same proxy serves again
            Eventually.await(DEADLINE, "/readyz 200 after etcd returns", () -> proxy.healthStatus("/readyz") == 200);
            producer.send(new ProducerRecord<>(TOPIC, 0, "k", "after")).get(60, TimeUnit.SECONDS);
        }
    }

    /** On a fresh connection: ApiVersions is answered, the request gets REQUEST_TIMED_OUT, then the connection closes. */
    @SuppressWarnings("unchecked")
    private static <R extends AbstractResponse> void assertRefused(RunningProxy proxy, AbstractRequest request,
                                                                   ToIntFunction<R> errorCode) throws Exception {
        try (RawKafkaConnection connection = new RawKafkaConnection(proxy.port())) {
            ApiVersionsResponse versions = connection.send(new ApiVersionsRequest.Builder().build((short) 3));
            assertEquals(Errors.NONE.code(), versions.data().errorCode(), "ApiVersions still answers");
            R answer = connection.send(request);
            assertEquals(Errors.REQUEST_TIMED_OUT.code(), errorCode.applyAsInt(answer),
                    request.apiKey() + " gets the not-ready answer");
            assertTrue(connection.closedByProxy(), request.apiKey() + ": the connection closes after the answer");
        }
    }

    private static ProduceRequest produceRequest() {
        ProduceRequestData data = new ProduceRequestData().setAcks((short) -1).setTimeoutMs(5000);
        ProduceRequestData.TopicProduceData topic = new ProduceRequestData.TopicProduceData().setName(TOPIC);
        topic.partitionData().add(new ProduceRequestData.PartitionProduceData().setIndex(0)
                .setRecords(MemoryRecords.withRecords(Compression.NONE, new SimpleRecord("refused".getBytes()))));
        data.topicData().add(topic);
        return ProduceRequest.builder(data).build((short) 9);
    }

    private static FetchRequest fetchRequest() {
        return FetchRequest.Builder.forConsumer((short) 12, 100, 1, Map.of(new TopicPartition(TOPIC, 0),
                        new FetchRequest.PartitionData(org.apache.kafka.common.Uuid.ZERO_UUID, 0, -1, 1024 * 1024,
                                Optional.empty())))
                .build((short) 12);
    }

    private static JoinGroupRequest joinGroupRequest() {
        JoinGroupRequestProtocolCollection protocols = new JoinGroupRequestProtocolCollection();
        protocols.add(new JoinGroupRequestProtocol().setName("range").setMetadata(new byte[0]));
        return new JoinGroupRequest.Builder(new JoinGroupRequestData().setGroupId("refused-group")
                .setSessionTimeoutMs(10_000).setRebalanceTimeoutMs(10_000).setMemberId("")
                .setProtocolType("consumer").setProtocols(protocols)).build((short) 9);
    }

    private static ListOffsetsRequest listOffsetsRequest() {
        ListOffsetsTopic topic = new ListOffsetsTopic().setName(TOPIC);
        topic.partitions().add(new ListOffsetsPartition().setPartitionIndex(0).setTimestamp(-1));
        return ListOffsetsRequest.Builder.forConsumer(false, IsolationLevel.READ_UNCOMMITTED)
                .setTargetTimes(List.of(topic)).build((short) 7);
    }
}
