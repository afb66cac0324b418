package org.kafscale.proxy.routing.apis;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.util.EnumSet;
import java.util.Set;
import java.util.stream.Collectors;
import org.apache.kafka.common.protocol.ApiKeys;
import org.junit.jupiter.api.Test;
import org.kafscale.proxy.core.apis.ApiCatalog;
import org.kafscale.proxy.core.apis.ApiSpec;
import org.kafscale.proxy.core.security.authz.Guard;

/**
 * The routes and core's view of the registry ({@link Apis#catalog()}, an {@link ApiCatalog}) describe the same
 * APIs: every key the proxy forwards has exactly one route, and nothing it answers itself or
 * refuses has one (it would be dead, or worse, reachable).
 */
class ApisTest {

    @Test
    void everyForwardedKeyHasARouteAndNoOtherKeyDoes() {
        Set<ApiKeys> forwarded = Apis.catalog().all().values().stream()
                .filter(ApiSpec::forwarded)
                .map(ApiSpec::api)
                .collect(Collectors.toCollection(() -> EnumSet.noneOf(ApiKeys.class)));
        assertEquals(forwarded, EnumSet.copyOf(Apis.all().keySet()));
    }

    @Test
    void onlyTheTopicChangingAdminApisWaitForTheTopology() {
        Set<ApiKeys> changing = Apis.all().values().stream().filter(RouteSpec::changesTopology).map(RouteSpec::api)
                .collect(Collectors.toSet());
        assertEquals(Set.of(ApiKeys.CREATE_TOPICS, ApiKeys.DELETE_TOPICS, ApiKeys.CREATE_PARTITIONS), changing);
    }

    @Test
    void eachRouteIsFiledUnderItsOwnKeyAndDecodesItsOwnBody() {
        Apis.all().forEach((api, spec) -> {
            assertEquals(api, spec.api());
            if (spec instanceof RouteSpec.Typed<?> typed) {
                assertEquals(api.messageType.newRequest().getClass(), typed.body(), api + " body");
            }
        });
    }

    @Test
    void anEntryThatMissesAStepOrRoutesAnotherKeyIsRefusedAsItIsFiled() {
        // An entry without a guard: the registry would fail as it loads
        assertThrows(IllegalStateException.class, () -> Apis.api(ApiKeys.DESCRIBE_ACLS)
                .forwarded(Apis.route(ApiKeys.DESCRIBE_ACLS).orElseThrow()).doc("to any broker").spec());
        // An entry handed another key's route (a copy-paste slip)
        assertThrows(IllegalStateException.class, () -> Apis.api(ApiKeys.DESCRIBE_ACLS)
                .forwarded(Apis.route(ApiKeys.CREATE_ACLS).orElseThrow())
                .guard(Guard.unchecked()).doc("to any broker").spec());
        // Two places to be served
        assertThrows(IllegalStateException.class, () -> Apis.api(ApiKeys.METADATA).answeredHere().refused("no"));
    }
}
