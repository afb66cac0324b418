package org.kafscale.proxy.core.policy;

import java.util.HashMap;
import java.util.Map;
import org.apache.kafka.common.errors.UnsupportedVersionException;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.ApiMessage;

/**
 * Which Kafka API a generated body class belongs to, and whether it is that API's request or its
 * answer: how a typed hook ({@link Hooks#onRequest}, {@link Hooks#onAnswer}) finds its key. Read
 * once from kafka-clients' own table ({@code ApiKeys.messageType}'s {@code newRequest()} and
 * {@code newResponse()}), so a key kafka-clients adds is known without a line here.
 */
final class ApiBodies {
    private static final Map<Class<?>, ApiKeys> REQUESTS = new HashMap<>();
    private static final Map<Class<?>, ApiKeys> ANSWERS = new HashMap<>();

    static {
        for (ApiKeys api : ApiKeys.values()) {
            try {
                REQUESTS.put(api.messageType.newRequest().getClass(), api);
                ANSWERS.put(api.messageType.newResponse().getClass(), api);
            } catch (UnsupportedVersionException removed) {
                // A key Kafka removed (LeaderAndIsr, ...) keeps its ApiKeys value but has no body class.
            }
        }
    }

    private ApiBodies() {
    }

    /** The API whose request body {@code body} is; refused when it is none's. */
    static ApiKeys ofRequest(Class<? extends ApiMessage> body) {
        return find(REQUESTS, body, "onRequest", "request", ANSWERS, "onAnswer");
    }

    /** The API whose answer (response body) {@code body} is; refused when it is none's. */
    static ApiKeys ofAnswer(Class<? extends ApiMessage> body) {
        return find(ANSWERS, body, "onAnswer", "response", REQUESTS, "onRequest");
    }

    private static ApiKeys find(Map<Class<?>, ApiKeys> bodies, Class<?> body, String hook, String kind,
                                Map<Class<?>, ApiKeys> otherWay, String otherHook) {
        ApiKeys api = bodies.get(body);
        if (api != null) {
            return api;
        }
        ApiKeys other = otherWay.get(body);
        if (other != null) {
            throw new IllegalArgumentException(hook + " takes a " + kind + " body, and " + body.getName()
                    + " is the other body of " + other + ": register it with " + otherHook);
        }
        throw new IllegalArgumentException(hook + " takes the generated " + kind + " body of a Kafka API (a class"
                + " kafka-clients' ApiKeys makes, such as ProduceRequestData or FetchResponseData), and "
                + body.getName() + " is the body of none");
    }
}
