package org.kafscale.proxy.core.validation;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.regex.Pattern;
import org.apache.kafka.common.security.auth.KafkaPrincipal;
import org.junit.jupiter.api.Test;
import org.kafscale.proxy.core.tenant.TenantNames;
import org.kafscale.proxy.core.tenant.VirtualCluster;
import org.kafscale.proxy.core.tenant.VirtualClusters;
import org.kafscale.proxy.core.validation.RecordFormat.Check;

/** Which rule checks a topic: a virtual cluster's over its own names first, then the global ones. */
class ValidationRulesTest {
    private static final KafkaPrincipal ALICE = new KafkaPrincipal("User", "alice");
    private static final KafkaPrincipal BOB = new KafkaPrincipal("User", "bob");
    private static final RecordFormat ANY = bytes -> Check.VALID;

    private final ValidationRule tenantOrders = new ValidationRule(Pattern.compile("orders"), null, ANY);
    private final ValidationRule globalOrders = new ValidationRule(Pattern.compile(".*orders"), ANY, null);
    private final ValidationRules rules = new ValidationRules(List.of(globalOrders),
            Map.of("team-a", List.of(tenantOrders)),
            new VirtualClusters(List.of(
                    new VirtualCluster("team-a", "a-id", TenantNames.prefixed("team-a."), Set.of(ALICE)),
                    new VirtualCluster("team-b", "b-id", TenantNames.prefixed("team-b."), Set.of(BOB)))));

    @Test
    void aTenantsRuleMatchesItsOwnTopicNameAndComesBeforeTheGlobalOnes() {
        assertEquals(Optional.of(tenantOrders), rules.ruleFor(Optional.of("team-a"), "team-a.orders"));
    }

    @Test
    void theGlobalRulesMatchTheRealNameForEveryoneElse() {
        assertEquals(Optional.of(globalOrders), rules.ruleFor(Optional.of("team-b"), "team-b.orders"));
        assertEquals(Optional.of(globalOrders), rules.ruleFor(Optional.empty(), "orders"));
        assertEquals(Optional.empty(), rules.ruleFor(Optional.of("team-b"), "team-b.clicks"));
    }

    @Test
    void aPatternMatchesTheWholeName() {
        assertEquals(Optional.empty(), rules.ruleFor(Optional.of("team-a"), "team-a.orders-eu"));
        assertTrue(new ValidationRules(List.of(), Map.of(), VirtualClusters.NONE).isEmpty());
    }
}
