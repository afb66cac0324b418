package org.kafscale.proxy.app.health;

import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.stream.Collectors;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.message.FetchResponseData;
import org.apache.kafka.common.message.ListOffsetsRequestData.ListOffsetsPartition;
import org.apache.kafka.common.message.ListOffsetsRequestData.ListOffsetsTopic;
import org.apache.kafka.common.message.ListOffsetsResponseData;
import org.apache.kafka.common.protocol.Errors;
import org.kafscale.proxy.core.backend.KafkaRequestClient;
import org.kafscale.proxy.core.codec.OutboundRequests;
import org.kafscale.proxy.core.codec.OutboundRequests.FetchStart;
import org.kafscale.proxy.core.codec.RecordSets;
import org.kafscale.proxy.core.topology.BrokerEndpoint;
import org.kafscale.proxy.core.topology.Topology;
import org.kafscale.proxy.core.topology.TopologySnapshot;
import org.kafscale.proxy.core.topology.TopicLayout;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Proves the read path the way a client would: connects to the proxy's own Kafka listener and
 * fetches real records from a partition that has data, so the request goes through the proxy's
 * routing, a broker, and the proxy's answer on the way back.
 *
 * <p>A Fetch of an empty or unknown partition answers cleanly even when real reads fail (the
 * field report behind this probe), so it never counts as proof: when no partition has data the
 * result says so and is only "unproven". Each probe asks ListOffsets for the latest offsets (a
 * broker round trip through the proxy), picks partitions with data (the last proven one first),
 * asks for their earliest offsets, and fetches from there.
 */
public final class ReadPathProbe {
    private static final Logger LOGGER = LoggerFactory.getLogger(ReadPathProbe.class);
    /** Bounds the ListOffsets of an automatic probe on a cluster with many partitions. */
    private static final int MAX_CANDIDATES = 64;
    /** Partitions with data fetched per probe; one good answer is enough. */
    private static final int MAX_FETCHED = 3;
    private static final int FETCH_MAX_BYTES = 1024 * 1024;

    /** Speaks to the proxy's own listener, with that listener's security (not the brokers'). */
    private final KafkaRequestClient client;
    /** Speaks to the brokers, with the backend security, when no topic proves the read path. */
    private final KafkaRequestClient brokerClient;
    private final BrokerEndpoint proxyListener;
    private final Topology topology;
    private final ReadProbeSettings settings;
    private volatile TopicPartition lastProven;
    private volatile ProbeResult latest;

    /**
     * @param listenerClient speaks to the proxy's own listener, with that listener's TLS and, when
     *     it requires SASL, the probe's own login
     * @param brokerClient speaks to the brokers, with the backend security
     */
    public ReadPathProbe(KafkaRequestClient listenerClient, KafkaRequestClient brokerClient,
                         InetSocketAddress proxyListener, Topology topology, ReadProbeSettings settings) {
        this.client = listenerClient;
        this.brokerClient = brokerClient;
        // The proxy's own listener, reached over loopback when it listens on every interface.
        String host = proxyListener.getAddress() == null || proxyListener.getAddress().isAnyLocalAddress()
                ? "127.0.0.1" : proxyListener.getAddress().getHostAddress();
        this.proxyListener = new BrokerEndpoint(-1, host, proxyListener.getPort(), null);
        this.topology = topology;
        this.settings = settings;
    }

    /** Probes now and then again {@code interval} after each probe ends; probes never overlap. */
    public void start(ScheduledExecutorService scheduler) {
        scheduler.execute(() -> runAndReschedule(scheduler));
    }

    private void runAndReschedule(ScheduledExecutorService scheduler) {
        probe().whenComplete((result, error) -> {
            if (!scheduler.isShutdown()) {
                scheduler.schedule(() -> runAndReschedule(scheduler), settings.interval().toMillis(),
                        TimeUnit.MILLISECONDS);
            }
        });
    }

    /** The last finished probe, if any. */
    public Optional<ProbeResult> latest() {
        return Optional.ofNullable(latest);
    }

    /** The time after which a probe result is too old to stand for the present. */
    public Duration staleAfter() {
        return settings.interval().plus(settings.timeout()).multipliedBy(2);
    }

