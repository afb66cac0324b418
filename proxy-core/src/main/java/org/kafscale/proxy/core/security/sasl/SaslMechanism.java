package org.kafscale.proxy.core.security.sasl;

import java.util.Arrays;
import java.util.Optional;
import org.apache.kafka.common.security.scram.internals.ScramMechanism;

/** The SASL mechanisms the proxy can terminate, by the names Kafka clients send in SaslHandshake. */
public enum SaslMechanism {
    PLAIN("PLAIN"),
    SCRAM_SHA_256("SCRAM-SHA-256"),
    SCRAM_SHA_512("SCRAM-SHA-512"),
    OAUTHBEARER("OAUTHBEARER");

    private final String kafkaName;

    SaslMechanism(String kafkaName) {
        this.kafkaName = kafkaName;
    }

    /** The name on the wire and in settings, such as {@code SCRAM-SHA-512}. */
    public String kafkaName() {
        return kafkaName;
    }

    /** Kafka's SCRAM mechanism for the SCRAM members; empty for the others. */
    public Optional<ScramMechanism> scram() {
        return Optional.ofNullable(ScramMechanism.forMechanismName(kafkaName));
    }

    /** The mechanism a client or a setting names (exact, as Kafka compares them). */
    public static Optional<SaslMechanism> byKafkaName(String name) {
        return Arrays.stream(values()).filter(m -> m.kafkaName.equals(name)).findFirst();
    }
}
