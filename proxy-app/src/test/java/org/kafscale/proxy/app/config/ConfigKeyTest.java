package org.kafscale.proxy.app.config;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import java.util.Arrays;
import java.util.Optional;
import java.util.Set;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

class ConfigKeyTest {

    @Test
    void everyNameProxyConfigAndLfsConfigPublishIsARegisteredKeyAndViceVersa() throws Exception {
        // Given
        Set<String> published = new java.util.HashSet<>();
        for (Class<?> config : new Class<?>[] {ProxyConfig.class, LfsConfig.class}) {
            for (Field field : config.getFields()) {
                if (Modifier.isStatic(field.getModifiers()) && field.getType() == String.class) {
                    published.add((String) field.get(null));
                }
            }
        }
        // Then
        Set<String> registered = Arrays.stream(ConfigKey.values()).map(ConfigKey::envName).collect(Collectors.toSet());
        assertEquals(registered, published);
    }

    @Test
    void everyKeyHasASettingPrefixAndFixedDefaultsFitTheirRange() {
        for (ConfigKey key : ConfigKey.values()) {
            assertTrue(ConfigKey.hasSettingPrefix(key.envName()), key.envName());
            key.range().ifPresent(range -> key.defaultValue().ifPresent(value -> {
                long parsed = Long.parseLong(value);
                assertTrue(parsed >= range.min() && parsed <= range.max(), key.envName());
            }));
        }
    }

    @Test
    void closestSuggestsTyposCaseAndMissingPrefixButNotStrangers() {
        assertEquals(Optional.of(ConfigKey.ADDR), ConfigKey.closest("KAFSCALE_PROXY_ADRR"));
        assertEquals(Optional.of(ConfigKey.HEALTH_ADDR), ConfigKey.closest("kafscale-proxy-health-addr"));
        assertEquals(Optional.of(ConfigKey.MAX_IN_FLIGHT), ConfigKey.closest("MAX_IN_FLIGHT"));
        assertEquals(Optional.empty(), ConfigKey.closest("listen"));
    }
}
