package org.kafscale.proxy.app.e2e;

import static org.junit.jupiter.api.Assertions.assertAll;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.kafscale.proxy.app.e2e.KafkaTool.CONFIGS;
import static org.kafscale.proxy.app.e2e.KafkaTool.CONSUMER_GROUPS;
import static org.kafscale.proxy.app.e2e.KafkaTool.DELETE_RECORDS;
import static org.kafscale.proxy.app.e2e.KafkaTool.FEATURES;
import static org.kafscale.proxy.app.e2e.KafkaTool.GET_OFFSETS;
import static org.kafscale.proxy.app.e2e.KafkaTool.LEADER_ELECTION;
import static org.kafscale.proxy.app.e2e.KafkaTool.TOPICS;
import static org.kafscale.proxy.app.e2e.KafkaTool.TRANSACTIONS;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import java.util.function.ToIntFunction;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.kafscale.proxy.testkit.Eventually;
import org.kafscale.proxy.testkit.KafkaCluster;
import org.kafscale.proxy.testkit.KafkaClusterExtension;

/**
 * Kafka's own command-line tools, the way an operator types them, with {@code --bootstrap-server}
 * of the proxy and of the brokers: the outputs must be the same once addresses, topic ids and
 * column padding are masked ({@link SideBySide}). Where a command changes state, each side works
 * on its own twin (a topic or group named {@code ...-direct} or {@code ...-proxy}) so neither
 * run can pass on the other's work.
 *
 * <p>In {@code single} mode the proxy is one broker, node 0: partition leaders, replicas, ISRs
 * and coordinators all read 0 and a topic's replication factor 1. Those tests expect exactly that
 * difference ({@link #describedAsAdvertised}, {@link #column}), no other.
 */
class KafkaToolsIT {
    @RegisterExtension
    static final KafkaClusterExtension KAFKA = KafkaClusterExtension.withBrokers(3);

    /** How long a change made by one command may take to show in the next (metadata propagation). */
    private static final Duration SETTLE = Duration.ofSeconds(15);
    private static final String READ_TOPIC = "tools-read";
    private static final String TXN_TOPIC = "tools-txn-topic";
    private static final String LAGGING_GROUP = "tools-lagging";
    private static final int PARTITIONS = 3;
    private static final int RECORDS_PER_PARTITION = 10;
    private static final long COMMITTED = 4;

    @TempDir
    static Path dir;

    private static KafkaCluster cluster;
    private static final Map<String, RunningProxy> PROXIES = new HashMap<>();
    /**
     * A group with a live member and a transactional id with an open transaction, each picked so
     * that broker 0 is not its coordinator: in single mode the coordinator the proxy shows (node 0)
     * then differs from the real one, which is what the single-mode comparisons check.
     */
    private static String activeGroup;
    private static String txnId;
    private static KafkaProducer<String, String> openTransaction;
    private static KafkaConsumer<String, String> activeMember;

    @BeforeAll
    static void start() throws Exception {
        cluster = KAFKA.cluster();
        // Given: a topic with records, a group that has committed part of them (lag), a group with
        // a live member, and a transaction left open
        cluster.createTopic(READ_TOPIC, PARTITIONS);
        RecordRoundTrip.produce(cluster.bootstrapServers(), READ_TOPIC, PARTITIONS, PARTITIONS * RECORDS_PER_PARTITION);
        commit(LAGGING_GROUP);
        activeGroup = notCoordinatedByBrokerZero("tools-active-", cluster::groupCoordinator);
        activeMember = liveMember();
        cluster.createTopic(TXN_TOPIC, PARTITIONS);
        openTransaction = openTransactionNotCoordinatedByBrokerZero();
        for (String mode : List.of("single", "brokers")) {
            PROXIES.put(mode, RunningProxy.start(cluster, mode));
        }
    }

    @AfterAll
    static void stop() {
        PROXIES.values().forEach(RunningProxy::close);
        if (openTransaction != null) {
            openTransaction.close(Duration.ZERO);
        }
        if (activeMember != null) {
            activeMember.close(Duration.ZERO);
        }
    }

