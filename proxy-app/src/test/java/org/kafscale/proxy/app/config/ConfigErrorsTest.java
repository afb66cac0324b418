package org.kafscale.proxy.app.config;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Each class of bad value stops start-up with one line naming the key, the value and what is allowed. */
class ConfigErrorsTest {
    @TempDir
    Path dir;

    private static Map<String, String> withBackends(String key, String value) {
        Map<String, String> settings = new HashMap<>();
        settings.put("KAFSCALE_PROXY_BACKENDS", "broker-0:9092");
        settings.put(key, value);
        return settings;
    }

    private static String failure(Map<String, String> settings) {
        return assertThrows(ConfigException.class, () -> ProxyConfig.from(settings)).getMessage();
    }

    @Test
    void missingRequiredTopologyNamesBothSettings() {
        // Given neither backends nor etcd
        Map<String, String> settings = Map.of("KAFSCALE_PROXY_ADDR", ":9092");
        // When / Then
        assertEquals("KAFSCALE_PROXY_BACKENDS and KAFSCALE_PROXY_ETCD_ENDPOINTS are both unset: "
                + "name KafScale's etcd, or at least one broker (host:port)", failure(settings));
    }

    @Test
    void valueThatIsNotANumberNamesKeyValueAndRange() {
        assertEquals("KAFSCALE_PROXY_ADVERTISED_PORT=ninety is invalid: expected a whole number from 1 to 65535",
                failure(withBackends("KAFSCALE_PROXY_ADVERTISED_PORT", "ninety")));
    }

    @Test
    void valueThatIsNotANumberIsRefusedForKeysWithAFixedDefaultToo() {
        assertEquals("KAFSCALE_PROXY_IO_THREADS=x is invalid: expected a whole number from 0 to 1024",
                failure(withBackends("KAFSCALE_PROXY_IO_THREADS", "x")));
    }

    @Test
    void numberOutOfRangeNamesKeyValueAndRange() {
        assertEquals("KAFSCALE_PROXY_MAX_IN_FLIGHT=0 is invalid: expected a whole number from 1 to 100000",
                failure(withBackends("KAFSCALE_PROXY_MAX_IN_FLIGHT", "0")));
    }

    @Test
    void wordOutsideTheAllowedOnesListsThem() {
        assertEquals("KAFSCALE_PROXY_LOG_FORMAT=xml is invalid: expected one of plain, json",
                failure(withBackends("KAFSCALE_PROXY_LOG_FORMAT", "xml")));
    }

    @Test
    void probePartitionWithoutItsTopicSaysWhatIsMissing() {
        assertEquals("KAFSCALE_PROXY_READY_PROBE_PARTITION is set but KAFSCALE_PROXY_READY_PROBE_TOPIC is not: "
                + "name the topic the partition belongs to",
                failure(withBackends("KAFSCALE_PROXY_READY_PROBE_PARTITION", "0")));
    }

    @Test
    void malformedListenAddressNamesKeyValueAndForm() {
        assertEquals("KAFSCALE_PROXY_ADDR=localhost is invalid: expected host:port or :port with a port from 1 to 65535",
                failure(withBackends("KAFSCALE_PROXY_ADDR", "localhost")));
    }

    @Test
    void malformedBrokerAddressNamesTheBadItem() {
        assertEquals("KAFSCALE_PROXY_BACKENDS=broker-1 is invalid: expected a comma-separated list of host:port",
                failure(withBackends("KAFSCALE_PROXY_BACKENDS", "broker-0:9092,broker-1")));
    }

    private static Map<String, String> portsMode(String base, String count) {
        Map<String, String> settings = withBackends("KAFSCALE_PROXY_ADVERTISE_MODE", "ports");
        settings.put("KAFSCALE_PROXY_ADDR", ":9092");
        if (base != null) {
            settings.put("KAFSCALE_PROXY_BROKER_PORT_BASE", base);
        }
        if (count != null) {
            settings.put("KAFSCALE_PROXY_BROKER_PORT_COUNT", count);
        }
        return settings;
    }

    @Test
    void portsModeWithoutABasePortNamesTheMissingSetting() {
        assertEquals("KAFSCALE_PROXY_BROKER_PORT_BASE is required when KAFSCALE_PROXY_ADVERTISE_MODE=ports: "
                + "broker id N is served on that port + N", failure(portsMode(null, null)));
    }

    @Test
    void brokerPortsPast65535NameBothSettingsAndTheLastPort() {
        assertEquals("KAFSCALE_PROXY_BROKER_PORT_BASE=65500 with KAFSCALE_PROXY_BROKER_PORT_COUNT=64 is invalid: "
                + "the last broker port would be 65563, past 65535", failure(portsMode("65500", null)));
    }

    @Test
    void brokerPortsOverTheBootstrapPortNameIt() {
        assertEquals("KAFSCALE_PROXY_BROKER_PORT_BASE=9090 with KAFSCALE_PROXY_BROKER_PORT_COUNT=3 is invalid: "
                + "the broker ports 9090-9092 include KAFSCALE_PROXY_ADDR's port 9092", failure(portsMode("9090", "3")));
    }

    @Test
    void brokerPortsOverTheAdvertisedBootstrapPortNameIt() {
        Map<String, String> settings = portsMode("30000", "10");
        settings.put("KAFSCALE_PROXY_ADVERTISED_PORT", "30009");
        assertEquals("KAFSCALE_PROXY_BROKER_PORT_BASE=30000 with KAFSCALE_PROXY_BROKER_PORT_COUNT=10 is invalid: "
                + "the broker ports 30000-30009 include KAFSCALE_PROXY_ADVERTISED_PORT's port 30009", failure(settings));
    }

