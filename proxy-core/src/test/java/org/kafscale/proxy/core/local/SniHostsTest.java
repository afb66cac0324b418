package org.kafscale.proxy.core.local;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Optional;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;
import org.junit.jupiter.api.Test;

class SniHostsTest {
    private static final SniHosts HOSTS = SniHosts.of("Kafka.Example.com", "broker-$(nodeId).kafka.example.com");

    @Test
    void theBootstrapNameAndEachBrokersNameResolveWhateverTheirCase() {
        assertEquals(Optional.of(SniHosts.Target.BOOTSTRAP), HOSTS.resolve("kafka.example.com"));
        assertEquals(Optional.of(SniHosts.Target.broker(0)), HOSTS.resolve("broker-0.kafka.example.com"));
        assertEquals(Optional.of(SniHosts.Target.broker(17)), HOSTS.resolve("BROKER-17.Kafka.Example.COM"));
        assertEquals(Optional.of(SniHosts.Target.broker(Integer.MAX_VALUE)),
                HOSTS.resolve("broker-2147483647.kafka.example.com"));
        assertEquals("broker-4.kafka.example.com", HOSTS.brokerHost(4));
    }

    @ParameterizedTest
    @ValueSource(strings = {"other.example.com", "broker-.kafka.example.com", "broker-01.kafka.example.com",
            "broker-+1.kafka.example.com", "broker-1x.kafka.example.com", "broker-2147483648.kafka.example.com",
            "broker-1.kafka.example.com.evil", "xbroker-1.kafka.example.com"})
    void aNameThatIsNeitherTheBootstrapNorAdvertisedForABrokerResolvesToNothing(String name) {
        assertEquals(Optional.empty(), HOSTS.resolve(name));
    }

    @Test
    void noNameResolvesToNothing() {
        assertEquals(Optional.empty(), HOSTS.resolve(null));
    }

    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
            "kafka.example.com | broker.kafka.example.com | BROKER_HOST_PATTERN | exactly once",
            "kafka.example.com | b$(nodeId)-$(nodeId).example.com | BROKER_HOST_PATTERN | exactly once",
            "kafka.example.com | b_$(nodeId).example.com | BROKER_HOST_PATTERN | 'b_2147483647' is not a DNS label",
            "kafka..example.com | b$(nodeId).example.com | BOOTSTRAP_HOST | '' is not a DNS label",
            "-kafka.example.com | b$(nodeId).example.com | BOOTSTRAP_HOST | '-kafka' is not a DNS label",
            "b7.example.com | b$(nodeId).example.com | BOOTSTRAP_HOST | matches the broker host pattern"})
    void aBadNameSaysWhichSettingAndWhy(String bootstrap, String pattern, SniHosts.Part part, String why) {
        SniHosts.InvalidName e = assertThrows(SniHosts.InvalidName.class, () -> SniHosts.of(bootstrap, pattern));
        assertEquals(part, e.part());
        assertTrue(e.getMessage().contains(why), e.getMessage());
    }
}
