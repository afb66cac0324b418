package org.kafscale.proxy.app.reload;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.Iterator;
import java.util.Map;
import java.util.TreeMap;
import java.util.regex.Pattern;

/**
 * What {@code GET /admin/config} must not show: the value of every setting, and of every field
 * of the gateway file, whose name says it is a secret. A value that only names where a secret is
 * ({@code ${env:VAR}}) is shown, as it tells an operator where to look and gives nothing away.
 */
final class Redaction {
    static final String REDACTED = "<redacted>";
    private static final Pattern SECRET_NAME = Pattern.compile(
            "(?i)PASS_?WORD|PASSWD|SECRET|TOKEN|API_?KEY|ACCESS_?KEY|(^|_)PIN$|^pin$|CREDENTIAL(S)?$");
    private static final Pattern REFERENCE = Pattern.compile("^\\$\\{env:[A-Za-z_][A-Za-z0-9_]*}$");

    private Redaction() {
    }

    /** The settings, sorted by name, with secrets' values redacted. */
    static Map<String, String> settings(Map<String, String> settings) {
        Map<String, String> shown = new TreeMap<>();
        settings.forEach((name, value) -> shown.put(name, hide(name, value)));
        return shown;
    }

    /** A copy of a gateway file's tree with secrets' values redacted, at any depth. */
    static JsonNode tree(JsonNode root) {
        JsonNode copy = root.deepCopy();
        redact(copy);
        return copy;
    }

    private static void redact(JsonNode node) {
        if (node instanceof ObjectNode object) {
            for (Iterator<Map.Entry<String, JsonNode>> fields = object.fields(); fields.hasNext(); ) {
                Map.Entry<String, JsonNode> field = fields.next();
                if (field.getValue().isValueNode() && SECRET_NAME.matcher(field.getKey()).find()) {
                    field.setValue(object.textNode(hide(field.getKey(), field.getValue().asText())));
                } else {
                    redact(field.getValue());
                }
            }
        } else if (node instanceof ArrayNode array) {
            array.forEach(Redaction::redact);
        }
    }

    private static String hide(String name, String value) {
        return SECRET_NAME.matcher(name).find() && !REFERENCE.matcher(value).matches() ? REDACTED : value;
    }
}
