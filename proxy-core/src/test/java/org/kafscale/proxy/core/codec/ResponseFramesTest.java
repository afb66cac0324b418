package org.kafscale.proxy.core.codec;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.stream.Stream;
import org.apache.kafka.common.message.ApiVersionsResponseData;
import org.apache.kafka.common.message.FindCoordinatorRequestData;
import org.apache.kafka.common.message.MetadataRequestData;
import org.apache.kafka.common.message.MetadataResponseData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.ByteBufferAccessor;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.requests.AbstractRequest;
import org.apache.kafka.common.requests.ApiVersionsRequest;
import org.apache.kafka.common.requests.ApiVersionsResponse;
import org.apache.kafka.common.requests.FindCoordinatorRequest;
import org.apache.kafka.common.requests.MetadataRequest;
import org.apache.kafka.common.requests.MetadataResponse;
import org.apache.kafka.common.requests.ProduceRequest;
import org.apache.kafka.common.requests.ResponseHeader;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.params.provider.ValueSource;

class ResponseFramesTest {

    @ParameterizedTest(name = "Metadata v{0}")
    @ValueSource(shorts = {1, 4, 8, 9, 12, 13})
    void encodedAnswerParsesBackWithKafkaClientsAtFlexibleAndNonFlexibleVersions(short version) {
        // Given a Metadata answer valid at this version
        MetadataResponseData body = metadataAnswer(version);

        // When the proxy encodes it
        ByteBuf frame = ResponseFrames.encode(ApiKeys.METADATA, version, 77, body);

        // Then kafka-clients reads back the same correlation id and body
        KafkaWire.Response parsed = KafkaWire.parseResponseAndRelease(frame, ApiKeys.METADATA, version);
        assertEquals(77, parsed.correlationId());
        assertEquals(body, parsed.as(MetadataResponse.class).data());
    }

    @Test
    void encodedAnswerTakesCorrelationIdAndVersionFromTheRequest() {
        // Given a Metadata v9 request with correlation id 31
        RequestFrame request = KafkaWire.requestFrame(
                new MetadataRequest.Builder(new MetadataRequestData().setTopics(null)).build((short) 9), 31, "c");
        MetadataResponseData body = metadataAnswer((short) 9);

        // When the proxy encodes the answer to it
        ByteBuf frame;
        try {
            frame = ResponseFrames.encode(request, body);
        } finally {
            request.frame().release();
        }

        // Then it is the v9 answer to correlation id 31
        KafkaWire.Response parsed = KafkaWire.parseResponseAndRelease(frame, ApiKeys.METADATA, (short) 9);
        assertEquals(31, parsed.correlationId());
        assertEquals(body, parsed.as(MetadataResponse.class).data());
    }

    @ParameterizedTest(name = "ApiVersions v{0}")
    @ValueSource(shorts = {0, 1, 2, 3, 4})
    void apiVersionsAnswerAlwaysUsesResponseHeaderV0(short version) {
        // Given an ApiVersions answer
        ApiVersionsResponseData body = new ApiVersionsResponseData().setErrorCode(Errors.NONE.code());
        body.apiKeys().add(new ApiVersionsResponseData.ApiVersion().setApiKey(ApiKeys.METADATA.id)
                .setMinVersion((short) 0).setMaxVersion((short) 12));

        // When the proxy encodes it, even at a flexible version
        ByteBuf frame = ResponseFrames.encode(ApiKeys.API_VERSIONS, version, 5, body);

        // Then the header is the 4-byte v0 header (no tagged fields) and the body starts right after it
        ByteBuffer bytes = ByteBuffer.wrap(ByteBufUtil.getBytes(frame));
        frame.release();
        ResponseHeader header = ResponseHeader.parse(bytes, (short) 0);
        assertEquals(5, header.correlationId());
        assertEquals(4, bytes.position());
        ApiVersionsResponse parsed = ApiVersionsResponse.parse(new ByteBufferAccessor(bytes), version);
        assertFalse(bytes.hasRemaining());
        assertEquals(body.apiKeys(), parsed.data().apiKeys());
    }

    /** A request whose error answer is checked, built with kafka-clients. */
    record ErrorCase(String name, AbstractRequest request) {
        @Override
        public String toString() {
            return name;
        }
    }

    static Stream<ErrorCase> errorCases() {
        List<ErrorCase> cases = new ArrayList<>();
        for (short v : new short[] {4, 8, 9, 12}) {
            cases.add(new ErrorCase("Metadata v" + v, new MetadataRequest.Builder(
                    new MetadataRequestData().setTopics(List.of(new MetadataRequestData.MetadataRequestTopic().setName("orders"))))
                    .build(v)));
        }
        for (short v : new short[] {8, 9}) {
            cases.add(new ErrorCase("Produce v" + v,
                    new ProduceRequest(KafkaWire.produceData("orders", 0, "k", "v"), v)));
        }
        for (short v : new short[] {2, 3}) {
            cases.add(new ErrorCase("FindCoordinator v" + v, new FindCoordinatorRequest.Builder(
                    new FindCoordinatorRequestData().setKey("group-a")).build(v)));
        }
        cases.add(new ErrorCase("ApiVersions v3", new ApiVersionsRequest.Builder().build((short) 3)));
        return cases.stream();
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("errorCases")
    void errorResponseIsKafkasOwnErrorAnswerAtTheClientsVersion(ErrorCase c) {
        // Given a client request
        RequestFrame request = KafkaWire.requestFrame(c.request(), 808, "c");

        // When the proxy answers it with an error
        ByteBuf frame;
        try {
            frame = ResponseFrames.errorResponse(request, Errors.REQUEST_TIMED_OUT);
        } finally {
            request.frame().release();
        }

        // Then kafka-clients reads that error, and only it, in the answer to this correlation id
        KafkaWire.Response parsed = KafkaWire.parseResponseAndRelease(frame, c.request().apiKey(), c.request().version());
        assertEquals(808, parsed.correlationId());
        assertEquals(Set.of(Errors.REQUEST_TIMED_OUT), parsed.body().errorCounts().keySet());
    }

    private static MetadataResponseData metadataAnswer(short version) {
        MetadataResponseData data = new MetadataResponseData().setControllerId(2);
        data.brokers().add(new MetadataResponseData.MetadataResponseBroker().setNodeId(1).setHost("proxy.local")
                .setPort(9092).setRack("rack-a"));
        data.brokers().add(new MetadataResponseData.MetadataResponseBroker().setNodeId(2).setHost("proxy.local")
                .setPort(9092).setRack(null));
        MetadataResponseData.MetadataResponsePartition partition = new MetadataResponseData.MetadataResponsePartition()
                .setPartitionIndex(0).setLeaderId(1).setReplicaNodes(List.of(1, 2)).setIsrNodes(List.of(1));
        if (version >= 2) {
            data.setClusterId("cluster-a");
        }
        if (version >= 3) {
            data.setThrottleTimeMs(12);
        }
        if (version >= 5) {
            partition.setOfflineReplicas(List.of(2));
        }
        if (version >= 7) {
            partition.setLeaderEpoch(4);
        }
        data.topics().add(new MetadataResponseData.MetadataResponseTopic().setName("orders")
                .setErrorCode(Errors.NONE.code()).setPartitions(List.of(partition)));
        return data;
    }
}