    /** Runs one probe; the result also becomes {@link #latest()}. Never completes exceptionally. */
    public CompletableFuture<ProbeResult> probe() {
        CompletableFuture<ProbeResult> result;
        try {
            result = probeCandidates(topology.snapshot());
        } catch (RuntimeException e) {
            result = CompletableFuture.failedFuture(e);
        }
        return result
                .orTimeout(settings.timeout().toMillis(), TimeUnit.MILLISECONDS)
                .exceptionally(e -> ProbeResult.failed(describe(e)))
                .thenApply(this::record);
    }

    private ProbeResult record(ProbeResult result) {
        ProbeResult previous = latest;
        latest = result;
        if (previous == null || previous.verdict() != result.verdict()) {
            LOGGER.info("Read-path probe: {} ({})", result.verdict(), result.detail());
        }
        return result;
    }

    private CompletableFuture<ProbeResult> probeCandidates(TopologySnapshot snapshot) {
        if (!snapshot.hasBrokers()) {
            return CompletableFuture.completedFuture(ProbeResult.failed("no broker known"));
        }
        Map<TopicPartition, Uuid> candidates = candidates(snapshot);
        if (candidates.isEmpty()) {
            if (settings.topic().isPresent()) {
                return CompletableFuture.completedFuture(ProbeResult.failed("probe topic " + settings.topic().get()
                        + settings.partition().stream().mapToObj(p -> " partition " + p).findFirst().orElse("")
                        + " is not in the cluster's metadata"));
            }
            return brokerRoundTrip(snapshot, "no topic has partitions yet; ");
        }
        return listOffsets(candidates.keySet(), OutboundRequests.LATEST_TIMESTAMP).thenCompose(latestOffsets -> {
            List<TopicPartition> withData = latestOffsets.entrySet().stream()
                    .filter(e -> e.getValue().error() == Errors.NONE && e.getValue().offset() > 0)
                    .map(Map.Entry::getKey)
                    .sorted(Comparator.comparing((TopicPartition tp) -> !tp.equals(lastProven)))
                    .limit(MAX_FETCHED)
                    .toList();
            if (!withData.isEmpty()) {
                return fetchFromEarliest(withData, candidates);
            }
            List<String> errors = latestOffsets.entrySet().stream()
                    .filter(e -> e.getValue().error() != Errors.NONE)
                    .map(e -> e.getKey() + " " + e.getValue().error().name()).toList();
            if (errors.size() == latestOffsets.size()) {
                return CompletableFuture.completedFuture(
                        ProbeResult.failed("ListOffsets through the proxy failed: " + summary(errors)));
            }
            return CompletableFuture.completedFuture(ProbeResult.unproven("no partition has data yet ("
                    + latestOffsets.size() + " checked); metadata and a ListOffsets round trip through the proxy "
                    + "succeeded, which proves less than a Fetch of real records"));
        });
    }

    /**
     * The partitions to consider, with their topic ids: the configured topic or partition, else
     * up to {@value #MAX_CANDIDATES} partitions of the cluster's non-internal topics.
     */
    private Map<TopicPartition, Uuid> candidates(TopologySnapshot snapshot) {
        Map<TopicPartition, Uuid> candidates = new LinkedHashMap<>();
        List<TopicLayout> topics = settings.topic()
                .map(name -> snapshot.topic(name).stream().toList())
                .orElseGet(() -> snapshot.topics().values().stream().filter(t -> !t.internal())
                        .sorted(Comparator.comparing(TopicLayout::name)).toList());
        for (TopicLayout topic : topics) {
            for (int partition : topic.partitions().keySet()) {
                if (settings.partition().isEmpty() || settings.partition().getAsInt() == partition) {
                    candidates.put(new TopicPartition(topic.name(), partition), topic.id());
                }
                if (candidates.size() == MAX_CANDIDATES) {
                    return candidates;
                }
            }
        }
        return candidates;
    }

    /** With no topic at all, the best that can be shown: a broker answers a request. */
    private CompletableFuture<ProbeResult> brokerRoundTrip(TopologySnapshot snapshot, String why) {
        BrokerEndpoint broker = snapshot.brokers().values().iterator().next();
        return brokerClient.apiVersions(broker).thenApply(versions -> ProbeResult.unproven(
                why + "metadata is known and broker " + broker.id()
                        + " answered ApiVersions, which proves less than a Fetch of real records"));
    }

