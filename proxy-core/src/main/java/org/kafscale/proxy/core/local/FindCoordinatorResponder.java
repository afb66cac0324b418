package org.kafscale.proxy.core.local;

import io.netty.buffer.ByteBuf;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import org.apache.kafka.common.message.FindCoordinatorRequestData;
import org.apache.kafka.common.message.FindCoordinatorResponseData;
import org.apache.kafka.common.message.FindCoordinatorResponseData.Coordinator;
import org.apache.kafka.common.protocol.Errors;
import org.kafscale.proxy.core.codec.RequestFrame;
import org.kafscale.proxy.core.codec.ResponseFrames;
import org.kafscale.proxy.core.topology.CoordinatorKind;
import org.kafscale.proxy.core.topology.Topology;

/**
 * Answers FindCoordinator at the proxy's address. In brokers mode the node id is the real
 * coordinator's, so clients keep one coordinator connection per coordinator as they would
 * directly; in single mode it is node 0. Both the single-key (v0-3) and batched (v4+) shapes.
 */
public final class FindCoordinatorResponder {
    private final Topology topology;
    private final AdvertisedListener advertised;

    public FindCoordinatorResponder(Topology topology, AdvertisedListener advertised) {
        this.topology = topology;
        this.advertised = advertised;
    }

    public CompletionStage<ByteBuf> answer(RequestFrame request) {
        FindCoordinatorRequestData data = request.decodeBody(FindCoordinatorRequestData.class);
        CoordinatorKind kind = CoordinatorKind.fromKeyType(data.keyType());
        List<String> keys = request.apiVersion() >= 4 ? data.coordinatorKeys() : List.of(data.key());
        List<CompletableFuture<Coordinator>> lookups = new ArrayList<>();
        for (String key : keys) {
            lookups.add(locate(kind, key).toCompletableFuture());
        }
        return CompletableFuture.allOf(lookups.toArray(CompletableFuture[]::new)).thenApply(done -> {
            FindCoordinatorResponseData response = new FindCoordinatorResponseData().setThrottleTimeMs(0);
            if (request.apiVersion() >= 4) {
                lookups.forEach(l -> response.coordinators().add(l.join()));
            } else {
                Coordinator only = lookups.get(0).join();
                response.setErrorCode(only.errorCode()).setErrorMessage(only.errorMessage())
                        .setNodeId(only.nodeId()).setHost(only.host()).setPort(only.port());
            }
            return ResponseFrames.encode(request, response);
        });
    }

    private CompletionStage<Coordinator> locate(CoordinatorKind kind, String key) {
        if (!topology.snapshot().hasBrokers()) {
            return CompletableFuture.completedFuture(unavailable(key));
        }
        if (advertised.mode() == AdvertiseMode.SINGLE) {
            return CompletableFuture.completedFuture(at(key, AdvertisedListener.SINGLE_NODE_ID));
        }
        return topology.coordinator(kind, key)
                .thenApply(id -> id < 0 ? unavailable(key) : at(key, id))
                .exceptionally(e -> unavailable(key));
    }

    private Coordinator at(String key, int nodeId) {
        return new Coordinator().setKey(key).setNodeId(nodeId).setHost(advertised.hostOf(nodeId))
                .setPort(advertised.portOf(nodeId))
                .setErrorCode(Errors.NONE.code());
    }

    private static Coordinator unavailable(String key) {
        return new Coordinator().setKey(key).setNodeId(-1).setHost("").setPort(-1)
                .setErrorCode(Errors.COORDINATOR_NOT_AVAILABLE.code())
                .setErrorMessage("no broker can coordinate " + key + " now");
    }
}
