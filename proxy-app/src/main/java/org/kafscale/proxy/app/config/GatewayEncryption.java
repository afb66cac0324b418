package org.kafscale.proxy.app.config;

import com.fasterxml.jackson.databind.JsonNode;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.function.UnaryOperator;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.regex.PatternSyntaxException;
import org.apache.kafka.common.security.auth.KafkaPrincipal;
import org.kafscale.proxy.core.codec.AclNames;
import org.kafscale.proxy.core.encryption.EncryptionRule;
import org.kafscale.proxy.core.encryption.KeyEncryptionKeys;
import org.kafscale.proxy.core.encryption.KeyStoreKeys;
import org.kafscale.proxy.core.encryption.Pkcs11Keys;

/**
 * Reads the gateway file's {@code encryption} rules:
 * <pre>
 * encryption:
 *   - topics: "secret\\..*"                 # a regular expression over whole real topic names
 *     kek:
 *       keystore: kek.p12                    # PKCS#12, relative to the gateway file
 *       password: ${env:KEK_PASSWORD}        # or the text itself
 *       alias: kek-1                         # an AES secret key
 *     allow: ["User:alice"]                  # who reads plaintext on Fetch
 *     rotateAfterRecords: 1000000            # optional
 *     rotateAfterSeconds: 3600               # optional
 *     headers: true                          # optional: headers encrypted too (default false)
 *   - topics: "vault\\..*"
 *     kek:
 *       pkcs11: {library: /usr/lib/softhsm/libsofthsm2.so, slot: 1, pin: ${env:HSM_PIN}, label: kek-1}
 * </pre>
 * The key store is opened here, so one that does not open, or lacks the alias, stops start-up
 * naming its path in the file ({@code encryption[0].kek.alias}); so does a token that does not
 * log in ({@code encryption[0].kek.pkcs11.pin}).
 */
final class GatewayEncryption {
    private static final Set<String> KEYS = Set.of("topics", "kek", "allow", "rotateAfterRecords",
            "rotateAfterSeconds", "headers");
    private static final Set<String> KEK_KEYS = Set.of("keystore", "password", "alias");
    private static final Set<String> PKCS11_KEYS = Set.of("library", "slot", "slotListIndex", "pin", "label");
    private static final Pattern ENV = Pattern.compile("\\$\\{env:([A-Za-z_][A-Za-z0-9_]*)}");

    private GatewayEncryption() {
    }

    /**
     * @param dir the folder key-store files are read relative to
     * @param env the environment {@code ${env:VAR}} reads
     */
    static List<EncryptionRule> parse(String where, String path, JsonNode node, Path dir, UnaryOperator<String> env) {
        if (node == null || node.isNull()) {
            return List.of();
        }
        if (!node.isArray()) {
            throw invalid(where, path, "expected a list of rules (topics, kek, allow)");
        }
        List<EncryptionRule> rules = new ArrayList<>();
        for (int i = 0; i < node.size(); i++) {
            rules.add(rule(where, path + "[" + i + "]", node.get(i), dir, env));
        }
        return rules;
    }

    private static EncryptionRule rule(String where, String path, JsonNode node, Path dir, UnaryOperator<String> env) {
        checkKeys(where, path, node, KEYS);
        Pattern topics;
        String regex = text(where, path + ".topics", node.get("topics"));
        try {
            topics = Pattern.compile(regex);
        } catch (PatternSyntaxException e) {
            throw invalid(where, path + ".topics", "not a regular expression: " + e.getDescription());
        }
        KeyEncryptionKeys keys = keks(where, path + ".kek", node.get("kek"), dir, env);
        long records = positive(where, path + ".rotateAfterRecords", node.get("rotateAfterRecords"),
                EncryptionRule.DEFAULT_ROTATE_AFTER_RECORDS);
        long seconds = positive(where, path + ".rotateAfterSeconds", node.get("rotateAfterSeconds"),
                EncryptionRule.DEFAULT_ROTATE_AFTER.toSeconds());
        JsonNode headers = node.get("headers");
        if (headers != null && !headers.isNull() && !headers.isBoolean()) {
            throw invalid(where, path + ".headers", "expected true or false");
        }
        return new EncryptionRule(topics, keys, allowed(where, path + ".allow", node.get("allow")), records,
                Duration.ofSeconds(seconds), headers != null && headers.asBoolean());
    }