    // ----------------------------------------------------------------------------- kafka-topics

    @ParameterizedTest(name = "advertise mode {0}")
    @ValueSource(strings = {"single", "brokers"})
    void topicsCreateDescribeAlterAndDeleteATopic(String mode) {
        SideBySide tools = tools(mode);
        String direct = "tools-created-direct-" + mode;
        String proxied = "tools-created-proxy-" + mode;
        String twin = "tools-created-" + mode;

        String[] create = {"--create", "--replica-assignment", "0:1:2,1:2:0,2:0:1", "--topic"};
        String[] alter = {"--alter", "--partitions", "6", "--replica-assignment",
            "0:1:2,1:2:0,2:0:1,0:1:2,1:2:0,2:0:1", "--topic"};
        Function<String, String> describedDirect = name -> tools.direct(TOPICS, "--describe", "--topic", name).replace(name, twin);
        Function<String, String> describedProxied = name -> tools.proxied(TOPICS, "--describe", "--topic", name).replace(name, twin);
        // Each step is checked and the next one still runs, so one broken step does not hide the others.
        assertAll("kafka-topics create, list, describe, alter, delete",
                // create (the twins get the same replicas, so that their descriptions can be compared)
                () -> assertEquals(tools.direct(TOPICS, with(create, direct)).replace(direct, twin),
                        tools.proxied(TOPICS, with(create, proxied)).replace(proxied, twin), "create"),
                () -> Eventually.await(SETTLE, "list shows both new topics", () -> {
                    String listed = tools.proxied(TOPICS, "--list");
                    assertTrue(listed.contains(direct) && listed.contains(proxied), listed);
                    assertEquals(tools.direct(TOPICS, "--list"), listed, "list");
                }),
                () -> {
                    awaitPartitions(() -> describedProxied.apply(proxied), 3);
                    assertEquals(describedAsAdvertised(mode, describedDirect.apply(direct)), describedProxied.apply(proxied), "describe");
                },
                () -> assertEquals(tools.direct(TOPICS, with(alter, direct)).replace(direct, twin),
                        tools.proxied(TOPICS, with(alter, proxied)).replace(proxied, twin), "alter partitions"),
                () -> {
                    awaitPartitions(() -> describedDirect.apply(direct), 6);
                    awaitPartitions(() -> describedProxied.apply(proxied), 6);
                    assertEquals(describedAsAdvertised(mode, describedDirect.apply(direct)), describedProxied.apply(proxied),
                            "describe after alter");
                },
                () -> assertEquals(tools.direct(TOPICS, "--delete", "--topic", direct).replace(direct, twin),
                        tools.proxied(TOPICS, "--delete", "--topic", proxied).replace(proxied, twin), "delete"),
                () -> Eventually.await(SETTLE, "both deleted topics gone from the list", () -> {
                    String listed = tools.proxied(TOPICS, "--list");
                    assertTrue(!listed.contains(direct) && !listed.contains(proxied), listed);
                    assertEquals(tools.direct(TOPICS, "--list"), listed, "list after delete");
                }));
    }

    /** Waits until a description shows {@code partitions} partitions, each with a leader. */
    private static void awaitPartitions(Text description, int partitions) {
        Eventually.await(SETTLE, partitions + " partitions with leaders", () -> {
            String described = description.get();
            assertTrue(described.contains("PartitionCount: " + partitions) && !described.contains("Leader: none"), described);
        });
    }

    @ParameterizedTest(name = "advertise mode {0}")
    @ValueSource(strings = {"single", "brokers"})
    void topicsDescribeShowsReplicasAsEachModeAdvertisesThem(String mode) {
        SideBySide tools = tools(mode);
        String described = tools.direct(TOPICS, "--describe", "--topic", READ_TOPIC);
        assertTrue(described.contains("ReplicationFactor: 3"), described);
        assertEquals(describedAsAdvertised(mode, described), tools.proxied(TOPICS, "--describe", "--topic", READ_TOPIC));
    }

    // ---------------------------------------------------------------------- kafka-consumer-groups

