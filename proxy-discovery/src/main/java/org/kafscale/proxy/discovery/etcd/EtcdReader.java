package org.kafscale.proxy.discovery.etcd;

import io.etcd.jetcd.ByteSequence;
import io.etcd.jetcd.KV;
import io.etcd.jetcd.KeyValue;
import io.etcd.jetcd.kv.GetResponse;
import io.etcd.jetcd.kv.TxnResponse;
import io.etcd.jetcd.op.Op;
import io.etcd.jetcd.options.GetOption;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Supplier;
import org.kafscale.proxy.core.logging.RateLimitedLog;
import org.kafscale.proxy.core.topology.BrokerEndpoint;
import org.kafscale.proxy.core.topology.TopologySnapshot;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One consistent read of KafScale's keys: the snapshot, the partition leases and the group leases
 * in one etcd transaction, so all three are at one revision (three separate gets could pair the
 * snapshot of revision N with leases of N+1, naming brokers that snapshot does not list).
 *
 * <p>Bad data never replaces good: a snapshot that does not parse keeps the last good one, a
 * lease key that does not parse is ignored, a partition lease naming an unknown broker keeps the
 * last owner; each is reported to {@link BadEtcdData}.
 */
final class EtcdReader {
    private static final Logger LOGGER = LoggerFactory.getLogger(EtcdReader.class);

    private final KV kv;
    private final List<BrokerEndpoint> staticBrokers;
    private final Duration timeout;
    private final BadEtcdData badData;
    private final Counter errors;
    /** A dead etcd fails every read: one line per 10 s, stack traces at DEBUG. */
    private final RateLimitedLog failures = RateLimitedLog.every10Seconds(LOGGER);

    /**
     * @param staticBrokers KAFSCALE_PROXY_BACKENDS: the brokers (ids 0..n-1) when the snapshot lists none
     * @param timeout how long one read may take
     */
    EtcdReader(KV kv, List<BrokerEndpoint> staticBrokers, Duration timeout, MeterRegistry metrics) {
        this.kv = kv;
        this.staticBrokers = List.copyOf(staticBrokers);
        this.timeout = timeout;
        this.badData = new BadEtcdData(metrics);
        this.errors = Counter.builder("kafscale_proxy_etcd_read_errors_total")
                .description("Full etcd reads that failed").register(metrics);
    }

    /**
     * Reads etcd and parses the answer against {@code last}, the read in force when the answer
     * arrives (taken then, so what it kept is what this read keeps).
     */
    CompletableFuture<EtcdRead> read(Supplier<EtcdRead> last) {
        return kv.txn()
                .Then(Op.get(bytes(KafscaleKeys.SNAPSHOT), GetOption.DEFAULT),
                        Op.get(bytes(KafscaleKeys.PARTITION_LEASES), GetOption.builder().isPrefix(true).build()),
                        Op.get(bytes(KafscaleKeys.GROUP_LEASES), GetOption.builder().isPrefix(true).build()))
                .commit()
                .orTimeout(timeout.toMillis(), TimeUnit.MILLISECONDS)
                .thenApply(answer -> parse(answer, last.get()));
    }

    /**
     * Counts and logs a read that failed (not one failed by closing the client: the caller does not
     * ask then) and says why in one line: the cause, not its wrapper; a timeout says how long.
     */
    String failed(Throwable error) {
        errors.increment();
        Throwable cause = EtcdErrors.cause(error);
        String why = cause instanceof TimeoutException ? "no answer within " + timeout.toMillis() + " ms" : cause.toString();
        failures.warn("etcd read failed: {}", why);
        LOGGER.debug("etcd read failed", error);
        return why;
    }

    private EtcdRead parse(TxnResponse answer, EtcdRead last) {
        List<GetResponse> ranges = answer.getGetResponses();
        KafscaleSnapshot document = last.document();
        boolean documentGood = true;
        if (!ranges.get(0).getKvs().isEmpty()) {
            KeyValue kv = ranges.get(0).getKvs().get(0);
            try {
                document = KafscaleSnapshot.parse(kv.getValue().getBytes());
            } catch (IOException | RuntimeException e) {
                documentGood = false;
                badData.report("snapshot", KafscaleKeys.SNAPSHOT + "@" + kv.getModRevision(),
                        "does not parse (" + e.getMessage() + "); keeping the last good snapshot");
            }
        }
        List<BrokerEndpoint> brokers = document.brokers().isEmpty() ? numberedStaticBrokers() : document.brokers();
        Set<Integer> brokerIds = new HashSet<>();
        brokers.forEach(b -> brokerIds.add(b.id()));
        TopologySnapshot snapshot = document.topology(brokers, partitionOwners(ranges.get(1), brokerIds, last.snapshot()));
        return new EtcdRead(snapshot, document, groupOwners(ranges.get(2), brokerIds), answer.getHeader().getRevision(),
                documentGood && !brokers.isEmpty());
    }

    private Map<String, Map<Integer, Integer>> partitionOwners(GetResponse leases, Set<Integer> brokerIds,
                                                              TopologySnapshot previous) {
        Map<String, Map<Integer, Integer>> owners = new HashMap<>();
        for (KeyValue kv : leases.getKvs()) {
            String key = text(kv.getKey());
            var parsed = KafscaleKeys.partitionLease(key);
            var owner = KafscaleKeys.brokerId(text(kv.getValue()));
            if (parsed.isEmpty() || owner.isEmpty()) {
                badData.report("lease_key", key + "=" + text(kv.getValue()), "is not a partition lease; ignored");
                continue;
            }
            String topic = parsed.get().topic();
            int partition = parsed.get().partition();
            int id = owner.get();
            if (!brokerIds.contains(id)) {
                badData.report("lease_owner", key + "=" + id,
                        "names a broker the snapshot does not list; keeping the last owner");
                var kept = previous.owner(topic, partition);
                if (kept.isEmpty()) {
                    continue;
                }
                id = kept.getAsInt();
            }
            owners.computeIfAbsent(topic, t -> new HashMap<>()).put(partition, id);
        }
        return owners;
    }

    private Map<String, Integer> groupOwners(GetResponse leases, Set<Integer> brokerIds) {
        Map<String, Integer> owners = new HashMap<>();
        for (KeyValue kv : leases.getKvs()) {
            String key = text(kv.getKey());
            var group = KafscaleKeys.groupLease(key);
            var owner = KafscaleKeys.brokerId(text(kv.getValue()));
            if (group.isEmpty() || owner.isEmpty()) {
                badData.report("lease_key", key + "=" + text(kv.getValue()), "is not a group lease; ignored");
            } else if (!brokerIds.contains(owner.get())) {
                badData.report("lease_owner", key + "=" + owner.get(), "names a broker the snapshot does not list; ignored");
            } else {
                owners.put(group.get(), owner.get());
            }
        }
        return Map.copyOf(owners);
    }

    private List<BrokerEndpoint> numberedStaticBrokers() {
        List<BrokerEndpoint> numbered = new ArrayList<>();
        for (int i = 0; i < staticBrokers.size(); i++) {
            BrokerEndpoint b = staticBrokers.get(i);
            numbered.add(new BrokerEndpoint(i, b.host(), b.port(), null));
        }
        return numbered;
    }

    static ByteSequence bytes(String s) {
        return ByteSequence.from(s, StandardCharsets.UTF_8);
    }

    private static String text(ByteSequence bytes) {
        return bytes.toString(StandardCharsets.UTF_8);
    }
}
