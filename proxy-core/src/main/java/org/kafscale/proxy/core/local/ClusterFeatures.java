package org.kafscale.proxy.core.local;

import java.util.Collection;
import java.util.HashMap;
import java.util.Map;
import java.util.TreeMap;
import org.apache.kafka.common.message.ApiVersionsResponseData;
import org.apache.kafka.common.message.ApiVersionsResponseData.FinalizedFeatureKey;
import org.apache.kafka.common.message.ApiVersionsResponseData.FinalizedFeatureKeyCollection;
import org.apache.kafka.common.message.ApiVersionsResponseData.SupportedFeatureKey;
import org.apache.kafka.common.message.ApiVersionsResponseData.SupportedFeatureKeyCollection;

/**
 * The features (KIP-584) the proxy advertises in ApiVersions v3+: what every broker supports and
 * what every broker has finalized, so a client through the proxy picks the same protocol (such
 * as transaction.version 2, KIP-890) it would pick direct, and never one a broker lacks.
 *
 * <p>Supported: a feature every broker reports, with the overlap of their ranges (dropped when
 * they do not overlap). Finalized: the cluster finalizes a feature once in the metadata log, so
 * brokers differ only while an UpdateFeatures (an upgrade) reaches them; the proxy then advertises
 * the lowest level any broker has applied (a feature one broker does not list is not finalized),
 * and the lowest epoch, the state every broker has reached. A client so uses the older protocol
 * until the last broker has the newer one, and moves up when the next probe sees every broker
 * agree: never a level some broker would refuse.
 *
 * @param epoch the finalized-features epoch to advertise, -1 when no broker reported one
 */
public record ClusterFeatures(Map<String, SupportedFeatureKey> supported, Map<String, FinalizedFeatureKey> finalized,
                              long epoch) {
    public static final ClusterFeatures NONE = new ClusterFeatures(Map.of(), Map.of(), -1);

    public ClusterFeatures {
        supported = Map.copyOf(supported);
        finalized = Map.copyOf(finalized);
    }

    /** The features common to every report (ApiVersions v3+ answers of the brokers). */
    public static ClusterFeatures of(Collection<ApiVersionsResponseData> reports) {
        if (reports.isEmpty()) {
            return NONE;
        }
        Map<String, SupportedFeatureKey> supported = null;
        Map<String, FinalizedFeatureKey> finalized = null;
        long epoch = Long.MAX_VALUE;
        for (ApiVersionsResponseData report : reports) {
            supported = intersectSupported(supported, report.supportedFeatures());
            finalized = intersectFinalized(finalized, report.finalizedFeatures());
            epoch = Math.min(epoch, report.finalizedFeaturesEpoch());
        }
        return new ClusterFeatures(supported, finalized, epoch < 0 ? -1 : epoch);
    }

    private static Map<String, SupportedFeatureKey> intersectSupported(Map<String, SupportedFeatureKey> common,
                                                                       SupportedFeatureKeyCollection report) {
        Map<String, SupportedFeatureKey> next = new HashMap<>();
        for (SupportedFeatureKey key : report) {
            SupportedFeatureKey prior = common == null ? key : common.get(key.name());
            if (prior == null) {
                continue;
            }
            short min = (short) Math.max(prior.minVersion(), key.minVersion());
            short max = (short) Math.min(prior.maxVersion(), key.maxVersion());
            if (min <= max) {
                next.put(key.name(), new SupportedFeatureKey().setName(key.name()).setMinVersion(min).setMaxVersion(max));
            }
        }
        return next;
    }

    private static Map<String, FinalizedFeatureKey> intersectFinalized(Map<String, FinalizedFeatureKey> common,
                                                                       FinalizedFeatureKeyCollection report) {
        Map<String, FinalizedFeatureKey> next = new HashMap<>();
        for (FinalizedFeatureKey key : report) {
            FinalizedFeatureKey prior = common == null ? key : common.get(key.name());
            if (prior == null) {
                continue;
            }
            FinalizedFeatureKey lower = key.maxVersionLevel() < prior.maxVersionLevel() ? key : prior;
            next.put(key.name(), new FinalizedFeatureKey().setName(key.name())
                    .setMinVersionLevel(lower.minVersionLevel()).setMaxVersionLevel(lower.maxVersionLevel()));
        }
        return next;
    }

    /**
     * For the ApiVersions answer, in name order; without the features whose range starts at 0
     * unless {@code withZeroMinimum} (ApiVersions v4+, KIP-1022).
     */
    public SupportedFeatureKeyCollection supportedKeys(boolean withZeroMinimum) {
        SupportedFeatureKeyCollection keys = new SupportedFeatureKeyCollection();
        new TreeMap<>(supported).values().stream().filter(k -> withZeroMinimum || k.minVersion() > 0)
                .forEach(k -> keys.add(k.duplicate()));
        return keys;
    }

    /** For the ApiVersions answer, in name order. */
    public FinalizedFeatureKeyCollection finalizedKeys() {
        FinalizedFeatureKeyCollection keys = new FinalizedFeatureKeyCollection();
        new TreeMap<>(finalized).values().forEach(k -> keys.add(k.duplicate()));
        return keys;
    }
}
