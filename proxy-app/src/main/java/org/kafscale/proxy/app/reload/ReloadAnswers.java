package org.kafscale.proxy.app.reload;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.List;

/** A reload's outcome as JSON: {@code POST /admin/reload}'s answer, and {@code lastReload} in {@code GET /admin/config}. */
public final class ReloadAnswers {
    private ReloadAnswers() {
    }

    public static ObjectNode json(ReloadOutcome outcome) {
        ObjectNode json = JsonNodeFactory.instance.objectNode();
        json.put("result", outcome.result().label());
        json.put("trigger", outcome.trigger());
        json.put("at", outcome.at().toString());
        list(json.putArray("applied"), outcome.applied());
        list(json.putArray("atNextStart"), outcome.atNextStart());
        outcome.error().ifPresent(error -> {
            json.put("error", "invalid_configuration");
            json.put("message", error);
        });
        return json;
    }

    private static void list(ArrayNode array, List<String> items) {
        items.forEach(array::add);
    }
}