    @ParameterizedTest(name = "advertise mode {0}")
    @ValueSource(strings = {"single", "brokers"})
    void consumerGroupsList(String mode) {
        SideBySide tools = tools(mode);
        String listed = tools.proxied(CONSUMER_GROUPS, "--list");
        assertTrue(listed.contains(LAGGING_GROUP) && listed.contains(activeGroup), listed);
        assertEquals(tools.direct(CONSUMER_GROUPS, "--list"), listed);
    }

    @ParameterizedTest(name = "advertise mode {0}")
    @ValueSource(strings = {"single", "brokers"})
    void consumerGroupsDescribeWithLag(String mode) {
        SideBySide tools = tools(mode);
        for (String group : List.of(LAGGING_GROUP, activeGroup)) {
            String direct = tools.direct(CONSUMER_GROUPS, "--describe", "--group", group);
            assertTrue(direct.contains(READ_TOPIC + " 0 " + COMMITTED + " " + RECORDS_PER_PARTITION), direct);
            assertEquals(direct, tools.proxied(CONSUMER_GROUPS, "--describe", "--group", group));
        }
    }

    @ParameterizedTest(name = "advertise mode {0}")
    @ValueSource(strings = {"single", "brokers"})
    void consumerGroupsDescribeStateAndMembers(String mode) {
        SideBySide tools = tools(mode);
        // GROUP COORDINATOR (ID) ASSIGNMENT-STRATEGY STATE #MEMBERS: the coordinator is the proxy's address
        // with the broker's id, in single mode with node 0
        String state = tools.direct(CONSUMER_GROUPS, "--describe", "--state", "--group", activeGroup);
        assertTrue(state.contains("Stable"), state);
        assertEquals(mode.equals("single") ? state.replaceAll("<kafka> \\(\\d+\\)", "<kafka> (0)") : state,
                tools.proxied(CONSUMER_GROUPS, "--describe", "--state", "--group", activeGroup));
        String members = tools.direct(CONSUMER_GROUPS, "--describe", "--members", "--group", activeGroup);
        assertTrue(members.contains("tools-member"), members);
        assertEquals(members, tools.proxied(CONSUMER_GROUPS, "--describe", "--members", "--group", activeGroup));
    }

    @ParameterizedTest(name = "advertise mode {0}")
    @ValueSource(strings = {"single", "brokers"})
    void consumerGroupsDescribeAllGroups(String mode) {
        SideBySide tools = tools(mode);
        assertEquals(tools.direct(CONSUMER_GROUPS, "--describe", "--all-groups"),
                tools.proxied(CONSUMER_GROUPS, "--describe", "--all-groups"));
    }

    @ParameterizedTest(name = "advertise mode {0}")
    @ValueSource(strings = {"single", "brokers"})
    void consumerGroupsResetOffsets(String mode) throws Exception {
        SideBySide tools = tools(mode);
        String direct = "tools-reset-direct-" + mode;
        String proxied = "tools-reset-proxy-" + mode;
        commit(direct);
        commit(proxied);
        String twin = "tools-reset-" + mode;
        String reset = tools.direct(CONSUMER_GROUPS, "--reset-offsets", "--group", direct, "--topic", READ_TOPIC,
                "--to-earliest", "--execute").replace(direct, twin);
        assertTrue(reset.contains(READ_TOPIC + " 0 0"), reset);
        assertEquals(reset, tools.proxied(CONSUMER_GROUPS, "--reset-offsets", "--group", proxied, "--topic", READ_TOPIC,
                "--to-earliest", "--execute").replace(proxied, twin));
        // the reset is what a describe through the proxy then shows
        assertEquals(tools.direct(CONSUMER_GROUPS, "--describe", "--group", direct).replace(direct, twin),
                tools.proxied(CONSUMER_GROUPS, "--describe", "--group", proxied).replace(proxied, twin));
    }

