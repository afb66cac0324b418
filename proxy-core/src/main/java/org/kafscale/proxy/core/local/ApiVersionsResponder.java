package org.kafscale.proxy.core.local;

import io.netty.buffer.ByteBuf;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletionStage;
import org.apache.kafka.common.message.ApiVersionsResponseData;
import org.apache.kafka.common.message.ApiVersionsResponseData.ApiVersion;
import org.apache.kafka.common.message.ApiVersionsResponseData.ApiVersionCollection;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.Errors;
import org.kafscale.proxy.core.codec.RequestFrame;
import org.kafscale.proxy.core.codec.ResponseFrames;
import org.kafscale.proxy.core.apis.ApiCatalog;
import org.kafscale.proxy.core.apis.ApiSpec;

/**
 * Answers ApiVersions: each API the proxy serves, at the versions both kafka-clients (our codec)
 * and every known broker support. A request newer than the proxy knows gets the KIP-511 answer:
 * version 0, UNSUPPORTED_VERSION, and the ApiVersions range, so the client retries lower.
 * From v3 the answer carries the features every broker supports and has finalized
 * ({@link ClusterFeatures}).
 */
public final class ApiVersionsResponder {
    /** The first ApiVersions version that carries features (KIP-584). */
    private static final short FEATURES_VERSION = 3;
    /**
     * The first version shown a supported feature whose range starts at 0; older clients cannot
     * read one (KIP-1022), so brokers leave those out below it, and so does the proxy.
     */
    private static final short ZERO_MINIMUM_VERSION = 4;

    private final ApiCatalog apis;
    private final BrokerApiVersions brokers;
    /** Keys the listener itself serves besides the proxied ones (SASL on a SASL listener). */
    private final List<ApiVersion> listenerApis;

    public ApiVersionsResponder(ApiCatalog apis, BrokerApiVersions brokers) {
        this(apis, brokers, List.of());
    }

    /**
     * @param apis the keys the proxy serves, each advertised where it is served
     * @param listenerApis keys the listener serves itself, such as SaslHandshake on a SASL listener
     */
    public ApiVersionsResponder(ApiCatalog apis, BrokerApiVersions brokers, List<ApiVersion> listenerApis) {
        this.apis = apis;
        this.brokers = brokers;
        this.listenerApis = List.copyOf(listenerApis);
    }

    /** Whether a broker has reported, so an answer now advertises nothing a broker lacks. */
    public boolean brokersKnown() {
        return brokers.anyReported();
    }

    /** Completes when the first broker report is in. */
    public CompletionStage<Void> brokersReported() {
        return brokers.firstReport();
    }

    /** The answer on a connection that addresses no one broker. */
    public ByteBuf answer(RequestFrame request) {
        return answer(request, false);
    }

    /**
     * @param addressesBroker whether the connection came in on one broker's own port, where the
     *     per-broker disk APIs are served too
     */
    public ByteBuf answer(RequestFrame request, boolean addressesBroker) {
        ApiKeys api = ApiKeys.API_VERSIONS;
        if (request.apiVersion() > api.latestVersion(false) || request.apiVersion() < api.oldestVersion()) {
            ApiVersionCollection keys = new ApiVersionCollection();
            keys.add(new ApiVersion().setApiKey(api.id).setMinVersion(api.oldestVersion())
                    .setMaxVersion(api.latestVersion(false)));
            ApiVersionsResponseData unsupported = new ApiVersionsResponseData()
                    .setErrorCode(Errors.UNSUPPORTED_VERSION.code()).setApiKeys(keys);
            return ResponseFrames.encode(api, (short) 0, request.correlationId(), unsupported);
        }
        ApiVersionsResponseData data = new ApiVersionsResponseData()
                .setErrorCode(Errors.NONE.code())
                .setThrottleTimeMs(0)
                .setApiKeys(advertised(addressesBroker));
        if (request.apiVersion() >= FEATURES_VERSION) {
            ClusterFeatures features = brokers.features();
            data.setSupportedFeatures(features.supportedKeys(request.apiVersion() >= ZERO_MINIMUM_VERSION))
                    .setFinalizedFeatures(features.finalizedKeys())
                    .setFinalizedFeaturesEpoch(features.epoch());
        }
        return ResponseFrames.encode(request, data);
    }

    /** The advertised ranges, in API key order. */
    ApiVersionCollection advertised() {
        return advertised(false);
    }

    ApiVersionCollection advertised(boolean addressesBroker) {
        List<ApiVersion> ranges = new ArrayList<>();
        listenerApis.forEach(api -> ranges.add(api.duplicate()));
        for (ApiSpec spec : apis.all().values()) {
            ApiKeys api = spec.api();
            if (!spec.servedOn(addressesBroker)) {
                continue;
            }
            short min = api.oldestVersion();
            short max = api.latestVersion(false);
            if (spec.forwarded() || api == ApiKeys.FIND_COORDINATOR) {
                // Forwarded APIs must suit the brokers. FindCoordinator is answered here but its
                // versions gate how clients batch lookups, so it follows the brokers too.
                if (brokers.anyReported()) {
                    Optional<ApiVersion> common = brokers.common(api.id);
                    if (common.isEmpty()) {
                        continue;
                    }
                    min = (short) Math.max(min, common.get().minVersion());
                    max = (short) Math.min(max, common.get().maxVersion());
                }
            }
            if (min <= max) {
                ranges.add(new ApiVersion().setApiKey(api.id).setMinVersion(min).setMaxVersion(max));
            }
        }
        ranges.sort(Comparator.comparingInt(ApiVersion::apiKey));
        ApiVersionCollection keys = new ApiVersionCollection();
        ranges.forEach(keys::add);
        return keys;
    }
}
