package org.kafscale.proxy.app.e2e;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.nio.file.Files;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.StreamsGroupDescription;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.streams.KafkaStreams;
import org.apache.kafka.streams.StreamsBuilder;
import org.apache.kafka.streams.StreamsConfig;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.kafscale.proxy.testkit.Eventually;
import org.kafscale.proxy.testkit.KafkaClusterExtension;

/**
 * A Kafka Streams application with the streams rebalance protocol (KIP-1071,
 * {@code group.protocol=streams}) through the proxy, over partitions led by three brokers: it
 * processes every record, and the admin client describes its streams group through the proxy.
 * Kafka 4.3 brokers serve streams groups without extra settings (streams.version 1).
 */
class StreamsGroupsIT {
    private static final int PARTITIONS = 3;
    private static final int RECORDS = 60;
    private static final Duration DEADLINE = Duration.ofSeconds(90);

    @RegisterExtension
    static final KafkaClusterExtension KAFKA = KafkaClusterExtension.withBrokers(3);

    @ParameterizedTest(name = "advertise mode {0}")
    @ValueSource(strings = {"brokers", "single"})
    void streamsApplicationOnTheStreamsProtocolProcessesEveryRecord(String mode) throws Exception {
        // Given input records on partitions led by all three brokers
        String input = "words-" + mode;
        String output = "shouted-" + mode;
        String application = "shouter-" + mode;
        List<Integer> brokers = KAFKA.cluster().brokerIds();
        KAFKA.cluster().createTopic(input, Map.of(0, brokers.get(0), 1, brokers.get(1), 2, brokers.get(2)));
        KAFKA.cluster().createTopic(output, Map.of(0, brokers.get(0), 1, brokers.get(1), 2, brokers.get(2)));
        try (RunningProxy proxy = RunningProxy.start(KAFKA.cluster(), mode); Admin admin = admin(proxy)) {
            Map<Integer, List<String>> sent = RecordRoundTrip.produce(proxy.bootstrap(), input, PARTITIONS, RECORDS);

            // When an application on the streams protocol upper-cases them, through the proxy
            StreamsBuilder builder = new StreamsBuilder();
            builder.<String, String>stream(input).mapValues(v -> v.toUpperCase()).to(output);
            StreamsGroupDescription described;
            try (KafkaStreams streams = new KafkaStreams(builder.build(), streamsProperties(proxy, application))) {
                streams.start();
                Eventually.await(DEADLINE, "the application running", () -> streams.state() == KafkaStreams.State.RUNNING);
                Map<Integer, List<String>> shouted = RecordRoundTrip.consumeFromStart(proxy.bootstrap(), output, PARTITIONS,
                        RECORDS);

                // Then every record was processed once
                List<String> expected = new ArrayList<>();
                sent.values().forEach(values -> values.forEach(v -> expected.add(v.toUpperCase())));
                List<String> got = new ArrayList<>();
                shouted.values().forEach(got::addAll);
                assertEquals(expected.stream().sorted().toList(), got.stream().sorted().toList());
                described = admin.describeStreamsGroups(List.of(application)).all().get(30, TimeUnit.SECONDS)
                        .get(application);
            }

            // and the streams group, described through the proxy, has the application's member,
            // its coordinator at the proxy's address
            assertEquals(1, described.members().size(), () -> "members " + described.members());
            assertEquals("127.0.0.1", described.coordinator().host());
            assertEquals(proxy.port(), described.coordinator().port());
        }
    }

    private static Properties streamsProperties(RunningProxy proxy, String application) throws Exception {
        Properties props = new Properties();
        props.put(StreamsConfig.APPLICATION_ID_CONFIG, application);
        props.put(StreamsConfig.BOOTSTRAP_SERVERS_CONFIG, proxy.bootstrap());
        props.put(StreamsConfig.GROUP_PROTOCOL_CONFIG, "streams");
        props.put(StreamsConfig.DEFAULT_KEY_SERDE_CLASS_CONFIG, Serdes.StringSerde.class);
        props.put(StreamsConfig.DEFAULT_VALUE_SERDE_CLASS_CONFIG, Serdes.StringSerde.class);
        props.put(StreamsConfig.STATE_DIR_CONFIG, Files.createTempDirectory("streams-" + application).toString());
        props.put(StreamsConfig.consumerPrefix("auto.offset.reset"), "earliest");
        return props;
    }

    private static Admin admin(RunningProxy proxy) {
        Properties props = new Properties();
        props.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, proxy.bootstrap());
        return Admin.create(props);
    }
}
