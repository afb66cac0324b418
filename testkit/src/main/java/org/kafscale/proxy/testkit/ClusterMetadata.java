package org.kafscale.proxy.testkit;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.stream.Collectors;

import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.ListTopicsOptions;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.common.KafkaFuture;
import org.apache.kafka.common.Node;
import org.apache.kafka.common.TopicPartitionInfo;

/**
 * Reads cluster metadata through an admin client, as a client would see it.
 *
 * <p>Admin failures here are test-setup failures, so they surface as unchecked exceptions with
 * the broker's message rather than as checked ExecutionExceptions in every caller.
 */
final class ClusterMetadata {

    private static final long CALL_SECONDS = 30;

    private final Admin admin;

    ClusterMetadata(Admin admin) {
        this.admin = admin;
    }

    /** Registered, unfenced brokers by id, as {@code host:port} they advertise. */
    Map<Integer, String> liveBrokers() {
        Map<Integer, String> brokers = new TreeMap<>();
        for (Node node : call(admin.describeCluster().nodes())) {
            brokers.put(node.id(), node.host() + ":" + node.port());
        }
        return brokers;
    }

    Set<Integer> liveBrokerIds() {
        return liveBrokers().keySet();
    }

    TopicDescription describe(String topic) {
        return call(admin.describeTopics(List.of(topic)).allTopicNames()).get(topic);
    }

    /** Partition to leader id; {@link KafkaCluster#NO_LEADER} where a partition has none. */
    static Map<Integer, Integer> leadersOf(TopicDescription description) {
        Map<Integer, Integer> leaders = new TreeMap<>();
        for (TopicPartitionInfo partition : description.partitions()) {
            Node leader = partition.leader();
            leaders.put(partition.partition(), leader == null || leader.isEmpty() ? KafkaCluster.NO_LEADER : leader.id());
        }
        return leaders;
    }

    /**
     * Partitions (of all topics, internal ones included) whose only replica is {@code brokerId}
     * and that have no leader, as {@code topic-partition}.
     */
    List<String> leaderlessPartitionsOnlyOn(int brokerId) {
        Set<String> names = call(admin.listTopics(new ListTopicsOptions().listInternal(true)).names());
        List<String> waiting = new ArrayList<>();
        for (TopicDescription topic : call(admin.describeTopics(names).allTopicNames()).values()) {
            for (TopicPartitionInfo partition : topic.partitions()) {
                boolean onlyOnBroker = partition.replicas().size() == 1 && partition.replicas().get(0).id() == brokerId;
                if (onlyOnBroker && partition.leader() == null) {
                    waiting.add(topic.name() + "-" + partition.partition());
                }
            }
        }
        return waiting.stream().sorted().collect(Collectors.toList());
    }

    static <T> T call(KafkaFuture<T> future) {
        try {
            return future.get(CALL_SECONDS, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while waiting for the admin client", e);
        } catch (ExecutionException e) {
            throw new IllegalStateException("admin call failed: " + e.getCause().getMessage(), e.getCause());
        } catch (TimeoutException e) {
            throw new IllegalStateException("admin call did not complete within " + CALL_SECONDS + " s", e);
        }
    }
}
