package org.kafscale.proxy.bench.soak;

import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.common.TopicPartition;

/**
 * Read-only admin calls through one proxy replica, one round a second: describeTopics,
 * describeCluster, listOffsets (latest, every partition) and describeConsumerGroups. Each call
 * kind is a {@link Workload} of its own (its last success), and its failures are counted: during
 * chaos a call may fail, after it every kind must succeed again.
 */
final class AdminCalls implements AutoCloseable {
    /** The calls of one round. */
    enum Call {
        DESCRIBE_TOPICS("describeTopics"), DESCRIBE_CLUSTER("describeCluster"), LIST_OFFSETS("listOffsets"),
        DESCRIBE_GROUPS("describeConsumerGroups");

        final String apiName;

        Call(String apiName) {
            this.apiName = apiName;
        }
    }

    private static final long CALL_SECONDS = 20;

    private final Admin admin;
    private final List<String> topics;
    private final int partitions;
    private final List<String> groups;
    private final Map<Call, AtomicLong> lastSuccess = new EnumMap<>(Call.class);
    private final Map<Call, AtomicLong> succeeded = new EnumMap<>(Call.class);
    private final Map<Call, AtomicLong> failed = new EnumMap<>(Call.class);
    private final Thread thread;
    private volatile boolean stopped;

    AdminCalls(String bootstrap, List<String> topics, int partitions, List<String> groups) {
        this.admin = Admin.create(Map.of(
                AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap,
                AdminClientConfig.CLIENT_ID_CONFIG, "soak-admin",
                AdminClientConfig.REQUEST_TIMEOUT_MS_CONFIG, 15_000,
                AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, (int) TimeUnit.SECONDS.toMillis(CALL_SECONDS)));
        this.topics = List.copyOf(topics);
        this.partitions = partitions;
        this.groups = List.copyOf(groups);
        for (Call call : Call.values()) {
            lastSuccess.put(call, new AtomicLong(System.nanoTime()));
            succeeded.put(call, new AtomicLong());
            failed.put(call, new AtomicLong());
        }
        this.thread = new Thread(this::run, "soak-admin");
        thread.setDaemon(true);
    }

    void start() {
        thread.start();
    }

    private void run() {
        while (!stopped) {
            for (Call call : Call.values()) {
                try {
                    perform(call);
                    lastSuccess.get(call).set(System.nanoTime());
                    succeeded.get(call).incrementAndGet();
                } catch (InterruptedException e) {
                    return;
                } catch (Exception e) {
                    failed.get(call).incrementAndGet(); // broker or replica down: the next round asks again
                }
            }
            try {
                Thread.sleep(1000);
            } catch (InterruptedException e) {
                return;
            }
        }
    }

    private void perform(Call call) throws Exception {
        switch (call) {
            case DESCRIBE_TOPICS -> admin.describeTopics(topics).allTopicNames().get(CALL_SECONDS, TimeUnit.SECONDS);
            case DESCRIBE_CLUSTER -> admin.describeCluster().nodes().get(CALL_SECONDS, TimeUnit.SECONDS);
            case LIST_OFFSETS -> {
                Map<TopicPartition, OffsetSpec> latest = new java.util.HashMap<>();
                for (int p = 0; p < partitions; p++) {
                    latest.put(new TopicPartition(topics.get(0), p), OffsetSpec.latest());
                }
                admin.listOffsets(latest).all().get(CALL_SECONDS, TimeUnit.SECONDS);
            }
            case DESCRIBE_GROUPS -> admin.describeConsumerGroups(groups).all().get(CALL_SECONDS, TimeUnit.SECONDS);
        }
    }

    /** One workload per call kind, for the recovery wait after each chaos event. */
    List<Workload> workloads() {
        List<Workload> workloads = new ArrayList<>();
        for (Call call : Call.values()) {
            workloads.add(new Workload() {
                @Override
                public String name() {
                    return "admin " + call.apiName;
                }

                @Override
                public long lastSuccessNanos() {
                    return lastSuccess.get(call).get();
                }
            });
        }
        return workloads;
    }

    long succeeded(Call call) {
        return succeeded.get(call).get();
    }

    long failed(Call call) {
        return failed.get(call).get();
    }

    long succeededTotal() {
        return succeeded.values().stream().mapToLong(AtomicLong::get).sum();
    }

    @Override
    public void close() throws InterruptedException {
        stopped = true;
        thread.interrupt();
        thread.join();
        admin.close(Duration.ofSeconds(10));
    }
}
