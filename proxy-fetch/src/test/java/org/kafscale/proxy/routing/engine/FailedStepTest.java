package org.kafscale.proxy.routing.engine;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.kafscale.proxy.core.testing.ScriptedBroker.Response.answer;

import java.io.IOException;
import org.apache.kafka.common.message.ListOffsetsRequestData;
import org.apache.kafka.common.message.ListOffsetsResponseData;
import org.apache.kafka.common.message.ListOffsetsResponseData.ListOffsetsPartitionResponse;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.Errors;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.kafscale.proxy.core.hooks.RoutingObserver;
import org.kafscale.proxy.core.testing.RawKafkaConnection;
import org.kafscale.proxy.core.testing.ScriptedBroker;
import org.kafscale.proxy.routing.ListOffsets;
import org.kafscale.proxy.routing.RoutingHarness;

/**
 * A step of a routed request that throws (here the observer, told of a retry) must not leave the
 * request, and every later answer on its connection, pending.
 */
class FailedStepTest {
    private final RoutingHarness proxy = new RoutingHarness();
    private final ScriptedBroker broker = proxy.broker(1);

    @AfterEach
    void stop() throws IOException {
        proxy.close();
    }

    @Test
    void stepThatThrowsEndsItsConnectionAndANewConnectionIsServed() throws IOException {
        // Given an observer that throws when told of a retry, and a broker refusing events-0 but serving events-1
        proxy.observeAlso(new RoutingObserver() {
            @Override
            public void retried(ApiKeys api, RetryCause cause) {
                throw new IllegalStateException("observer broke");
            }
        });
        proxy.topology().withPartition("events", 0, 1).withPartition("events", 1, 1);
        broker.on(ApiKeys.LIST_OFFSETS, request -> answer(ListOffsets.answer(request.data(ListOffsetsRequestData.class),
                p -> p.partitionIndex() == 0 ? refused() : new ListOffsetsPartitionResponse().setOffset(7).setTimestamp(-1))));

        // When a client asks for events-0's offset, whose refusal makes routing tell the observer of a retry
        RawKafkaConnection first = proxy.connect();
        first.write(ListOffsets.latest("events", 0), ListOffsets.VERSION);

        // Then that connection is closed instead of left waiting, and a new connection gets events-1's offset
        assertTrue(first.closedByProxy(), "the connection whose request failed is closed");
        ListOffsetsResponseData answer = proxy.connect().send(ListOffsets.latest("events", 1), ListOffsets.VERSION);
        assertEquals(Errors.NONE.code(), ListOffsets.only(answer).errorCode());
        assertEquals(7, ListOffsets.only(answer).offset());
    }

    private static ListOffsetsPartitionResponse refused() {
        return new ListOffsetsPartitionResponse().setErrorCode(Errors.NOT_LEADER_OR_FOLLOWER.code()).setOffset(-1)
                .setTimestamp(-1);
    }
}
