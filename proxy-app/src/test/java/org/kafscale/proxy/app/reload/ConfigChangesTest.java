package org.kafscale.proxy.app.reload;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.kafscale.proxy.core.local.AdvertiseMode;

/** What a reload applies, what it leaves for the next start, and whom it makes reconnect. */
class ConfigChangesTest {
    private static final String TEAMS = """
            virtualClusters:
              - name: team-a
                principals: ["User:alice"]
              - name: team-b
                principals: ["User:bob"]
                quotas: {produceBytesPerSecond: 1000}
              - name: team-l
                listener: "127.0.0.1:9300"
            """;

    @Test
    void aQuotaChangeMovesOnlyItsVirtualClusterAndPlacesNoOneAnew() {
        ConfigChanges changes = between(TEAMS, TEAMS.replace("1000", "2000"));

        assertEquals(List.of("virtual cluster 'team-b' changed"), changes.applied());
        assertEquals(Set.of("team-b"), changes.changedClusters());
        assertFalse(changes.everyConnection());
        assertFalse(changes.placement());
        assertFalse(changes.acls());
    }

    @Test
    void anAddedVirtualClusterPlacesItsPrincipalsAnew() {
        ConfigChanges changes = between(TEAMS, TEAMS + """
                  - name: team-c
                    principals: ["User:carol"]
                    aclFile: team-c-acls.yaml
                """);

        assertEquals(List.of("virtual cluster 'team-c' added"), changes.applied());
        assertTrue(changes.placement());
        assertEquals(Set.of("User:carol"), changes.movedPrincipals());
        assertTrue(changes.acls(), "its ACL file is read");
    }

    @Test
    void aVirtualClusterWithAListenerOfItsOwnChangesOnlyAtTheNextStart() {
        ConfigChanges changes = between(TEAMS, TEAMS.replace("9300", "9301"));

        assertTrue(changes.nothingApplied());
        assertEquals(List.of("virtual cluster 'team-l' changed (it has a listener or TLS server name of its own)"),
                changes.atNextStart());
    }

    @Test
    void validationOrEncryptionMovesEveryConnectionAndTheAuditTrailWaitsForARestart() {
        ConfigChanges changes = between(TEAMS + "audit: {stdout: true}\n",
                TEAMS + "audit: {stdout: false, file: /tmp/a}\nvalidation:\n  - topics: x\n    value: {format: json}\n");

        assertEquals(List.of("the gateway file's validation section"), changes.applied());
        assertEquals(List.of("the gateway file's audit section"), changes.atNextStart());
        assertTrue(changes.everyConnection());
    }

    @Test
    void theAdvertisedHostIsAppliedAndTheEventLoopsWaitForTheNextStart() {
        ConfigChanges changes = ConfigChanges.between(
                Map.of("KAFSCALE_PROXY_ADVERTISED_HOST", "a.example.com", "KAFSCALE_PROXY_IO_THREADS", "2"),
                Map.of("KAFSCALE_PROXY_ADVERTISED_HOST", "b.example.com", "KAFSCALE_PROXY_IO_THREADS", "4"),
                GatewayTree.NONE, GatewayTree.NONE, AdvertiseMode.SINGLE);

        assertEquals(List.of("KAFSCALE_PROXY_ADVERTISED_HOST"), changes.applied());
        assertEquals(Set.of("KAFSCALE_PROXY_IO_THREADS"), changes.restartOnlySettings());
        assertTrue(changes.everyConnection(), "every client was told the old host");
    }

    @Test
    void timeoutsAreAppliedToNewConnectionsWithoutMovingTheOpenOnesAndOtherLimitsWaitForTheNextStart() {
        ConfigChanges changes = ConfigChanges.between(
                Map.of("KAFSCALE_PROXY_UNAUTHENTICATED_IDLE_TIMEOUT_MS", "10000",
                        "KAFSCALE_PROXY_IDLE_TIMEOUT_MS", "600000", "KAFSCALE_PROXY_FRAME_READ_TIMEOUT_MS", "30000",
                        "KAFSCALE_PROXY_MAX_CONNECTIONS_PER_IP", "1000"),
                Map.of("KAFSCALE_PROXY_UNAUTHENTICATED_IDLE_TIMEOUT_MS", "500",
                        "KAFSCALE_PROXY_IDLE_TIMEOUT_MS", "60000", "KAFSCALE_PROXY_FRAME_READ_TIMEOUT_MS", "5000",
                        "KAFSCALE_PROXY_MAX_CONNECTIONS_PER_IP", "10"),
                GatewayTree.NONE, GatewayTree.NONE, AdvertiseMode.SINGLE);

        assertEquals(List.of("KAFSCALE_PROXY_FRAME_READ_TIMEOUT_MS", "KAFSCALE_PROXY_IDLE_TIMEOUT_MS",
                "KAFSCALE_PROXY_UNAUTHENTICATED_IDLE_TIMEOUT_MS"), changes.applied());
        assertEquals(Set.of("KAFSCALE_PROXY_MAX_CONNECTIONS_PER_IP"), changes.restartOnlySettings());
        assertFalse(changes.everyConnection(), "open connections keep the timeouts they were accepted with");
    }

    @Test
    void inModePortsTheAdvertisedPortAnchorsTheBoundBrokerPorts() {
        ConfigChanges changes = ConfigChanges.between(Map.of("KAFSCALE_PROXY_ADVERTISED_PORT", "9092"),
                Map.of("KAFSCALE_PROXY_ADVERTISED_PORT", "9093"), GatewayTree.NONE, GatewayTree.NONE,
                AdvertiseMode.PORTS);

        assertTrue(changes.nothingApplied());
        assertEquals(Set.of("KAFSCALE_PROXY_ADVERTISED_PORT"), changes.restartOnlySettings());
    }

    @Test
    void theFixedPartsOfTheRunningFileStayInTheOneApplied() {
        GatewayTree running = tree(TEAMS + "audit: {stdout: true}\n");
        GatewayTree next = tree("""
                virtualClusters:
                  - name: team-a
                    principals: ["User:alice"]
                  - name: team-m
                    listener: "127.0.0.1:9400"
                audit: {stdout: false, file: /tmp/a}
                """);

        GatewayTree applied = next.keepingFixedFrom(running);

        assertEquals(List.of("team-a", "team-l"), List.copyOf(applied.clusters().keySet()));
        assertEquals(running.section(GatewayTree.AUDIT), applied.section(GatewayTree.AUDIT));
    }

    private static ConfigChanges between(String running, String next) {
        return ConfigChanges.between(Map.of(), Map.of(), tree(running), tree(next), AdvertiseMode.SINGLE);
    }

    private static GatewayTree tree(String text) {
        return GatewayTree.parse(text.getBytes(StandardCharsets.UTF_8));
    }
}
