package org.kafscale.proxy.app.e2e;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.time.Duration;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.common.errors.ClusterAuthorizationException;
import org.apache.kafka.common.quota.ClientQuotaAlteration;
import org.apache.kafka.common.quota.ClientQuotaEntity;
import org.apache.kafka.common.quota.ClientQuotaFilter;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;
import org.kafscale.proxy.testkit.Eventually;
import org.kafscale.proxy.testkit.KafkaClusterExtension;

/**
 * The client-quota APIs in a virtual cluster: alice's Admin client reads team-a's quotas as the
 * gateway file sets them (what the proxy enforces), never the brokers' quota entities, and is told
 * that changing them is done in the gateway file.
 */
class TenantClientQuotasIT {
    @RegisterExtension
    static final KafkaClusterExtension KAFKA = KafkaClusterExtension.withBrokers(1);

    @TempDir
    static Path dir;
    private static RunningProxy proxy;

    @BeforeAll
    static void start() throws Exception {
        proxy = RunningProxy.start(KAFKA.cluster(), "single", ScramUsers.gatewaySettings(dir, "SCRAM-SHA-512",
                List.of("alice"), """
                virtualClusters:
                  - name: team-a
                    principals: ["User:alice"]
                    topicPrefix: "a."
                    quotas:
                      produceBytesPerSecond: 104857600
                      perPrincipal:
                        fetchBytesPerSecond: 52428800
                      principals:
                        "User:alice":
                          produceBytesPerSecond: 20971520
                """));
        Eventually.await(Duration.ofSeconds(15), "/readyz 200", () -> proxy.healthStatus("/readyz") == 200);
        // A quota entity of the real cluster's, which no tenant is to see
        KAFKA.cluster().admin().alterClientQuotas(List.of(new ClientQuotaAlteration(
                new ClientQuotaEntity(Map.of(ClientQuotaEntity.USER, "ops")),
                List.of(new ClientQuotaAlteration.Op("producer_byte_rate", 1024.0))))).all().get(30, TimeUnit.SECONDS);
    }

    @AfterAll
    static void stop() {
        if (proxy != null) {
            proxy.close();
        }
    }

    @Test
    void aTenantReadsItsQuotasFromTheGatewayFileAndIsToldToChangeThemThere() throws Exception {
        try (Admin alice = Admin.create(ScramUsers.client(proxy.bootstrap(), "alice"))) {
            // When alice lists every quota
            Map<ClientQuotaEntity, Map<String, Double>> quotas = alice.describeClientQuotas(ClientQuotaFilter.all())
                    .entities().get(30, TimeUnit.SECONDS);

            // Then she reads her own rates (the per-principal fetch rate carried over) and the default user's
            Map<String, String> defaultUser = new HashMap<>();
            defaultUser.put(ClientQuotaEntity.USER, null);
            assertEquals(Map.of(
                    new ClientQuotaEntity(Map.of(ClientQuotaEntity.USER, "alice")),
                    Map.of("producer_byte_rate", 20971520.0, "consumer_byte_rate", 52428800.0),
                    new ClientQuotaEntity(Collections.unmodifiableMap(defaultUser)),
                    Map.of("consumer_byte_rate", 52428800.0)), quotas);

            // When she tries to change one
            ExecutionException refused = assertThrows(ExecutionException.class, () -> alice.alterClientQuotas(List.of(
                    new ClientQuotaAlteration(new ClientQuotaEntity(Map.of(ClientQuotaEntity.USER, "alice")),
                            List.of(new ClientQuotaAlteration.Op("producer_byte_rate", 1.0))))).all()
                    .get(30, TimeUnit.SECONDS));

            // Then she is told where quotas are set
            assertInstanceOf(ClusterAuthorizationException.class, refused.getCause());
            assertTrue(refused.getCause().getMessage().contains("gateway file"), refused.getCause().getMessage());
        }
    }
}
