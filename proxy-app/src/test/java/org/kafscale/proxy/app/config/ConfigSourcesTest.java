package org.kafscale.proxy.app.config;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.kafscale.proxy.core.local.AdvertiseMode;

class ConfigSourcesTest {
    @TempDir
    Path dir;

    @Test
    void fileIsOverriddenByEnvironmentWhichIsOverriddenByFlags() throws Exception {
        // Given the same key in all three sources, and one key each in file and environment only
        Path file = Files.writeString(dir.resolve("proxy.yaml"), """
                KAFSCALE_PROXY_MAX_IN_FLIGHT: 10
                KAFSCALE_PROXY_DIAL_TIMEOUT_MS: 1000
                KAFSCALE_PROXY_REQUEST_TIMEOUT_MS: 2000
                KAFSCALE_PROXY_BACKENDS: broker-0:9092
                """);
        Map<String, String> env = Map.of(
                "KAFSCALE_PROXY_MAX_IN_FLIGHT", "20",
                "KAFSCALE_PROXY_DIAL_TIMEOUT_MS", "3000");
        CommandLine commandLine = CommandLine.parse("--config", file.toString(), "--KAFSCALE_PROXY_MAX_IN_FLIGHT=30");
        // When
        ProxyConfig config = ProxyConfig.from(ConfigSources.resolve(commandLine, env));
        // Then
        assertEquals(30, config.maxInFlightPerConnection(), "flag beats environment and file");
        assertEquals(Duration.ofMillis(3000), config.connectTimeout(), "environment beats file");
        assertEquals(Duration.ofMillis(2000), config.requestTimeout(), "file beats default");
        assertEquals(Duration.ofMillis(1_000), config.metadataRefresh(), "default when no source sets it");
    }

    @Test
    void yamlFileValuesConfigureTheProxy() throws Exception {
        // Given
        Path file = Files.writeString(dir.resolve("proxy.yaml"), """
                # the same names as the environment
                KAFSCALE_PROXY_ADDR: ":19092"
                KAFSCALE_PROXY_ADVERTISED_HOST: proxy.example
                KAFSCALE_PROXY_ADVERTISE_MODE: single
                KAFSCALE_PROXY_BACKENDS:
                  - broker-0:9092
                  - broker-1:9092
                KAFSCALE_PROXY_BACKEND_CACHE_TTL_SEC: 030
                KAFSCALE_PROXY_HEALTH_ADDR:
                """);
        // When
        ProxyConfig config = ProxyConfig.from(ConfigSources.merge(Optional.of(file), Map.of(), Map.of()));
        // Then
        assertEquals(new HostPort("", 19092), config.listen());
        assertEquals("proxy.example", config.advertisedHost());
        assertEquals(AdvertiseMode.SINGLE, config.advertiseMode());
        assertEquals(List.of(new HostPort("broker-0", 9092), new HostPort("broker-1", 9092)), config.backends());
        assertEquals(Duration.ofSeconds(30), config.backendCacheTtl(), "numbers are read as written, in decimal");
        assertTrue(config.health().isEmpty(), "an empty value is unset");
    }

    @Test
    void flagsAcceptBothTheEqualsAndTheSeparateValueForm() {
        // When
        CommandLine commandLine = CommandLine.parse("run", "--KAFSCALE_PROXY_ADDR", ":9093",
                "--KAFSCALE_PROXY_HEALTH_ADDR=:9094", "--config=proxy.yaml");
        // Then
        assertEquals(CommandLine.Command.RUN, commandLine.command());
        assertEquals(Map.of("KAFSCALE_PROXY_ADDR", ":9093", "KAFSCALE_PROXY_HEALTH_ADDR", ":9094"), commandLine.flags());
        assertEquals(Optional.of(Path.of("proxy.yaml")), commandLine.configFile());
    }

    @Test
    void noArgumentsMeansRunWithNoFlags() {
        CommandLine commandLine = CommandLine.parse();
        assertEquals(new CommandLine(CommandLine.Command.RUN, Optional.empty(), Map.of()), commandLine);
    }

    @Test
    void helpAnywhereWinsOverEverythingElse() {
        assertEquals(CommandLine.Command.HELP, CommandLine.parse("run", "--bogus=1", "--help").command());
        assertEquals(CommandLine.Command.HELP, CommandLine.parse("help").command());
        assertEquals(CommandLine.Command.HELP, CommandLine.parse("-h").command());
    }

    @Test
    void blankValueDoesNotHideALowerSource() throws Exception {
        // Given
        Path file = Files.writeString(dir.resolve("proxy.yaml"), "KAFSCALE_PROXY_BACKENDS: broker-0:9092\n");
        // When
        Map<String, String> merged = ConfigSources.merge(Optional.of(file),
                Map.of("KAFSCALE_PROXY_BACKENDS", ""), Map.of("KAFSCALE_PROXY_BACKENDS", " "));
        // Then
        assertEquals("broker-0:9092", merged.get("KAFSCALE_PROXY_BACKENDS"));
    }

