package org.kafscale.proxy.bench.soak;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Random;
import java.util.Set;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewPartitionReassignment;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.common.ElectionType;
import org.apache.kafka.common.Node;
import org.apache.kafka.common.TopicPartition;
import org.kafscale.proxy.testkit.EtcdProcess;
import org.kafscale.proxy.testkit.FaultyRelay;
import org.kafscale.proxy.testkit.KafkaCluster;

/**
 * The soak's chaos actions, each bounded and undone before it returns:
 * <ul>
 *   <li>a broker stopped (controlled shutdown), down for 5-15 s, started again;</li>
 *   <li>a partition's leader moved to another replica (its replica list rotated, then a
 *       preferred-leader election);</li>
 *   <li>etcd stopped for 3-10 s (less than the proxies' topology TTL) and started again;</li>
 *   <li>a proxy replica sent SIGTERM (it drains) and started again on its ports;</li>
 *   <li>a misbehaving client (the security review's probes, bounded): a frame of garbage, a size
 *       prefix of 2 GiB, half a frame left hanging, and a burst of connections opened and
 *       dropped;</li>
 *   <li>the fault relay in front of one broker (on the etcd replica's path to it: the snapshot
 *       lists the broker at the relay's address) truncates one Fetch answer mid-frame (a whole
 *       frame of half the size, or the size and half the body and the connection closed), or
 *       holds every answer for 3-10 s and then delivers them.</li>
 * </ul>
 */
final class SoakChaos implements Chaos.Actions {
    private final KafkaCluster cluster;
    private final EtcdProcess etcd;
    private final List<ProxyReplica> replicas;
    private final String topic;
    private final FaultyRelay relay;
    private final int relayedBroker;

    SoakChaos(KafkaCluster cluster, EtcdProcess etcd, List<ProxyReplica> replicas, String topic, FaultyRelay relay,
              int relayedBroker) {
        this.cluster = cluster;
        this.etcd = etcd;
        this.replicas = List.copyOf(replicas);
        this.topic = topic;
        this.relay = relay;
        this.relayedBroker = relayedBroker;
    }

    @Override
    public String perform(Chaos.Kind kind, Random random) throws Exception {
        return switch (kind) {
            case BROKER_RESTART -> brokerRestart(random);
            case LEADER_MOVE -> leaderMove(random);
            case ETCD_RESTART -> etcdRestart(random);
            case PROXY_RESTART -> proxyRestart(random);
            case MISBEHAVING_CLIENT -> misbehave(random);
            case RELAY_FAULT -> relayFault(random);
        };
    }

    /**
     * One fault of the relay, then healed: an armed fault hits the next Fetch answer from the
     * broker (waited for up to 30 s; a broker that leads nothing then gets no Fetch, and the fault
     * is disarmed and reported as not applied), a stall is over when this returns. A preferred
     * election first gives the broker back the partitions it prefers (after its restart it leads
     * none until the brokers' own election, every 5 minutes).
     */
    private String relayFault(Random random) throws InterruptedException {
        int choice = random.nextInt(3);
        electPreferredLeaders();
        if (choice == 2) {
            long millis = 3000 + random.nextInt(7000);
            relay.stall(millis);
            Thread.sleep(millis);
            return "broker " + relayedBroker + " answers stalled " + millis + " ms";
        }
        FaultyRelay.Fault fault = choice == 0 ? FaultyRelay.Fault.TRUNCATED_FRAME : FaultyRelay.Fault.CLOSE_MID_RESPONSE;
        relay.arm(fault);
        long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
        while (!relay.faultApplied() && System.nanoTime() < deadline) {
            Thread.sleep(100);
        }
        boolean applied = relay.faultApplied();
        if (!applied) {
            relay.arm(null);
        }
        return "broker " + relayedBroker + " " + fault + (applied ? " applied to a Fetch answer" : " not applied (no Fetch in 30 s)");
    }

