package org.kafscale.proxy.app.config;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Set;
import org.apache.kafka.common.security.auth.KafkaPrincipal;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.kafscale.proxy.core.encryption.EncryptionRule;
import org.kafscale.proxy.testkit.SecretKeyStores;

class GatewayEncryptionTest {
    @TempDir
    static Path dir;

    @BeforeAll
    static void writeKeyStore() throws Exception {
        SecretKeyStores.aesKey(dir.resolve("kek.p12"), "kek-1", "pw");
    }

    private static Gateway read(String encryption) throws Exception {
        Path file = Files.writeString(dir.resolve("gateway.yaml"), """
                virtualClusters:
                  - name: team-a
                    principals: [User:alice]
                encryption:
                """ + encryption.indent(2));
        return GatewayFile.read(file);
    }

    private static String error(String encryption) {
        return assertThrows(ConfigException.class, () -> read(encryption)).getMessage();
    }

    @Test
    void aRuleOpensItsKeyStoreRelativeToTheGatewayFileWithDefaultRotation() throws Exception {
        EncryptionRule rule = read("""
                - topics: "team-a\\\\.secret\\\\..*"
                  kek: {keystore: kek.p12, password: pw, alias: kek-1}
                  allow: [User:alice]
                """).encryption().get(0);
        assertTrue(rule.topics().matcher("team-a.secret.orders").matches());
        assertEquals("kek-1", rule.keks().keyId());
        assertEquals(Set.of(new KafkaPrincipal("User", "alice")), rule.allowed());
        assertEquals(EncryptionRule.DEFAULT_ROTATE_AFTER_RECORDS, rule.rotateAfterRecords());
        assertEquals(EncryptionRule.DEFAULT_ROTATE_AFTER, rule.rotateAfter());
        assertFalse(rule.headers(), "headers stay in clear unless asked");
        Gateway rotated = read("""
                - topics: "x"
                  kek: {keystore: kek.p12, password: pw, alias: kek-1}
                  rotateAfterRecords: 10
                  rotateAfterSeconds: 60
                  headers: true
                """);
        assertTrue(rotated.encryption().get(0).headers());
        assertEquals(10, rotated.encryption().get(0).rotateAfterRecords());
        assertEquals(Duration.ofMinutes(1), rotated.encryption().get(0).rotateAfter());
    }

    @Test
    void aKeyStoreThatDoesNotOpenOrLacksTheAliasStopsStartUpNamingThePath() {
        String prefix = "KAFSCALE_PROXY_GATEWAY_FILE (" + dir.resolve("gateway.yaml") + ") is invalid at ";
        String alias = error("- {topics: x, kek: {keystore: kek.p12, password: pw, alias: kek-2}}");
        assertTrue(alias.startsWith(prefix + "encryption[0].kek.alias: "), alias);
        String password = error("- {topics: x, kek: {keystore: kek.p12, password: wrong, alias: kek-1}}");
        assertTrue(password.startsWith(prefix + "encryption[0].kek.keystore: "), password);
        String missing = error("- {topics: x, kek: {keystore: none.p12, password: pw, alias: kek-1}}");
        assertTrue(missing.startsWith(prefix + "encryption[0].kek.keystore: "), missing);
    }

    @Test
    void eachProblemOfARuleNamesItsPath() {
        assertTrue(error("- {topics: x, kek: {keystore: kek.p12, password: pw}}")
                .contains("at encryption[0].kek.alias: required"));
        assertTrue(error("- {topics: \"(\", kek: {keystore: kek.p12, password: pw, alias: kek-1}}")
                .contains("at encryption[0].topics: not a regular expression"));
        assertTrue(error("- {topics: x, kek: {keystore: kek.p12, password: pw, alias: kek-1}, allow: [alice]}")
                .contains("at encryption[0].allow[0]: 'alice' is not a principal"));
        assertTrue(error("- {topics: x, kek: {keystore: kek.p12, password: pw, alias: kek-1}, headers: yes-please}")
                .contains("at encryption[0].headers: expected true or false"));
        assertTrue(error("- {topics: x, kek: {keystore: kek.p12, password: pw, alias: kek-1}, rotateAfterRecords: 0}")
                .contains("at encryption[0].rotateAfterRecords: expected a positive whole number"));
        assertTrue(error("- {topics: x, kek: {keystore: kek.p12, password: \"${env:KAFSCALE_NO_SUCH_VAR}\", "
                + "alias: kek-1}}").contains("at encryption[0].kek.password: environment variable "
                + "KAFSCALE_NO_SUCH_VAR is not set"));
    }

    @Test
    void eachProblemOfAPkcs11KekNamesItsPathBeforeAnyTokenIsOpened() throws Exception {
        String token = "library: /usr/lib/softhsm/libsofthsm2.so, slot: 1, pin: \"1234\", label: kek-1";
        assertTrue(error("- {topics: x, kek: {pkcs11: {" + token + "}, alias: kek-1}}")
                .contains("at encryption[0].kek.alias: unknown key"));
        assertTrue(error("- {topics: x, kek: {pkcs11: {" + token + ", slotListIndex: 0}}}")
                .contains("at encryption[0].kek.pkcs11.slot: give one of slot (the slot id) and slotListIndex"));
        assertTrue(error("- {topics: x, kek: {pkcs11: {library: /l.so, pin: \"1\", label: k}}}")
                .contains("at encryption[0].kek.pkcs11.slot: give one of"));
        assertTrue(error("- {topics: x, kek: {pkcs11: {library: /l.so, slotListIndex: -1, pin: \"1\", label: k}}}")
                .contains("at encryption[0].kek.pkcs11.slotListIndex: expected a whole number, 0 or more"));
        assertTrue(error("- {topics: x, kek: {pkcs11: {library: /l.so, slot: 1, label: k}}}")
                .contains("at encryption[0].kek.pkcs11.pin: required"));
        assertTrue(error("- {topics: x, kek: {pkcs11: {library: /l.so, slot: 1, pin: \"1\"}}}")
                .contains("at encryption[0].kek.pkcs11.label: required"));
        assertTrue(error("- {topics: x, kek: {pkcs11: {library: /l.so, slot: 1, pin: \"1\", label: k, id: 3}}}")
                .contains("at encryption[0].kek.pkcs11.id: unknown key"));
        assertTrue(error("- {topics: x, kek: {pkcs11: {library: /l.so, slot: 1, pin: \"${env:KAFSCALE_NO_SUCH_VAR}\","
                + " label: k}}}").contains("at encryption[0].kek.pkcs11.pin: environment variable "
                + "KAFSCALE_NO_SUCH_VAR is not set"));
        assertTrue(error("- {topics: x, kek: {pkcs11: {library: /no/such/lib.so, slot: 1, pin: \"1\", label: k}}}")
                .contains("at encryption[0].kek.pkcs11.library: PKCS#11 library /no/such/lib.so is not a file"));
        // A file that is no shared library fails where SunPKCS11 loads it.
        Path notALibrary = Files.writeString(dir.resolve("not-a-library.so"), "text");
        assertTrue(error("- {topics: x, kek: {pkcs11: {library: \"" + notALibrary + "\", slot: 1, pin: \"1\","
                + " label: k}}}").contains("at encryption[0].kek.pkcs11.library: PKCS#11 library " + notALibrary
                + " does not load"));
    }
}