    @ParameterizedTest(name = "advertise mode {0}")
    @ValueSource(strings = {"single", "brokers"})
    void consumerGroupsDelete(String mode) throws Exception {
        SideBySide tools = tools(mode);
        String direct = "tools-deleted-direct-" + mode;
        String proxied = "tools-deleted-proxy-" + mode;
        commit(direct);
        commit(proxied);
        String twin = "tools-deleted-" + mode;
        String deleted = tools.direct(CONSUMER_GROUPS, "--delete", "--group", direct).replace(direct, twin);
        assertTrue(deleted.contains("successful"), deleted);
        assertEquals(deleted, tools.proxied(CONSUMER_GROUPS, "--delete", "--group", proxied).replace(proxied, twin));
        String listed = tools.proxied(CONSUMER_GROUPS, "--list");
        assertTrue(!listed.contains(proxied), listed);
    }

    // ----------------------------------------------------------------------------- kafka-configs

    @ParameterizedTest(name = "advertise mode {0}")
    @ValueSource(strings = {"single", "brokers"})
    void configsOfATopicDescribedAndAltered(String mode) {
        SideBySide tools = tools(mode);
        String direct = "tools-configured-direct-" + mode;
        String proxied = "tools-configured-proxy-" + mode;
        cluster.createTopic(direct, 1);
        cluster.createTopic(proxied, 1);
        String twin = "tools-configured-" + mode;
        String[] describeAll = {"--describe", "--all", "--entity-type", "topics", "--entity-name", READ_TOPIC};
        assertEquals(tools.direct(CONFIGS, describeAll), tools.proxied(CONFIGS, describeAll));
        String[] alter = {"--alter", "--entity-type", "topics", "--add-config", "retention.ms=7654321,cleanup.policy=compact"};
        assertEquals(tools.direct(CONFIGS, with(alter, "--entity-name", direct)).replace(direct, twin),
                tools.proxied(CONFIGS, with(alter, "--entity-name", proxied)).replace(proxied, twin));
        awaitSame(SETTLE, "the altered topic configs", () -> {
            String described = tools.direct(CONFIGS, "--describe", "--entity-type", "topics", "--entity-name", direct)
                    .replace(direct, twin);
            assertTrue(described.contains("retention.ms=7654321"), described);
            return described;
        }, () -> tools.proxied(CONFIGS, "--describe", "--entity-type", "topics", "--entity-name", proxied)
                .replace(proxied, twin));
    }

    @ParameterizedTest(name = "advertise mode {0}")
    @ValueSource(strings = {"single", "brokers"})
    void configsOfBrokerZeroDescribedAndAltered(String mode) {
        brokerConfigsDescribedAndAltered(tools(mode), "0", "15001");
    }

    /** Only the brokers mode advertises broker 1 (in single mode the proxy is broker 0 alone). */
    @ParameterizedTest(name = "advertise mode {0}")
    @ValueSource(strings = {"brokers"})
    void configsOfBrokerOneDescribedAndAltered(String mode) {
        brokerConfigsDescribedAndAltered(tools(mode), "1", "15002");
    }

    private static void brokerConfigsDescribedAndAltered(SideBySide tools, String broker, String backoff) {
        String[] describe = {"--describe", "--entity-type", "brokers", "--entity-name", broker};
        String[] alter = {"--alter", "--entity-type", "brokers", "--entity-name", broker, "--add-config",
            "log.cleaner.backoff.ms=" + backoff};
        // Both sides set the same dynamic value on the same broker; a side that reached another
        // broker (or none) shows a different describe.
        assertEquals(tools.direct(CONFIGS, alter), tools.proxied(CONFIGS, alter));
        awaitSame(SETTLE, "the dynamic config of broker " + broker, () -> {
            String described = tools.direct(CONFIGS, describe);
            assertTrue(described.contains("log.cleaner.backoff.ms=" + backoff), described);
            return described;
        }, () -> tools.proxied(CONFIGS, describe));
    }

    // ------------------------------------------------------------------------ kafka-transactions

