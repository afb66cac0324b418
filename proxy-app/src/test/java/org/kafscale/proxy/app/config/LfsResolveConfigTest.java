package org.kafscale.proxy.app.config;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.apache.kafka.common.security.auth.KafkaPrincipal;
import org.junit.jupiter.api.Test;
import org.kafscale.proxy.lfs.resolve.FetchResolveSettings;
import org.kafscale.proxy.lfs.resolve.ResolveRule;

/** KAFSCALE_LFS_PROXY_FETCH_RESOLVE_* and the gateway file's lfsResolve rules. */
class LfsResolveConfigTest {

    @Test
    void resolutionIsOffByDefaultWithA256MiBBudget() {
        FetchResolveSettings settings = ProxyConfig.from(LfsConfigTest.enabled()).lfsFetchResolve();

        assertTrue(settings.isOff());
        assertEquals(256L << 20, settings.memoryBytes());
    }

    @Test
    void eachCommaSeparatedExpressionIsARuleForEveryone() {
        Map<String, String> env = LfsConfigTest.enabled();
        env.put(LfsConfig.FETCH_RESOLVE_TOPICS, "media\\..*, video");
        env.put(LfsConfig.FETCH_RESOLVE_MEMORY_BYTES, "1048576");

        FetchResolveSettings settings = ProxyConfig.from(env).lfsFetchResolve();

        assertEquals(2, settings.rules().size());
        assertEquals("video", settings.rules().get(1).topics().pattern());
        assertTrue(settings.rules().get(0).principals().isEmpty());
        assertEquals(1 << 20, settings.memoryBytes());
    }

    @Test
    void aBadExpressionStopsStartUpNamingTheKey() {
        Map<String, String> env = LfsConfigTest.enabled();
        env.put(LfsConfig.FETCH_RESOLVE_TOPICS, "media,(");

        ConfigException e = assertThrows(ConfigException.class, () -> ProxyConfig.from(env));

        assertTrue(e.getMessage().contains(LfsConfig.FETCH_RESOLVE_TOPICS), e.getMessage());
    }

    @Test
    void resolutionWithoutLfsStopsStartUp() {
        Map<String, String> env = LfsConfigTest.enabled();
        env.remove(LfsConfig.LFS_ENABLED);
        env.put(LfsConfig.FETCH_RESOLVE_TOPICS, "media");

        ConfigException e = assertThrows(ConfigException.class, () -> ProxyConfig.from(env));

        assertTrue(e.getMessage().startsWith(LfsConfig.FETCH_RESOLVE_TOPICS + " is set, which needs "),
                e.getMessage());
    }

    @Test
    void gatewayRulesNameTopicsPrincipalsAndAVirtualCluster() {
        Gateway gateway = parse("""
                virtualClusters:
                  - {name: team-a, principals: ["User:alice"]}
                lfsResolve:
                  - {topics: "team-a\\\\..*", principals: ["User:alice"], virtualCluster: team-a}
                  - {topics: media}
                """);

        ResolveRule first = gateway.lfsResolve().get(0);
        assertEquals(Set.of(new KafkaPrincipal("User", "alice")), first.principals());
        assertEquals(Optional.of("team-a"), first.virtualCluster());
        assertTrue(gateway.lfsResolve().get(1).virtualCluster().isEmpty());
    }

    @Test
    void eachProblemOfAGatewayRuleNamesItsPath() {
        assertTrue(error("lfsResolve: [{topics: \"(\"}]").contains("at lfsResolve[0].topics: not a regular expression"));
        assertTrue(error("lfsResolve: [{principals: [\"User:a\"]}]").contains("at lfsResolve[0].topics: required"));
        assertTrue(error("lfsResolve: [{topics: x, principals: [alice]}]")
                .contains("at lfsResolve[0].principals[0]: 'alice' is not a principal"));
        assertTrue(error("lfsResolve: [{topics: x, virtualCluster: nobody}]")
                .contains("at lfsResolve[0].virtualCluster: expected the name of a virtual cluster"));
        assertTrue(error("lfsResolve: [{topics: x, tenants: [a]}]").contains("at lfsResolve[0].tenants: unknown key"));
        assertTrue(error("lfsResolve: {topics: x}").contains("at lfsResolve: expected a list"));
    }

    private static Gateway parse(String yaml) {
        return GatewayFile.parse("gateway.yaml", yaml.getBytes(StandardCharsets.UTF_8));
    }

    private static String error(String yaml) {
        return assertThrows(ConfigException.class, () -> parse(yaml)).getMessage();
    }
}