    /** The rule's KEK: a key-store file's key, or a PKCS#11 token's ({@code pkcs11:}). */
    private static KeyEncryptionKeys keks(String where, String path, JsonNode kek, Path dir, UnaryOperator<String> env) {
        if (kek == null || kek.isNull()) {
            throw invalid(where, path, "required (keystore, password, alias; or pkcs11)");
        }
        if (kek.isObject() && kek.has("pkcs11")) {
            checkKeys(where, path, kek, Set.of("pkcs11"));
            return pkcs11(where, path + ".pkcs11", kek.get("pkcs11"), env);
        }
        checkKeys(where, path, kek, KEK_KEYS);
        Path keystore = dir.resolve(text(where, path + ".keystore", kek.get("keystore")));
        String password = expand(where, path + ".password", text(where, path + ".password",
                kek.get("password")), env);
        String alias = text(where, path + ".alias", kek.get("alias"));
        try {
            return KeyStoreKeys.open(keystore, password.toCharArray(), alias);
        } catch (IllegalArgumentException e) {
            // Which key is wrong: the file (or its password) when it does not open, else the alias.
            String at = e.getMessage().startsWith("key store ") ? ".keystore" : ".alias";
            throw invalid(where, path + at, e.getMessage());
        }
    }

    /**
     * {@code pkcs11: {library, slot | slotListIndex, pin, label}}: the token is logged in to here,
     * so a wrong PIN or label stops start-up naming its path.
     */
    private static KeyEncryptionKeys pkcs11(String where, String path, JsonNode node, UnaryOperator<String> env) {
        checkKeys(where, path, node, PKCS11_KEYS);
        Path library = Path.of(text(where, path + ".library", node.get("library")));
        boolean byId = node.hasNonNull("slot");
        if (byId == node.hasNonNull("slotListIndex")) {
            throw invalid(where, path + ".slot", "give one of slot (the slot id) and slotListIndex");
        }
        String slotPath = path + (byId ? ".slot" : ".slotListIndex");
        JsonNode slotNode = node.get(byId ? "slot" : "slotListIndex");
        if (!slotNode.isIntegralNumber() || !slotNode.canConvertToLong() || slotNode.asLong() < 0
                || (!byId && !slotNode.canConvertToInt())) {
            throw invalid(where, slotPath, "expected a whole number, 0 or more");
        }
        Pkcs11Keys.Slot slot = byId ? Pkcs11Keys.Slot.id(slotNode.asLong()) : Pkcs11Keys.Slot.index(slotNode.asInt());
        String pin = expand(where, path + ".pin", text(where, path + ".pin", node.get("pin")), env);
        String label = text(where, path + ".label", node.get("label"));
        try {
            return Pkcs11Keys.open(library, slot, pin.toCharArray(), label);
        } catch (Pkcs11Keys.OpenFailure e) {
            String at = switch (e.setting()) {
                case LIBRARY -> ".library";
                case SLOT -> slotPath.substring(path.length());
                case PIN -> ".pin";
                case LABEL -> ".label";
            };
            throw invalid(where, path + at, e.getMessage());
        }
    }

    static Set<KafkaPrincipal> allowed(String where, String path, JsonNode node) {
        Set<KafkaPrincipal> principals = new LinkedHashSet<>();
        if (node == null || node.isNull()) {
            return principals;
        }
        if (!node.isArray()) {
            throw invalid(where, path, "expected a list of principals (User:alice)");
        }
        for (int i = 0; i < node.size(); i++) {
            String name = text(where, path + "[" + i + "]", node.get(i));
            try {
                principals.add(AclNames.principal(name));
            } catch (IllegalArgumentException e) {
                throw invalid(where, path + "[" + i + "]", "'" + name + "' is not a principal (expected Type:name)");
            }
        }
        return principals;
    }

    /** {@code ${env:VAR}} replaced by the variable's value; a variable that is not set is an error. */
    private static String expand(String where, String path, String text, UnaryOperator<String> env) {
        Matcher matcher = ENV.matcher(text);
        StringBuilder out = new StringBuilder();
        while (matcher.find()) {
            String value = env.apply(matcher.group(1));
            if (value == null) {
                throw invalid(where, path, "environment variable " + matcher.group(1) + " is not set");
            }
            matcher.appendReplacement(out, Matcher.quoteReplacement(value));
        }
        matcher.appendTail(out);
        return out.toString();
    }

    private static long positive(String where, String path, JsonNode node, long absent) {
        if (node == null || node.isNull()) {
            return absent;
        }
        if (!node.isIntegralNumber() || !node.canConvertToLong() || node.asLong() < 1) {
            throw invalid(where, path, "expected a positive whole number");
        }
        return node.asLong();
    }

    private static String text(String where, String path, JsonNode node) {
        if (node == null || node.isNull()) {
            throw invalid(where, path, "required");
        }
        if (!node.isTextual() || node.asText().isBlank()) {
            throw invalid(where, path, "expected a non-empty string");
        }
        return node.asText();
    }

    private static void checkKeys(String where, String path, JsonNode node, Set<String> keys) {
        if (node == null) {
            throw invalid(where, path, "expected a map of " + String.join(", ", keys.stream().sorted().toList()));
        }
        GatewayQuotas.checkKeys(where, path, node, keys);
    }

    private static ConfigException invalid(String where, String path, String problem) {
        return GatewayQuotas.invalid(where, path, problem);
    }
}
