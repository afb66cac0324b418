package org.kafscale.proxy.testkit;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.Predicate;

import kafka.server.BrokerServer;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.admin.ScramCredentialInfo;
import org.apache.kafka.clients.admin.ScramMechanism;
import org.apache.kafka.clients.admin.UserScramCredentialAlteration;
import org.apache.kafka.clients.admin.UserScramCredentialUpsertion;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.test.KafkaClusterTestKit;
import org.apache.kafka.common.test.TestKitNodes;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A real KRaft Kafka cluster (1..n brokers plus one controller) inside the test JVM, built with
 * Kafka's own {@link KafkaClusterTestKit}.
 *
 * <p>The controller runs as its own node, so any broker can be stopped without losing the quorum.
 * Brokers listen on free ports; {@link #stopBroker} and {@link #restartBroker} keep a broker's
 * port, so clients that cached its address reconnect to it. Topics are created through the admin
 * client and every method that changes metadata waits until the cluster shows the change.
 */
public final class KafkaCluster implements AutoCloseable {

    /** The leader id {@link #leaders} reports for a partition that has no leader. */
    public static final int NO_LEADER = -1;

    private static final Logger LOGGER = LoggerFactory.getLogger(KafkaCluster.class);
    private static final Duration METADATA_DEADLINE = Duration.ofSeconds(30);
    private static final String HEARTBEAT_INTERVAL_MS = "500";
    private static final String SESSION_TIMEOUT_MS = "3000";
    /** Kafka's minimum: SCRAM users are made quickly, and their strength does not matter in a test. */
    private static final int SCRAM_ITERATIONS = 4096;

    private final KafkaClusterTestKit kit;
    private final BrokerSecurity security;
    /** Taken from metadata once all brokers are up; a restart keeps the port, so it stays valid. */
    private final Map<Integer, String> advertisedAddresses = new TreeMap<>();
    private Admin admin;

    private KafkaCluster(KafkaClusterTestKit kit, BrokerSecurity security) {
        this.kit = kit;
        this.security = security;
    }

    /**
     * Formats and starts a cluster of {@code brokers} brokers and returns once all are ready.
     * Internal topics get replication factor min(brokers, 3), so consumer groups and transactions
     * work with a single broker too.
     */
    public static KafkaCluster start(int brokers) {
        return start(brokers, Map.of());
    }

    /**
     * Like {@link #start(int)}, each broker also with the properties {@code brokerProperties} holds
     * for its id (brokers are numbered 0..brokers-1), such as {@code broker.rack}; brokers not named
     * get none.
     */
    public static KafkaCluster start(int brokers, Map<Integer, Map<String, String>> brokerProperties) {
        return start(brokers, brokerProperties, BrokerSecurity.plaintext());
    }

    /**
     * Like {@link #start(int)}, the brokers' client listener secured as {@code security} says
     * (SSL, SASL_PLAINTEXT, SASL_SSL); its SCRAM users are created before this returns. Clients
     * connect with {@link BrokerSecurity#clientProperties}; {@link #admin()} is the admin user.
     */
    public static KafkaCluster start(int brokers, BrokerSecurity security) {
        return start(brokers, Map.of(), security);
    }

    /** Both of the above: per-broker properties and a secured listener. */
    public static KafkaCluster start(int brokers, Map<Integer, Map<String, String>> brokerProperties,
                                     BrokerSecurity security) {
        if (brokers < 1) {
            throw new IllegalArgumentException("a cluster needs at least one broker, got " + brokers);
        }
        brokerProperties.keySet().stream().filter(id -> id < 0 || id >= brokers).findFirst().ifPresent(id -> {
            throw new IllegalArgumentException("no broker " + id + " in a cluster of " + brokers);
        });
        String replication = Integer.toString(Math.min(brokers, 3));
        KafkaClusterTestKit kit = null;
        try {
            TestKitNodes nodes = new TestKitNodes.Builder()
                    .setCombined(false)
                    .setNumControllerNodes(1)
                    .setNumBrokerNodes(brokers)
                    .setPerServerProperties(brokerProperties)
                    .build();
            KafkaClusterTestKit.Builder builder = new KafkaClusterTestKit.Builder(nodes);
            security.brokerProperties().forEach(builder::setConfigProp);
            kit = builder
                    .setDeleteOnClose(true)
                    .setConfigProp("offsets.topic.replication.factor", replication)
                    .setConfigProp("transaction.state.log.replication.factor", replication)
                    .setConfigProp("transaction.state.log.min.isr", "1")
                    .setConfigProp("group.initial.rebalance.delay.ms", "0")
                    .setConfigProp("auto.create.topics.enable", "true")
                    // A restarted broker registers under a new incarnation id, and the controller
                    // refuses it until the old session has expired (default 9 s). Faster heartbeats
                    // and a shorter session make a restart take ~3 s and a controlled shutdown <1 s.
                    .setConfigProp("broker.heartbeat.interval.ms", HEARTBEAT_INTERVAL_MS)
                    .setConfigProp("broker.session.timeout.ms", SESSION_TIMEOUT_MS)
                    .build();
            kit.format();
            kit.startup();
            kit.waitForReadyBrokers();
        } catch (Exception e) {
            closeQuietly(kit);
            if (e instanceof InterruptedException) {
                Thread.currentThread().interrupt();
            }
            throw new IllegalStateException("cannot start a Kafka cluster of " + brokers + " broker(s)", e);
        }
        KafkaCluster cluster = new KafkaCluster(kit, security);
        try {
            cluster.recordAdvertisedAddresses();
            cluster.createScramUsers();
        } catch (RuntimeException | Error e) {
            cluster.close();
            throw e;
        }
        LOGGER.info("Kafka cluster ready: brokers {} at {} ({})", cluster.brokerIds(), cluster.bootstrapServers(),
                security.protocol());
        return cluster;
    }

    /** Comma-separated {@code host:port} of all brokers (running or not). */
    public String bootstrapServers() {
        return kit.bootstrapServers();
    }

    /** How the brokers' client listener is secured. */
    public BrokerSecurity security() {
        return security;
    }

    /** Broker node ids, ascending. */
    public List<Integer> brokerIds() {
        return List.copyOf(new TreeMap<>(kit.brokers()).keySet());
    }

    /** {@code host:port} exactly as broker {@code id} advertises itself in metadata; stable across restarts. */
    public String brokerAddress(int id) {
        String address = advertisedAddresses.get(id);
        if (address == null) {
            throw new IllegalArgumentException("no broker " + id + "; brokers are " + brokerIds());
        }
        return address;
    }

    /** Creates a topic with replication factor min(brokers, 3) and waits until every partition has a leader. */
    public void createTopic(String name, int partitions) {
        short replication = (short) Math.min(kit.brokers().size(), 3);
        createAndAwait(new NewTopic(name, partitions, replication), description -> true);
    }

    /**
     * Creates a topic whose partition {@code p} has a single replica, on broker
     * {@code leaderByPartition.get(p)}, and waits until every partition is led by that broker.
     * Partitions must be numbered 0..n-1.
     */
    public void createTopic(String name, Map<Integer, Integer> leaderByPartition) {
        Map<Integer, List<Integer>> assignment = new TreeMap<>();
        leaderByPartition.forEach((partition, broker) -> assignment.put(partition, List.of(broker)));
        createAndAwait(new NewTopic(name, assignment), description -> ClusterMetadata.leadersOf(description).equals(new TreeMap<>(leaderByPartition)));
    }

    /** Partition to leader broker id, {@link #NO_LEADER} for a partition without a leader. */
    public Map<Integer, Integer> leaders(String topic) {
        return ClusterMetadata.leadersOf(metadata().describe(topic));
    }

    /**
     * The broker Kafka makes a group's coordinator: the leader of the offsets-topic partition the
     * group id hashes to (creating the offsets topic first if needed). A KafScale group lease for a
     * real Kafka cluster must name this broker.
     */
    public int groupCoordinator(String group) {
        ClusterMetadata.call(admin().listConsumerGroupOffsets(group).partitionsToOffsetAndMetadata());
        Map<Integer, Integer> leaders = leaders("__consumer_offsets");
        return leaders.get(org.apache.kafka.common.utils.Utils.abs(group.hashCode()) % leaders.size());
    }

    public Uuid topicId(String topic) {
        return metadata().describe(topic).topicId();
    }

    /**
     * Shuts broker {@code id} down (controlled shutdown) and waits until the cluster no longer lists
     * it. Its partitions with a single replica are left without a leader.
     */
    public void stopBroker(int id) {
        BrokerServer broker = broker(id);
        LOGGER.info("stopping broker {}", id);
        broker.shutdown();
        broker.awaitShutdown();
        Eventually.await(METADATA_DEADLINE, "broker " + id + " to leave the cluster metadata",
                () -> !metadata().liveBrokerIds().contains(id));
    }

    /**
     * Starts a stopped broker again on the same port and log directories, and waits until it is
     * registered and leads again every partition it is the only replica of.
     *
     * <p>The test kit keeps the broker's {@link BrokerServer}; it can be started again after a
     * shutdown, and the kit's socket factory rebinds the port it first handed out when the
     * original socket has been closed. The controller accepts the new registration only once the
     * old broker session has expired, so this takes about the session timeout (3 s).
     */
    public void restartBroker(int id) {
        BrokerServer broker = broker(id);
        if (!broker.isShutdown()) {
            stopBroker(id);
        }
        LOGGER.info("restarting broker {} at {}", id, brokerAddress(id));
        broker.startup();
        Eventually.await(METADATA_DEADLINE, "broker " + id + " to rejoin the cluster metadata",
                () -> metadata().liveBrokerIds().contains(id));
        Eventually.await(METADATA_DEADLINE, "broker " + id + " to lead its single-replica partitions again",
                () -> metadata().leaderlessPartitionsOnlyOn(id).isEmpty());
    }

    /**
     * The partition's current leader epoch, as a running broker's metadata cache holds it (the
     * admin client does not report epochs); 0 when no running broker knows the partition.
     */
    public int leaderEpoch(String topic, int partition) {
        for (BrokerServer broker : kit.brokers().values()) {
            if (!broker.isShutdown()) {
                var leaderAndIsr = broker.metadataCache().getLeaderAndIsr(topic, partition);
                if (leaderAndIsr.isPresent()) {
                    return leaderAndIsr.get().leaderEpoch();
                }
            }
        }
        return 0;
    }

    /** A shared admin client, created on first use and closed with the cluster. */
    public synchronized Admin admin() {
        if (admin == null) {
            Map<String, Object> config = new java.util.HashMap<>(security.adminClientProperties());
            config.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers());
            admin = Admin.create(config);
        }
        return admin;
    }

    /** Stops every node and deletes the cluster's directories. */
    @Override
    public synchronized void close() {
        if (admin != null) {
            admin.close(Duration.ofSeconds(5));
            admin = null;
        }
        closeQuietly(kit);
    }

    /** Waits until metadata lists every broker (the answering broker may lag a moment), then keeps their addresses. */
    private void recordAdvertisedAddresses() {
        Eventually.await(METADATA_DEADLINE, "metadata to list brokers " + brokerIds(),
                () -> metadata().liveBrokerIds().containsAll(brokerIds()));
        advertisedAddresses.putAll(metadata().liveBrokers());
    }

    /** Gives each SCRAM user of {@link #security} both SCRAM credentials, and waits until every broker has them. */
    private void createScramUsers() {
        if (security.scramUsers().isEmpty()) {
            return;
        }
        // Kafka refuses two alterations of one user in one request, so one request per mechanism.
        for (ScramMechanism mechanism : List.of(ScramMechanism.SCRAM_SHA_256, ScramMechanism.SCRAM_SHA_512)) {
            List<UserScramCredentialAlteration> alterations = new java.util.ArrayList<>();
            security.scramUsers().forEach((user, password) -> alterations.add(new UserScramCredentialUpsertion(user,
                    new ScramCredentialInfo(mechanism, SCRAM_ITERATIONS), password)));
            ClusterMetadata.call(admin().alterUserScramCredentials(alterations).all());
        }
        // The credentials reach each broker through the metadata log; a client may connect to any.
        Eventually.await(METADATA_DEADLINE, "every broker to know SCRAM users " + security.scramUsers().keySet(),
                () -> kit.brokers().values().stream().allMatch(broker -> security.scramUsers().keySet().stream()
                        .allMatch(user -> broker.credentialProvider().credentialCache
                                .cache(ScramMechanism.SCRAM_SHA_512.mechanismName(),
                                        org.apache.kafka.common.security.scram.ScramCredential.class)
                                .get(user) != null)));
    }

    private void createAndAwait(NewTopic topic, Predicate<TopicDescription> placedAsAsked) {
        ClusterMetadata.call(admin().createTopics(List.of(topic)).all());
        Eventually.await(METADATA_DEADLINE, "topic " + topic.name() + " to have a leader for every partition as requested", () -> {
            TopicDescription description = metadata().describe(topic.name());
            return !ClusterMetadata.leadersOf(description).containsValue(NO_LEADER) && placedAsAsked.test(description);
        });
        awaitServing(topic.name());
    }

    /**
     * Waits until every partition's leader serves it. Metadata names a leader before that broker
     * has the partition online; a Produce in between gets NOT_LEADER_OR_FOLLOWER, and an
     * idempotent producer whose next pipelined batch then lands first stays stuck on
     * OUT_OF_ORDER_SEQUENCE_NUMBER. Tests that create a topic and produce at once would race that.
     */
    private void awaitServing(String topic) {
        Eventually.await(METADATA_DEADLINE, "every partition of " + topic + " to be served by its leader", () -> {
            Map<TopicPartition, OffsetSpec> latest = new java.util.HashMap<>();
            leaders(topic).keySet().forEach(p -> latest.put(new TopicPartition(topic, p), OffsetSpec.latest()));
            admin().listOffsets(latest).all().get(METADATA_DEADLINE.toSeconds(), java.util.concurrent.TimeUnit.SECONDS);
        });
    }

    private ClusterMetadata metadata() {
        return new ClusterMetadata(admin());
    }

    private BrokerServer broker(int id) {
        BrokerServer broker = kit.brokers().get(id);
        if (broker == null) {
            throw new IllegalArgumentException("no broker " + id + "; brokers are " + brokerIds());
        }
        return broker;
    }

    private static void closeQuietly(KafkaClusterTestKit kit) {
        if (kit == null) {
            return;
        }
        try {
            kit.close();
        } catch (Exception e) {
            LOGGER.warn("Kafka test kit did not close cleanly", e);
        }
    }
}