    @Test
    void brokerPortsOverTheHealthPortNameIt() {
        Map<String, String> settings = portsMode("9100", null);
        settings.put("KAFSCALE_PROXY_HEALTH_ADDR", ":9163");
        assertEquals("KAFSCALE_PROXY_BROKER_PORT_BASE=9100 with KAFSCALE_PROXY_BROKER_PORT_COUNT=64 is invalid: "
                + "the broker ports 9100-9163 include KAFSCALE_PROXY_HEALTH_ADDR's port 9163", failure(settings));
    }

    @Test
    void brokerPortsOverTheLfsPortNameIt() {
        Map<String, String> settings = portsMode("8000", "100");
        settings.put("KAFSCALE_LFS_PROXY_HTTP_ADDR", ":8080");
        settings.put("KAFSCALE_PROXY_LFS_ENABLED", "true");
        settings.put("KAFSCALE_LFS_PROXY_S3_BUCKET", "lfs-blobs");
        settings.put("KAFSCALE_LFS_PROXY_S3_REGION", "us-east-1");
        assertEquals("KAFSCALE_PROXY_BROKER_PORT_BASE=8000 with KAFSCALE_PROXY_BROKER_PORT_COUNT=100 is invalid: "
                + "the broker ports 8000-8099 include KAFSCALE_LFS_PROXY_HTTP_ADDR's port 8080", failure(settings));
    }

    @Test
    void brokerPortCountOfZeroNamesTheRange() {
        assertEquals("KAFSCALE_PROXY_BROKER_PORT_COUNT=0 is invalid: expected a whole number from 1 to 65535",
                failure(portsMode("9100", "0")));
    }

    @Test
    void unknownKeyInTheFileIsNamedWithTheClosestKnownKey() throws Exception {
        // Given
        Path file = Files.writeString(dir.resolve("proxy.yaml"), "KAFSCALE_PROXY_ADRR: \":9092\"\n");
        // When
        ConfigException e = assertThrows(ConfigException.class,
                () -> ConfigSources.merge(Optional.of(file), Map.of(), Map.of()));
        // Then
        assertEquals("unknown key KAFSCALE_PROXY_ADRR in " + file + "; did you mean KAFSCALE_PROXY_ADDR?",
                e.getMessage());
    }

    @Test
    void unknownKeyInTheFileWithoutAnyCloseKeyPointsToHelp() throws Exception {
        Path file = Files.writeString(dir.resolve("proxy.yaml"), "listen: \":9092\"\n");
        ConfigException e = assertThrows(ConfigException.class,
                () -> ConfigSources.merge(Optional.of(file), Map.of(), Map.of()));
        assertEquals("unknown key listen in " + file + "; --help lists the settings", e.getMessage());
    }

    @Test
    void unknownFlagIsNamedWithTheClosestKnownFlag() {
        ConfigException e = assertThrows(ConfigException.class,
                () -> CommandLine.parse("run", "--KAFSCALE_PROXY_BACKEND=broker-0:9092"));
        assertEquals("unknown flag --KAFSCALE_PROXY_BACKEND; did you mean --KAFSCALE_PROXY_BACKENDS?", e.getMessage());
    }

    @Test
    void flagNamedWithoutItsPrefixSuggestsTheFullName() {
        ConfigException e = assertThrows(ConfigException.class, () -> CommandLine.parse("--addr=:9092"));
        assertEquals("unknown flag --addr; did you mean --KAFSCALE_PROXY_ADDR?", e.getMessage());
    }

    @Test
    void flagWithoutItsValueSaysHowToGiveOne() {
        ConfigException e = assertThrows(ConfigException.class, () -> CommandLine.parse("--KAFSCALE_PROXY_ADDR"));
        assertEquals("flag --KAFSCALE_PROXY_ADDR needs a value: --KAFSCALE_PROXY_ADDR=value or --KAFSCALE_PROXY_ADDR value",
                e.getMessage());
    }

    @Test
    void missingConfigFileIsNamed() {
        Path missing = dir.resolve("missing.yaml");
        ConfigException e = assertThrows(ConfigException.class,
                () -> ConfigSources.merge(Optional.of(missing), Map.of(), Map.of()));
        assertEquals("--config=" + missing + " is invalid: expected a readable YAML file", e.getMessage());
    }

    @Test
    void fileThatIsNotAMapIsRefusedOnOneLine() throws Exception {
        Path file = Files.writeString(dir.resolve("proxy.yaml"), "- KAFSCALE_PROXY_ADDR\n- \":9092\"\n");
        ConfigException e = assertThrows(ConfigException.class,
                () -> ConfigSources.merge(Optional.of(file), Map.of(), Map.of()));
        assertEquals("--config=" + file + " is invalid: expected a flat YAML map of KEY: value", e.getMessage());
    }

    @Test
    void brokenYamlIsReportedOnOneLine() throws Exception {
        Path file = Files.writeString(dir.resolve("proxy.yaml"), "KAFSCALE_PROXY_ADDR: \":9092\n");
        ConfigException e = assertThrows(ConfigException.class,
                () -> ConfigSources.merge(Optional.of(file), Map.of(), Map.of()));
        assertFalse(e.getMessage().contains("\n"), e.getMessage());
        assertTrue(e.getMessage().startsWith("--config=" + file + " is invalid: expected a flat YAML map"),
                e.getMessage());
    }

    @Test
    void nestedMapInTheFileIsRefused() throws Exception {
        Path file = Files.writeString(dir.resolve("proxy.yaml"), "KAFSCALE_PROXY_ADDR:\n  host: a\n");
        ConfigException e = assertThrows(ConfigException.class,
                () -> ConfigSources.merge(Optional.of(file), Map.of(), Map.of()));
        assertEquals("KAFSCALE_PROXY_ADDR in " + file + " is invalid: expected a value or a list of values",
                e.getMessage());
    }
}
