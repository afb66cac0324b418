package org.kafscale.proxy.core.tenant;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.apache.kafka.common.message.AlterClientQuotasRequestData;
import org.apache.kafka.common.message.AlterClientQuotasResponseData;
import org.apache.kafka.common.message.DescribeClientQuotasRequestData;
import org.apache.kafka.common.message.DescribeClientQuotasResponseData;
import org.apache.kafka.common.protocol.Errors;
import org.junit.jupiter.api.Test;
import org.kafscale.proxy.core.quota.QuotaLimits;
import org.kafscale.proxy.core.quota.TenantQuotas;

class ClientQuotaIsolationsTest {
    /** Team a: 10 MB/s together (no entity), 2 MB/s produce per principal, alice 4 MB/s and 50 % of a thread. */
    private final TenantScope scope = new TenantScope(TeamA.CLUSTER, TeamA.SNAPSHOT, new TenantQuotas(
            new QuotaLimits(10_000_000, 0), new QuotaLimits(2_000_000, 0),
            Map.of(TeamA.ALICE, new QuotaLimits(4_000_000, 0, 50))));

    @Test
    void everyEntityIsEachPrincipalsOwnRatesAndThePerPrincipalDefault() {
        DescribeClientQuotasResponseData answer = describe(new DescribeClientQuotasRequestData().setComponents(List.of()));

        assertEquals(Map.of("user=<default>", Map.of("producer_byte_rate", 2_000_000.0),
                "user=alice", Map.of("producer_byte_rate", 4_000_000.0, "request_percentage", 50.0)), entities(answer));
    }

    @Test
    void aFilterByUserNameOrDefaultKeepsThatEntityAndOtherEntityTypesMatchNothing() {
        assertEquals(List.of("user=alice"), List.copyOf(entities(describe(filter("user", (byte) 0, "alice"))).keySet()));
        assertEquals(List.of("user=<default>"), List.copyOf(entities(describe(filter("user", (byte) 1, null))).keySet()));
        assertEquals(List.of("user=alice"), List.copyOf(entities(describe(filter("user", (byte) 2, null))).keySet()));
        assertTrue(entities(describe(filter("client-id", (byte) 2, null))).isEmpty());
    }

    @Test
    void alteringIsRefusedSayingWhereQuotasAreSet() {
        AlterClientQuotasRequestData request = new AlterClientQuotasRequestData().setEntries(List.of(
                new AlterClientQuotasRequestData.EntryData().setEntity(List.of(
                        new AlterClientQuotasRequestData.EntityData().setEntityType("user").setEntityName("alice")))));

        AlterClientQuotasResponseData answer = (AlterClientQuotasResponseData) ClientQuotaIsolations.ALTER_CLIENT_QUOTAS
                .answerHere(request, scope);

        AlterClientQuotasResponseData.EntryData entry = answer.entries().get(0);
        assertEquals(Errors.CLUSTER_AUTHORIZATION_FAILED.code(), entry.errorCode());
        assertTrue(entry.errorMessage().contains("gateway file"), entry.errorMessage());
        assertEquals("alice", entry.entity().get(0).entityName());
    }

    private DescribeClientQuotasResponseData describe(DescribeClientQuotasRequestData request) {
        return (DescribeClientQuotasResponseData) ClientQuotaIsolations.DESCRIBE_CLIENT_QUOTAS.answerHere(request, scope);
    }

    private static DescribeClientQuotasRequestData filter(String type, byte matchType, String match) {
        return new DescribeClientQuotasRequestData().setComponents(List.of(
                new DescribeClientQuotasRequestData.ComponentData().setEntityType(type).setMatchType(matchType)
                        .setMatch(match)));
    }

    private static Map<String, Map<String, Double>> entities(DescribeClientQuotasResponseData answer) {
        Map<String, Map<String, Double>> entities = new TreeMap<>();
        for (DescribeClientQuotasResponseData.EntryData entry : answer.entries()) {
            var entity = entry.entity().get(0);
            Map<String, Double> values = new TreeMap<>();
            entry.values().forEach(v -> values.put(v.key(), v.value()));
            entities.put(entity.entityType() + "=" + (entity.entityName() == null ? "<default>" : entity.entityName()),
                    values);
        }
        return entities;
    }
}
