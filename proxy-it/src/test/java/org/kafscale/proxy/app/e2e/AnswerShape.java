package org.kafscale.proxy.app.e2e;

import com.fasterxml.jackson.databind.JsonNode;
import java.lang.reflect.Method;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.function.Predicate;
import java.util.regex.Pattern;
import org.apache.kafka.common.protocol.ApiMessage;

/**
 * An answer reduced to what must be the same through the proxy and direct: its structure (fields
 * present, value types, the number of elements at every level) and the values that name things
 * (topics, partitions, groups, transactional ids, resources). Everything else (node ids, hosts,
 * ports, throttle times, offsets, epochs, member and session ids, timestamps, record bytes) is
 * reduced to its type, as it legitimately differs between two calls or between proxy and broker.
 *
 * <p>Arrays are compared as multisets (sorted), since a merged answer may order them differently.
 * Built from kafka-clients' generated {@code *JsonConverter} of the answer's class.
 */
final class AnswerShape {
    /** Leaves kept by value: what the answer is about. */
    private static final Set<String> IDENTITIES = Set.of("name", "topic", "topicName", "topicId", "groupId", "groupIds",
            "partitionIndex", "partition", "partitionIndexes", "transactionalId", "resourceName", "resourceType", "key",
            "protocolType", "apiKey", "feature", "entityType", "entityName", "user");
    /** The tail of a name made for one call ({@link ApiTestState#freshName}): the two calls name different ones. */
    private static final Pattern FRESH_TAIL = Pattern.compile(Pattern.quote(ApiTestState.FRESH) + "[0-9]+");
    /** Node ids, by field name: in single mode only node 0 (or -1, none) may appear. */
    private static final Pattern NODE_ID = Pattern.compile(
            "(?i)(nodeId|leaderId|leader|brokerId|coordinatorId|controllerId|replicaNodes|isrNodes|offlineReplicas"
                    + "|eligibleLeaderReplicas|lastKnownElr|preferredReadReplica|replicas|addingReplicas|removingReplicas)");

    private AnswerShape() {
    }

    /** The answer as kafka-clients writes it to JSON at {@code version}. */
    static JsonNode json(ApiMessage answer, short version) {
        try {
            Class<?> converter = Class.forName(answer.getClass().getName() + "JsonConverter");
            Method write = converter.getMethod("write", answer.getClass(), short.class);
            return (JsonNode) write.invoke(null, answer, version);
        } catch (ReflectiveOperationException e) {
            throw new IllegalStateException("no JSON converter for " + answer.getClass().getName(), e);
        }
    }

    /**
     * The canonical shape of {@code answer}, with the fields at the paths {@code skipped} accepts
     * left out (paths as {@code topics[].partitions[].replicaNodes}).
     */
    static String of(JsonNode answer, Predicate<String> skipped) {
        return canonical(answer, "", null, skipped);
    }

    private static String canonical(JsonNode node, String path, String field, Predicate<String> skipped) {
        if (node.isObject()) {
            Map<String, String> fields = new TreeMap<>();
            for (Iterator<Map.Entry<String, JsonNode>> it = node.fields(); it.hasNext();) {
                Map.Entry<String, JsonNode> entry = it.next();
                String childPath = path.isEmpty() ? entry.getKey() : path + "." + entry.getKey();
                if (!skipped.test(childPath)) {
                    fields.put(entry.getKey(), canonical(entry.getValue(), childPath, entry.getKey(), skipped));
                }
            }
            return fields.toString();
        }
        if (node.isArray()) {
            List<String> elements = new ArrayList<>();
            node.forEach(element -> elements.add(canonical(element, path + "[]", field, skipped)));
            elements.sort(null);
            return elements.toString();
        }
        if (field != null && IDENTITIES.contains(field)) {
            return FRESH_TAIL.matcher(node.toString()).replaceAll(ApiTestState.FRESH + "#");
        }
        return node.getNodeType().toString();
    }

    /** Every node id value in the answer, as "path=value". */
    static List<String> nodeIds(JsonNode answer) {
        List<String> found = new ArrayList<>();
        collectNodeIds(answer, "", null, found);
        return found;
    }

    private static void collectNodeIds(JsonNode node, String path, String field, List<String> found) {
        if (node.isObject()) {
            node.fields().forEachRemaining(e -> collectNodeIds(e.getValue(),
                    path.isEmpty() ? e.getKey() : path + "." + e.getKey(), e.getKey(), found));
        } else if (node.isArray()) {
            node.forEach(element -> collectNodeIds(element, path + "[]", field, found));
        } else if (node.isIntegralNumber() && field != null && NODE_ID.matcher(field).matches()) {
            found.add(path + "=" + node.asLong());
        }
    }

    /** The ports of {@code ports} that occur as a number anywhere in the answer's JSON. */
    static List<Integer> portsIn(JsonNode answer, List<Integer> ports) {
        String text = answer.toString();
        return ports.stream().filter(p -> Pattern.compile("(?<![0-9])" + p + "(?![0-9])").matcher(text).find()).toList();
    }
}
