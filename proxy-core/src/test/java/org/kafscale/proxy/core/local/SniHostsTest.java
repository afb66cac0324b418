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

    private static final SniHosts SHARED = SniHosts.of("bootstrap.kafka.example.com",
            "broker-$(nodeId).kafka.example.com");
    private static final SniHosts TENANTS = SHARED.withVirtualCluster("team-a", "Team-A.kafka.example.com")
            .withVirtualCluster("team-b", "team-b.example.org");

    @Test
    void aVirtualClustersNamesAreTheSharedFirstLabelsUnderItsSuffix() {
        SniHosts teamA = TENANTS.virtualClusters().get("team-a.kafka.example.com").hosts();
        assertEquals("bootstrap.team-a.kafka.example.com", teamA.bootstrapHost());
        assertEquals("broker-3.team-a.kafka.example.com", teamA.brokerHost(3));
        assertEquals("kafka.team-c.example.com", HOSTS.under("team-c.example.com").bootstrapHost());
        assertEquals("b7x.t.example.com", SniHosts.of("k.example.com", "b$(nodeId)x.example.com").under("t.example.com")
                .brokerHost(7));
    }

    @Test
    void aVirtualClustersNameResolvesInThatVirtualClusterAndTheSharedNamesStayShared() {
        assertEquals(Optional.of(SniHosts.Target.BOOTSTRAP.in("team-a")),
                TENANTS.resolve("bootstrap.team-a.kafka.example.com"));
        assertEquals(Optional.of(SniHosts.Target.broker(2).in("team-b")), TENANTS.resolve("BROKER-2.team-b.example.org"));
        assertEquals(Optional.of(SniHosts.Target.BOOTSTRAP), TENANTS.resolve("bootstrap.kafka.example.com"));
        assertEquals(Optional.of(SniHosts.Target.broker(2)), TENANTS.resolve("broker-2.kafka.example.com"));
    }

    @ParameterizedTest
    @ValueSource(strings = {"team-a.kafka.example.com", "kafka.team-a.kafka.example.com",
            "x.bootstrap.team-a.kafka.example.com", "broker-01.team-a.kafka.example.com", "bootstrap.team-c.example.org",
            "broker-1.example.org"})
    void aNameUnderNoSuffixAndNotSharedResolvesToNothing(String name) {
        assertEquals(Optional.empty(), TENANTS.resolve(name));
    }

    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
            // the shared names are under it (or it is their domain)
            "kafka.example.com | the shared name bootstrap.kafka.example.com is under it",
            "example.com | the shared name bootstrap.kafka.example.com is under it",
            // one suffix under another, either way
            "x.team-a.kafka.example.com | it overlaps team-a.kafka.example.com, the sniHostSuffix of virtual cluster 'team-a'",
            "example.org | it overlaps team-b.example.org, the sniHostSuffix of virtual cluster 'team-b'",
            "TEAM-B.example.org | it overlaps team-b.example.org",
            "team_c.example.com | 'team_c' is not a DNS label"})
    void aSuffixThatOverlapsOrIsNoHostNameIsRefused(String suffix, String why) {
        SniHosts.InvalidName e = assertThrows(SniHosts.InvalidName.class,
                () -> TENANTS.withVirtualCluster("team-c", suffix));
        assertEquals(SniHosts.Part.SNI_HOST_SUFFIX, e.part());
        assertTrue(e.getMessage().contains(why), e.getMessage());
    }

    @Test
    void aSuffixNeedsTheBrokersIdInThePatternsFirstLabel() {
        SniHosts.InvalidName e = assertThrows(SniHosts.InvalidName.class,
                () -> SniHosts.of("kafka.example.com", "kafka.b$(nodeId).example.com").under("team-a.example.com"));
        assertEquals(SniHosts.Part.BROKER_HOST_PATTERN, e.part());
        assertTrue(e.getMessage().contains("must be in the pattern's first label"), e.getMessage());
    }

    @Test
    void aSuffixWhoseNamesWouldMatchEachOtherIsRefused() {
        // The shared bootstrap's first label fits the broker pattern's first label: apart, their
        // domains differ; under one suffix they would be one name.
        SniHosts hosts = SniHosts.of("b1.one.example.com", "b$(nodeId).two.example.com");
        SniHosts.InvalidName e = assertThrows(SniHosts.InvalidName.class, () -> hosts.under("t.example.com"));
        assertEquals(SniHosts.Part.SNI_HOST_SUFFIX, e.part());
        assertTrue(e.getMessage().contains("matches the broker host pattern"), e.getMessage());
    }
}