    /**
     * Single mode only: in {@code brokers} mode the tool asks every broker id, all at the proxy's one
     * address, and the proxy cannot tell which id a connection is for, so each answers the merged
     * list and the tool prints every transaction once per broker (docs/architecture.md, Admin APIs;
     * a port per broker removes this).
     */
    @ParameterizedTest(name = "advertise mode {0}")
    @ValueSource(strings = {"single"})
    void transactionsList(String mode) {
        SideBySide tools = tools(mode);
        String listed = tools.direct(TRANSACTIONS, "list");
        assertTrue(listed.contains(txnId + " "), listed);
        // TransactionalId Coordinator ProducerId TransactionState, in the order the brokers answered
        assertEquals(sortedLines(column(mode, listed, "TransactionalId", 1, "0")), sortedLines(tools.proxied(TRANSACTIONS, "list")));
    }

    @ParameterizedTest(name = "advertise mode {0}")
    @ValueSource(strings = {"single", "brokers"})
    void transactionsDescribe(String mode) {
        SideBySide tools = tools(mode);
        String described = tools.direct(TRANSACTIONS, "describe", "--transactional-id", txnId);
        assertTrue(described.contains("Ongoing"), described);
        // CoordinatorId TransactionalId ProducerId ProducerEpoch TransactionState
        // CurrentTransactionTimeoutMs TransactionStartTimeMs TransactionDurationMs TopicPartitions
        String expected = column(mode, withDurationMasked(described), "CoordinatorId", 0, "0");
        assertEquals(expected, withDurationMasked(tools.proxied(TRANSACTIONS, "describe", "--transactional-id", txnId)));
    }

    @ParameterizedTest(name = "advertise mode {0}")
    @ValueSource(strings = {"single", "brokers"})
    void transactionsFindHanging(String mode) {
        SideBySide tools = tools(mode);
        String found = tools.direct(TRANSACTIONS, "find-hanging", "--topic", TXN_TOPIC);
        assertTrue(found.contains("\nexit 0"), found);
        assertEquals(found, tools.proxied(TRANSACTIONS, "find-hanging", "--topic", TXN_TOPIC));
    }

    // ---------------------------------------------------------- features, elections, records, offsets

    @ParameterizedTest(name = "advertise mode {0}")
    @ValueSource(strings = {"single", "brokers"})
    void featuresDescribe(String mode) {
        SideBySide tools = tools(mode);
        String described = withEpochMasked(tools.direct(FEATURES, "describe"));
        assertTrue(described.contains("Feature: transaction.version"), described);
        assertEquals(described, withEpochMasked(tools.proxied(FEATURES, "describe")));
    }

    @ParameterizedTest(name = "advertise mode {0}")
    @ValueSource(strings = {"single", "brokers"})
    void leaderElection(String mode) {
        SideBySide tools = tools(mode);
        String[] elect = {"--election-type", "PREFERRED", "--topic", READ_TOPIC, "--partition", "0"};
        String elected = tools.direct(LEADER_ELECTION, elect);
        assertTrue(elected.contains(READ_TOPIC + "-0"), elected);
        assertEquals(elected, tools.proxied(LEADER_ELECTION, elect));
    }

    @ParameterizedTest(name = "advertise mode {0}")
    @ValueSource(strings = {"single", "brokers"})
    void deleteRecords(String mode) throws Exception {
        SideBySide tools = tools(mode);
        String direct = "tools-trimmed-direct-" + mode;
        String proxied = "tools-trimmed-proxy-" + mode;
        String twin = "tools-trimmed-" + mode;
        for (String topic : List.of(direct, proxied)) {
            cluster.createTopic(topic, PARTITIONS);
            RecordRoundTrip.produce(cluster.bootstrapServers(), topic, PARTITIONS, PARTITIONS * RECORDS_PER_PARTITION);
        }
        // the tool prints the partitions in hash order, which differs between two topic names
        String trimmed = sortedLines(tools.direct(DELETE_RECORDS, "--offset-json-file", trimTo(direct, 3)).replace(direct, twin));
        assertTrue(trimmed.contains("low_watermark: 3"), trimmed);
        assertEquals(trimmed, sortedLines(tools.proxied(DELETE_RECORDS, "--offset-json-file", trimTo(proxied, 3))
                .replace(proxied, twin)));
        // what the deletion left: the earliest offsets, read through the proxy
        assertEquals(tools.direct(GET_OFFSETS, "--topic", direct, "--time", "-2").replace(direct, twin),
                tools.proxied(GET_OFFSETS, "--topic", proxied, "--time", "-2").replace(proxied, twin));
    }