    @Test
    void environmentKeepsOnlyKafscaleVariables() {
        Map<String, String> merged = ConfigSources.merge(Optional.empty(),
                Map.of("PATH", "/usr/bin", "KAFSCALE_PROXY_ADDR", ":9092"), Map.of());
        assertEquals(Map.of("KAFSCALE_PROXY_ADDR", ":9092"), merged);
    }

    @Test
    void unknownVariablesWithASettingPrefixAreReportedAndKnownLfsOnesAreNot() {
        // Given
        Map<String, String> env = Map.of(
                "KAFSCALE_PROXY_ADRR", ":9092",
                "KAFSCALE_PROXY_LFS_ENABLED", "true",
                "KAFSCALE_LFS_PROXY_ADDR", ":8080",
                "KAFSCALE_LFS_PROXY_S3_BUCKET", "bucket",
                "KAFSCALE_PROXY_ADDR", ":9092",
                "HOME", "/root");
        // When
        List<String> unread = ConfigSources.unreadProxyVariables(env);
        Map<String, String> merged = ConfigSources.merge(Optional.empty(), env, Map.of());
        // Then
        assertEquals(List.of("KAFSCALE_LFS_PROXY_ADDR", "KAFSCALE_PROXY_ADRR"), unread);
        assertEquals(":9092", merged.get("KAFSCALE_PROXY_ADDR"), "an unknown variable is a warning, not an error");
        assertFalse(merged.containsKey("HOME"));
    }

    @Test
    void aMisspeltSecuritySettingStopsStartUpNamingTheRightOne() {
        // Given the name the review found in use for the LFS API key
        Map<String, String> env = Map.of("KAFSCALE_LFS_PROXY_API_KEY", "s3cr3t", "KAFSCALE_PROXY_ADDR", ":9092");
        // When
        ConfigException error = assertThrows(ConfigException.class,
                () -> ConfigSources.merge(Optional.empty(), env, Map.of()));
        // Then
        assertTrue(error.getMessage().contains("KAFSCALE_LFS_PROXY_HTTP_API_KEY"), error.getMessage());
    }

    @Test
    void aSpellingSlipInASecuritySettingStopsStartUp() {
        ConfigException error = assertThrows(ConfigException.class, () -> ConfigSources.merge(Optional.empty(),
                Map.of("KAFSCALE_PROXY_ETCD_PASWORD", "x"), Map.of()));
        assertTrue(error.getMessage().contains("KAFSCALE_PROXY_ETCD_PASSWORD"), error.getMessage());
    }

    @Test
    void aMisspeltListenerTlsSettingStopsStartUpNamingTheRightOne() {
        ConfigException error = assertThrows(ConfigException.class, () -> ConfigSources.merge(Optional.empty(),
                Map.of("KAFSCALE_PROXY_TLS_CERT_FLE", "/etc/tls.crt"), Map.of()));
        assertTrue(error.getMessage().contains("KAFSCALE_PROXY_TLS_CERT_FILE"), error.getMessage());
    }

    @Test
    void aNameThatReadsLikeASecuritySettingButIsNoneStopsStartUpNamingTheNearestSecuritySetting() {
        // Given a misspelt backend password, a TLS detail that is not a setting, and a harmless unknown name
        for (Map.Entry<String, String> misspelt : Map.of(
                "KAFSCALE_PROXY_BACKEND_SASL_PASSWROD", "KAFSCALE_PROXY_BACKEND_SASL_PASSWORD",
                "KAFSCALE_PROXY_BACKEND_TLS_CA", "KAFSCALE_PROXY_BACKEND_TLS_CA_FILE",
                "KAFSCALE_PROXY_BACKEND_SASL_MECHANISMS", "KAFSCALE_PROXY_BACKEND_SASL_MECHANISM",
                "KAFSCALE_LFS_PROXY_BACKEND_TLS_CA_FILE", "KAFSCALE_PROXY_BACKEND_TLS_CA_FILE").entrySet()) {
            // When
            ConfigException error = assertThrows(ConfigException.class, () -> ConfigSources.merge(Optional.empty(),
                    Map.of(misspelt.getKey(), "x"), Map.of()), misspelt.getKey());
            // Then
            assertTrue(error.getMessage().contains(misspelt.getKey())
                    && error.getMessage().contains("did you mean " + misspelt.getValue() + "?"), error.getMessage());
        }
        assertEquals("x", ConfigSources.merge(Optional.empty(), Map.of("KAFSCALE_PROXY_COLOUR", "x"), Map.of())
                .get("KAFSCALE_PROXY_COLOUR"), "a name that reads like no security setting is only a warning");
    }
}
