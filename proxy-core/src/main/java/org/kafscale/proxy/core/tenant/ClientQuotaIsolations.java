package org.kafscale.proxy.core.tenant;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.kafka.common.message.AlterClientQuotasRequestData;
import org.apache.kafka.common.message.AlterClientQuotasResponseData;
import org.apache.kafka.common.message.DescribeClientQuotasRequestData;
import org.apache.kafka.common.message.DescribeClientQuotasRequestData.ComponentData;
import org.apache.kafka.common.message.DescribeClientQuotasResponseData;
import org.apache.kafka.common.message.DescribeClientQuotasResponseData.EntityData;
import org.apache.kafka.common.message.DescribeClientQuotasResponseData.EntryData;
import org.apache.kafka.common.message.DescribeClientQuotasResponseData.ValueData;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.quota.ClientQuotaEntity;
import org.apache.kafka.common.security.auth.KafkaPrincipal;
import org.kafscale.proxy.core.quota.QuotaLimits;
import org.kafscale.proxy.core.quota.TenantQuotas;

/**
 * The client-quota APIs in a virtual cluster. The brokers' quota entities are the real cluster's
 * and hold the proxy's own connections, so neither API reaches a broker. DescribeClientQuotas is
 * answered from the virtual cluster's quotas in the gateway file, the ones the proxy enforces: a
 * principal's own rates as the {@code user} entity of its name, {@code perPrincipal} as the
 * default user. The virtual cluster's total has no Kafka entity and is not listed. AlterClientQuotas
 * is answered with an error saying quotas are set in the gateway file.
 */
public final class ClientQuotaIsolations {
    /**
     * DescribeClientQuotas' match types, as the protocol defines them (0 exact, 1 the default
     * entity, 2 any specified); kafka-clients names them only in its internal request class.
     */
    private static final byte MATCH_EXACT = 0;
    private static final byte MATCH_DEFAULT = 1;
    private static final String PRODUCE = "producer_byte_rate";
    private static final String FETCH = "consumer_byte_rate";
    private static final String REQUEST = "request_percentage";

    public static final Isolation DESCRIBE_CLIENT_QUOTAS = Isolation.answeredHere(DescribeClientQuotasRequestData.class,
            ClientQuotaIsolations::describe, "answered here from the virtual cluster's `quotas` in the gateway file: "
                    + "each principal's own rates as its `user` entity, `perPrincipal` as the default user; its total "
                    + "has no entity");

    /** Answered here rather than refused through Kafka's error answer, which would lose the message. */
    public static final Isolation ALTER_CLIENT_QUOTAS = Isolation.answeredHere(AlterClientQuotasRequestData.class,
            ClientQuotaIsolations::alterRefused,
            "answered here: each entry CLUSTER_AUTHORIZATION_FAILED, saying quotas are set in the gateway file");
    static final String SET_IN_GATEWAY_FILE = "a virtual cluster's quotas are set in the proxy's gateway file "
            + "(quotas), not through the Kafka API";

    private ClientQuotaIsolations() {
    }

    private static DescribeClientQuotasResponseData describe(DescribeClientQuotasRequestData q, TenantScope scope) {
        TenantQuotas quotas = scope.quotas();
        List<EntryData> entries = new ArrayList<>();
        // null: the default user
        if (!quotas.perPrincipal().isEmpty() && matches(q, null)) {
            entries.add(entry(null, quotas.perPrincipal()));
        }
        for (Map.Entry<KafkaPrincipal, QuotaLimits> named : quotas.principals().entrySet()) {
            KafkaPrincipal principal = named.getKey();
            if (KafkaPrincipal.USER_TYPE.equals(principal.getPrincipalType()) && !named.getValue().isEmpty()
                    && matches(q, principal.getName())) {
                entries.add(entry(principal.getName(), named.getValue()));
            }
        }
        return new DescribeClientQuotasResponseData().setEntries(entries);
    }

    private static AlterClientQuotasResponseData alterRefused(AlterClientQuotasRequestData q, TenantScope scope) {
        List<AlterClientQuotasResponseData.EntryData> entries = new ArrayList<>();
        for (AlterClientQuotasRequestData.EntryData asked : q.entries()) {
            entries.add(new AlterClientQuotasResponseData.EntryData()
                    .setErrorCode(Errors.CLUSTER_AUTHORIZATION_FAILED.code()).setErrorMessage(SET_IN_GATEWAY_FILE)
                    .setEntity(asked.entity().stream().map(e -> new AlterClientQuotasResponseData.EntityData()
                            .setEntityType(e.entityType()).setEntityName(e.entityName())).toList()));
        }
        return new AlterClientQuotasResponseData().setEntries(entries);
    }

    /** Whether the user entity {@code user} (null: the default) matches every component, and only those with strict. */
    private static boolean matches(DescribeClientQuotasRequestData q, String user) {
        for (ComponentData component : q.components()) {
            if (!ClientQuotaEntity.USER.equals(component.entityType())) {
                return false;
            }
            boolean matched = switch (component.matchType()) {
                case MATCH_EXACT -> user != null && user.equals(component.match());
                case MATCH_DEFAULT -> user == null;
                default -> user != null;
            };
            if (!matched) {
                return false;
            }
        }
        // An entity of the user type alone: strict or not, it has no other type to leave out
        return true;
    }

    private static EntryData entry(String user, QuotaLimits limits) {
        List<ValueData> values = new ArrayList<>();
        if (limits.produceBytesPerSecond() > 0) {
            values.add(new ValueData().setKey(PRODUCE).setValue(limits.produceBytesPerSecond()));
        }
        if (limits.fetchBytesPerSecond() > 0) {
            values.add(new ValueData().setKey(FETCH).setValue(limits.fetchBytesPerSecond()));
        }
        if (limits.requestPercentage() > 0) {
            values.add(new ValueData().setKey(REQUEST).setValue(limits.requestPercentage()));
        }
        return new EntryData().setEntity(List.of(new EntityData().setEntityType(ClientQuotaEntity.USER)
                .setEntityName(user))).setValues(values);
    }
}