    @ParameterizedTest(name = "advertise mode {0}")
    @ValueSource(strings = {"single", "brokers"})
    void getOffsets(String mode) {
        SideBySide tools = tools(mode);
        for (String time : List.of("-1", "-2", "-3")) {
            String offsets = tools.direct(GET_OFFSETS, "--topic", READ_TOPIC, "--time", time);
            assertTrue(offsets.contains(READ_TOPIC + ":0:"), offsets);
            assertEquals(offsets, tools.proxied(GET_OFFSETS, "--topic", READ_TOPIC, "--time", time), "--time " + time);
        }
    }

    // ---------------------------------------------------------------------------------- helpers

    private static SideBySide tools(String mode) {
        return new SideBySide(cluster, PROXIES.get(mode), adminConfig());
    }

    /** Short Admin deadlines, so a command the proxy cannot serve fails in seconds, not minutes. */
    private static String adminConfig() {
        Path file = dir.resolve("admin.properties");
        if (!Files.exists(file)) {
            try {
                Files.writeString(file, AdminClientConfig.REQUEST_TIMEOUT_MS_CONFIG + "=10000\n"
                        + AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG + "=15000\n");
            } catch (IOException e) {
                throw new IllegalStateException(e);
            }
        }
        return file.toString();
    }

    private static final Pattern NODE_IDS = Pattern.compile("(Leader|Replicas|Isr): [0-9,]+");

    /**
     * What {@code kafka-topics --describe} through the proxy shows for a topic described
     * {@code direct}: the same in {@code brokers} mode; in {@code single} mode one broker, node 0,
     * holding every replica (the price of one address).
     */
    private static String describedAsAdvertised(String mode, String direct) {
        if (!mode.equals("single")) {
            return direct;
        }
        return NODE_IDS.matcher(direct.replaceAll("ReplicationFactor: \\d+", "ReplicationFactor: 1"))
                .replaceAll(m -> m.group(1) + ": 0");
    }

    /**
     * {@code table} as single mode shows it: column {@code index} of every row after the header
     * (the line starting with {@code header}) set to {@code value}.
     */
    private static String column(String mode, String table, String header, int index, String value) {
        if (!mode.equals("single")) {
            return table;
        }
        boolean[] rows = {false};
        return table.lines().map(line -> {
            if (!rows[0]) {
                rows[0] = line.startsWith(header);
                return line;
            }
            String[] cells = line.split(" ");
            cells[index] = value;
            return String.join(" ", cells);
        }).collect(Collectors.joining("\n"));
    }

    /**
     * The finalized features' epoch is the metadata offset the answering broker has applied: it
     * moves with every metadata change and may differ by a few between two brokers at one moment.
     * A missing epoch ({@code -1}) is not masked.
     */
    private static String withEpochMasked(String described) {
        return described.replaceAll("Epoch: \\d+", "Epoch: <epoch>");
    }

    /** The duration column of a transaction keeps growing between two runs. */
    private static String withDurationMasked(String described) {
        return described.lines().map(line -> {
            String[] cells = line.split(" ");
            if (cells.length >= 9 && cells[1].equals(txnId)) {
                cells[7] = "<duration>";
            }
            return String.join(" ", cells);
        }).collect(Collectors.joining("\n"));
    }

    private interface Text {
        String get() throws Exception;
    }

    /** Waits until the proxied output equals the expected one, both read again at every try. */
    private static void awaitSame(Duration deadline, String what, Text expected, Text proxied) {
        Eventually.await(deadline, what, () -> assertEquals(expected.get(), proxied.get(), what));
    }

    private static String sortedLines(String text) {
        return text.lines().sorted().collect(Collectors.joining("\n"));
    }

    private static String[] with(String[] args, String... more) {
        String[] all = Arrays.copyOf(args, args.length + more.length);
        System.arraycopy(more, 0, all, args.length, more.length);
        return all;
    }

