package org.kafscale.proxy.testkit;

/**
 * The non-Java Kafka clients whose programs live in {@code testkit/src/main/clients/} and run
 * through {@link ClientPrograms}. Each is a different protocol implementation: what one gets
 * right through the proxy says nothing about another.
 */
public enum ClientFamily {
    /**
     * confluent-kafka-python 1.7 (Debian python3-confluent-kafka) on librdkafka 2.12 when
     * scripts/ensure-librdkafka.sh built it ({@link Librdkafka}), else Debian's 2.0; consumer group.
     */
    CONFLUENT_KAFKA_PYTHON("confluent-kafka-python"),
    /** kafka-python 2.0.2 (Debian python3-kafka), consumer group. */
    KAFKA_PYTHON("kafka-python"),
    /** kafkajs 2.2.4 from npm (installed by scripts/ensure-test-tools.sh), consumer group. */
    KAFKAJS("kafkajs"),
    /** Sarama 1.22 (Debian golang-github-shopify-sarama-dev) built with Debian's Go, partition consumers. */
    SARAMA("sarama");

    private final String label;

    ClientFamily(String label) {
        this.label = label;
    }

    /** The client's usual name, for test names and reports. */
    public String label() {
        return label;
    }

    @Override
    public String toString() {
        return label;
    }
}