    private CompletableFuture<ProbeResult> fetchFromEarliest(List<TopicPartition> partitions,
                                                            Map<TopicPartition, Uuid> topicIds) {
        return listOffsets(partitions, OutboundRequests.EARLIEST_TIMESTAMP).thenCompose(earliest -> {
            Map<TopicPartition, FetchStart> starts = new LinkedHashMap<>();
            for (TopicPartition tp : partitions) {
                PartitionOffset start = earliest.get(tp);
                if (start != null && start.error() == Errors.NONE) {
                    starts.put(tp, new FetchStart(topicIds.get(tp), start.offset()));
                }
            }
            if (starts.isEmpty()) {
                return CompletableFuture.completedFuture(ProbeResult.failed("ListOffsets (earliest) through the proxy "
                        + "failed for " + partitions));
            }
            return client.send(proxyListener, OutboundRequests.fetch(starts, FETCH_MAX_BYTES))
                    .thenApply(response -> judgeFetch(response, starts, topicIds));
        });
    }

    private ProbeResult judgeFetch(FetchResponseData response, Map<TopicPartition, FetchStart> asked,
                                   Map<TopicPartition, Uuid> topicIds) {
        Map<Uuid, String> namesById = new HashMap<>();
        topicIds.forEach((tp, id) -> namesById.put(id, tp.topic()));
        List<String> problems = new ArrayList<>();
        for (FetchResponseData.FetchableTopicResponse topic : response.responses()) {
            String name = topic.topic() == null || topic.topic().isEmpty() ? namesById.get(topic.topicId())
                    : topic.topic();
            for (FetchResponseData.PartitionData partition : topic.partitions()) {
                TopicPartition tp = new TopicPartition(name, partition.partitionIndex());
                Errors error = Errors.forCode(partition.errorCode());
                if (error != Errors.NONE) {
                    problems.add(tp + " " + error.name());
                    continue;
                }
                int records = RecordSets.countDataRecords(partition.records());
                if (records > 0) {
                    lastProven = tp;
                    return ProbeResult.proven("fetched " + records + " records from " + tp + " at offset "
                            + asked.get(tp).offset() + " through the proxy");
                }
                problems.add(tp + " returned no records although it has data");
            }
        }
        return ProbeResult.failed("Fetch through the proxy returned no records: " + summary(problems));
    }

    private CompletableFuture<Map<TopicPartition, PartitionOffset>> listOffsets(
            java.util.Collection<TopicPartition> partitions, long timestamp) {
        Map<String, List<TopicPartition>> byTopic = partitions.stream()
                .collect(Collectors.groupingBy(TopicPartition::topic, LinkedHashMap::new, Collectors.toList()));
        List<ListOffsetsTopic> topics = new ArrayList<>();
        byTopic.forEach((topic, tps) -> topics.add(new ListOffsetsTopic().setName(topic).setPartitions(
                tps.stream().map(tp -> new ListOffsetsPartition().setPartitionIndex(tp.partition())
                        .setTimestamp(timestamp)).toList())));
        return client.send(proxyListener, OutboundRequests.listOffsets(topics)).thenApply(response -> {
            Map<TopicPartition, PartitionOffset> offsets = new LinkedHashMap<>();
            for (ListOffsetsResponseData.ListOffsetsTopicResponse topic : response.topics()) {
                for (ListOffsetsResponseData.ListOffsetsPartitionResponse p : topic.partitions()) {
                    offsets.put(new TopicPartition(topic.name(), p.partitionIndex()),
                            new PartitionOffset(Errors.forCode(p.errorCode()), p.offset()));
                }
            }
            return offsets;
        });
    }

    private static String summary(List<String> items) {
        int shown = Math.min(items.size(), 5);
        String text = String.join(", ", items.subList(0, shown));
        return items.size() > shown ? text + " and " + (items.size() - shown) + " more" : text;
    }

    private static String describe(Throwable error) {
        Throwable cause = error instanceof java.util.concurrent.CompletionException && error.getCause() != null
                ? error.getCause() : error;
        if (cause instanceof TimeoutException) {
            return "no answer through the proxy in time";
        }
        return "request through the proxy failed: " + cause;
    }

    private record PartitionOffset(Errors error, long offset) {
    }
}