    /** The JSON file {@code kafka-delete-records} reads: delete partition 0..2 of {@code topic} up to {@code offset}. */
    private static String trimTo(String topic, long offset) throws IOException {
        StringBuilder json = new StringBuilder("{\"version\":1,\"partitions\":[");
        for (int p = 0; p < PARTITIONS; p++) {
            json.append(p == 0 ? "" : ",").append("{\"topic\":\"").append(topic).append("\",\"partition\":").append(p)
                    .append(",\"offset\":").append(offset).append('}');
        }
        Path file = dir.resolve(topic + ".json");
        Files.writeString(file, json.append("]}").toString());
        return file.toString();
    }

    /** Commits offset {@link #COMMITTED} of every partition of the read topic for {@code group}, with no member. */
    private static void commit(String group) throws Exception {
        Map<TopicPartition, OffsetAndMetadata> offsets = new HashMap<>();
        for (int p = 0; p < PARTITIONS; p++) {
            offsets.put(new TopicPartition(READ_TOPIC, p), new OffsetAndMetadata(COMMITTED));
        }
        cluster.admin().alterConsumerGroupOffsets(group, offsets).all().get(30, TimeUnit.SECONDS);
    }

    /** A member of the active group that owns every partition and has committed offset {@link #COMMITTED}. */
    private static KafkaConsumer<String, String> liveMember() {
        Properties props = RecordRoundTrip.consumerProperties(cluster.bootstrapServers());
        props.put(ConsumerConfig.GROUP_ID_CONFIG, activeGroup);
        props.put(ConsumerConfig.CLIENT_ID_CONFIG, "tools-member");
        props.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
        KafkaConsumer<String, String> consumer = new KafkaConsumer<>(props);
        consumer.subscribe(List.of(READ_TOPIC));
        Eventually.await(Duration.ofSeconds(30), "the member owns every partition", () -> {
            consumer.poll(Duration.ofMillis(100));
            return consumer.assignment().size() == PARTITIONS;
        });
        Map<TopicPartition, OffsetAndMetadata> offsets = new HashMap<>();
        consumer.assignment().forEach(tp -> offsets.put(tp, new OffsetAndMetadata(COMMITTED)));
        consumer.commitSync(offsets);
        return consumer;
    }

    private static String notCoordinatedByBrokerZero(String prefix, ToIntFunction<String> coordinator) {
        for (int i = 0; ; i++) {
            if (coordinator.applyAsInt(prefix + i) != 0) {
                return prefix + i;
            }
        }
    }

    /**
     * A transactional producer with a transaction begun and a record sent, left open for the whole
     * class, whose coordinator is not broker 0.
     */
    private static KafkaProducer<String, String> openTransactionNotCoordinatedByBrokerZero() throws Exception {
        for (int i = 0; ; i++) {
            KafkaProducer<String, String> producer = openTransaction("tools-txn-" + i);
            int coordinator = cluster.admin().describeTransactions(List.of("tools-txn-" + i)).all()
                    .get(30, TimeUnit.SECONDS).get("tools-txn-" + i).coordinatorId();
            if (coordinator != 0) {
                txnId = "tools-txn-" + i;
                return producer;
            }
            producer.abortTransaction();
            producer.close(Duration.ZERO);
        }
    }

    private static KafkaProducer<String, String> openTransaction(String transactionalId) throws Exception {
        Properties props = RecordRoundTrip.idempotentProducerProperties(cluster.bootstrapServers());
        props.put(ProducerConfig.TRANSACTIONAL_ID_CONFIG, transactionalId);
        // far longer than the class runs, so the coordinator does not abort it between two runs
        props.put(ProducerConfig.TRANSACTION_TIMEOUT_CONFIG, (int) Duration.ofMinutes(15).toMillis());
        KafkaProducer<String, String> producer = new KafkaProducer<>(props);
        producer.initTransactions();
        producer.beginTransaction();
        producer.send(new ProducerRecord<>(TXN_TOPIC, 0, "k", "open")).get(30, TimeUnit.SECONDS);
        producer.flush();
        return producer;
    }
}