    private String brokerRestart(Random random) throws InterruptedException {
        List<Integer> ids = cluster.brokerIds();
        int id = ids.get(random.nextInt(ids.size()));
        long downMillis = 5000 + random.nextInt(10_000);
        cluster.stopBroker(id);
        Thread.sleep(downMillis);
        cluster.restartBroker(id);
        return "broker " + id + " down " + downMillis + " ms";
    }

    private String leaderMove(Random random) throws Exception {
        Admin admin = cluster.admin();
        TopicDescription description = admin.describeTopics(List.of(topic)).allTopicNames().get().get(topic);
        var partition = description.partitions().get(random.nextInt(description.partitions().size()));
        List<Integer> replicasNow = new ArrayList<>(partition.replicas().stream().map(Node::id).toList());
        if (replicasNow.size() < 2) {
            return "partition " + partition.partition() + " has one replica: nothing to move";
        }
        // Rotate the replica list: the next replica becomes the preferred leader, then elect it.
        replicasNow.add(replicasNow.remove(0));
        TopicPartition tp = new TopicPartition(topic, partition.partition());
        admin.alterPartitionReassignments(Map.of(tp, Optional.of(new NewPartitionReassignment(replicasNow))))
                .all().get();
        long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
        while (!admin.listPartitionReassignments(Set.of(tp)).reassignments().get().isEmpty()) {
            if (System.nanoTime() > deadline) {
                throw new IllegalStateException("reassignment of " + tp + " not done within 30 s");
            }
            Thread.sleep(200);
        }
        admin.electLeaders(ElectionType.PREFERRED, Set.of(tp)).partitions().get();
        int from = partition.leader() == null ? -1 : partition.leader().id();
        return tp + " leader " + from + " -> " + replicasNow.get(0);
    }

    private void electPreferredLeaders() throws InterruptedException {
        try {
            cluster.admin().electLeaders(ElectionType.PREFERRED, null).partitions().get();
        } catch (java.util.concurrent.ExecutionException e) {
            // a broker still catching up: the fault then waits for a Fetch all the same
        }
    }

    private String etcdRestart(Random random) throws InterruptedException {
        long downMillis = 3000 + random.nextInt(7000);
        etcd.stop();
        Thread.sleep(downMillis);
        etcd.start();
        return "etcd down " + downMillis + " ms";
    }

    private String proxyRestart(Random random) throws Exception {
        ProxyReplica replica = replicas.get(random.nextInt(replicas.size()));
        replica.restart();
        return replica.name();
    }

    private String misbehave(Random random) throws IOException, InterruptedException {
        ProxyReplica replica = replicas.get(random.nextInt(replicas.size()));
        InetSocketAddress address = new InetSocketAddress("127.0.0.1", Integer.parseInt(
                replica.bootstrap().substring(replica.bootstrap().lastIndexOf(':') + 1)));
        byte[] garbage = new byte[64];
        random.nextBytes(garbage);
        probe(address, ByteBuffer.allocate(4 + garbage.length).putInt(garbage.length).put(garbage).array(), 0);
        probe(address, ByteBuffer.allocate(4).putInt(Integer.MAX_VALUE).array(), 0);
        probe(address, ByteBuffer.allocate(8).putInt(1000).putInt(0x00030000).array(), 5000);
        for (int i = 0; i < 50; i++) {
            new Socket(address.getAddress(), address.getPort()).close();
        }
        return replica.name() + ": garbage frame, 2 GiB size prefix, half a frame for 5 s, 50 dropped connections";
    }

    /** Writes {@code bytes}, waits up to {@code holdMillis} for the proxy to close, then closes. */
    private static void probe(InetSocketAddress address, byte[] bytes, long holdMillis) throws IOException {
        try (Socket socket = new Socket(address.getAddress(), address.getPort())) {
            socket.setSoTimeout((int) Math.max(holdMillis, 2000));
            OutputStream out = socket.getOutputStream();
            out.write(bytes);
            out.flush();
            InputStream in = socket.getInputStream();
            try {
                while (in.read() >= 0) {
                    // nothing a well-behaved proxy answers to these; read until it closes
                }
            } catch (IOException e) {
                // timed out holding, or reset: either way the probe is over
            }
        }
    }
}
