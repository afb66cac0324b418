package org.kafscale.proxy.core.audit;

import java.util.ArrayList;
import java.util.EnumSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.function.Function;
import java.util.stream.Collectors;
import org.apache.kafka.clients.admin.ScramMechanism;
import org.apache.kafka.common.acl.AclOperation;
import org.apache.kafka.common.acl.AclPermissionType;
import org.apache.kafka.common.config.ConfigResource;
import org.apache.kafka.common.message.AlterClientQuotasRequestData;
import org.apache.kafka.common.message.AlterClientQuotasResponseData;
import org.apache.kafka.common.message.AlterConfigsRequestData;
import org.apache.kafka.common.message.AlterConfigsResponseData;
import org.apache.kafka.common.message.AlterPartitionReassignmentsRequestData;
import org.apache.kafka.common.message.AlterPartitionReassignmentsResponseData;
import org.apache.kafka.common.message.AlterUserScramCredentialsRequestData;
import org.apache.kafka.common.message.AlterUserScramCredentialsResponseData;
import org.apache.kafka.common.message.CreateAclsRequestData;
import org.apache.kafka.common.message.CreateAclsResponseData;
import org.apache.kafka.common.message.CreatePartitionsRequestData;
import org.apache.kafka.common.message.CreatePartitionsResponseData;
import org.apache.kafka.common.message.CreateTopicsRequestData;
import org.apache.kafka.common.message.CreateTopicsResponseData;
import org.apache.kafka.common.message.DeleteAclsRequestData;
import org.apache.kafka.common.message.DeleteAclsResponseData;
import org.apache.kafka.common.message.DeleteGroupsRequestData;
import org.apache.kafka.common.message.DeleteGroupsResponseData;
import org.apache.kafka.common.message.DeleteRecordsRequestData;
import org.apache.kafka.common.message.DeleteRecordsResponseData;
import org.apache.kafka.common.message.DeleteTopicsRequestData;
import org.apache.kafka.common.message.DeleteTopicsResponseData;
import org.apache.kafka.common.message.ElectLeadersRequestData;
import org.apache.kafka.common.message.ElectLeadersResponseData;
import org.apache.kafka.common.message.EndTxnRequestData;
import org.apache.kafka.common.message.EndTxnResponseData;
import org.apache.kafka.common.message.IncrementalAlterConfigsRequestData;
import org.apache.kafka.common.message.IncrementalAlterConfigsResponseData;
import org.apache.kafka.common.message.InitProducerIdRequestData;
import org.apache.kafka.common.message.InitProducerIdResponseData;
import org.apache.kafka.common.message.OffsetCommitRequestData;
import org.apache.kafka.common.message.OffsetCommitResponseData;
import org.apache.kafka.common.message.OffsetDeleteRequestData;
import org.apache.kafka.common.message.OffsetDeleteResponseData;
import org.apache.kafka.common.message.WriteTxnMarkersRequestData;
import org.apache.kafka.common.message.WriteTxnMarkersResponseData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.resource.PatternType;
import org.apache.kafka.common.resource.ResourceType;

/**
 * What the audit trail records of each mutating call: the resources a request changes (from the
 * request) and how each ended (from the answer). Secrets never go in: config values, SCRAM salts
 * and salted passwords, quota values are left out; only names, counts and operations are kept.
 *
 * <p>OffsetCommit is a consumer's everyday call; only a commit outside any group generation
 * (generation -1, no member id) is recorded: that is what an Admin's alterConsumerGroupOffsets
 * and kafka-consumer-groups' offset resets send, and also what a consumer with manually assigned
 * partitions sends (it cannot be told apart on the wire). EndTxn is recorded when it aborts,
 * InitProducerId when it names a transactional id (it fences the previous producer of that id).
 */
final class AdminCalls {
    /** Every API whose requests may be recorded. */
    static final Set<ApiKeys> APIS = EnumSet.of(ApiKeys.CREATE_TOPICS, ApiKeys.DELETE_TOPICS,
            ApiKeys.CREATE_PARTITIONS, ApiKeys.ALTER_CONFIGS, ApiKeys.INCREMENTAL_ALTER_CONFIGS,
            ApiKeys.DELETE_RECORDS, ApiKeys.OFFSET_DELETE, ApiKeys.OFFSET_COMMIT, ApiKeys.DELETE_GROUPS,
            ApiKeys.END_TXN, ApiKeys.WRITE_TXN_MARKERS, ApiKeys.INIT_PRODUCER_ID, ApiKeys.CREATE_ACLS,
            ApiKeys.DELETE_ACLS, ApiKeys.ALTER_CLIENT_QUOTAS, ApiKeys.ALTER_USER_SCRAM_CREDENTIALS,
            ApiKeys.ELECT_LEADERS, ApiKeys.ALTER_PARTITION_REASSIGNMENTS);

    private AdminCalls() {
    }

    /**
     * One resource a call changes.
     *
     * @param key matches it to its result in the answer
     */
    record Resource(String key, Map<String, Object> fields) {
    }

    /** The resources {@code request} changes; empty when this request is not one the trail records. */
    static Optional<List<Resource>> resources(ApiMessage request) {
        List<Resource> out = new ArrayList<>();
        if (request instanceof CreateTopicsRequestData r) {
            r.topics().forEach(t -> out.add(resource("topic", t.name(), "numPartitions", t.numPartitions(),
                    "validateOnly", r.validateOnly())));
        } else if (request instanceof DeleteTopicsRequestData r) {
            r.topicNames().forEach(name -> out.add(resource("topic", name)));
            r.topics().forEach(t -> out.add(t.name() != null ? resource("topic", t.name())
                    : resource("topicId", t.topicId().toString())));
        } else if (request instanceof CreatePartitionsRequestData r) {
            r.topics().forEach(t -> out.add(resource("topic", t.name(), "count", t.count(),
                    "validateOnly", r.validateOnly())));
        } else if (request instanceof AlterConfigsRequestData r) {
            r.resources().forEach(c -> out.add(resource(configType(c.resourceType()), c.resourceName(), "configs",
                    c.configs().stream().map(AlterConfigsRequestData.AlterableConfig::name).toList())));
        } else if (request instanceof IncrementalAlterConfigsRequestData r) {
            r.resources().forEach(c -> out.add(resource(configType(c.resourceType()), c.resourceName(), "configs",
                    c.configs().stream().map(each -> each.name() + ":" + operation(each.configOperation())).toList())));
        } else if (request instanceof DeleteRecordsRequestData r) {
            r.topics().forEach(t -> out.add(resource("topic", t.name(), "partitions", t.partitions().stream()
                    .map(p -> Map.of("partition", p.partitionIndex(), "beforeOffset", p.offset())).toList())));
        } else if (request instanceof OffsetDeleteRequestData r) {
            out.add(resource("group", r.groupId()));
            r.topics().forEach(t -> out.add(resource("topic", t.name(), "partitions", t.partitions().stream()
                    .map(OffsetDeleteRequestData.OffsetDeleteRequestPartition::partitionIndex).toList())));
        } else if (request instanceof OffsetCommitRequestData r) {
            if (r.generationIdOrMemberEpoch() >= 0 || r.memberId() != null && !r.memberId().isEmpty()) {
                return Optional.empty();
            }
            out.add(resource("group", r.groupId()));
            r.topics().forEach(t -> out.add(resource("topic", t.name() == null || t.name().isEmpty()
                    ? t.topicId().toString() : t.name(), "partitions", t.partitions().stream()
                    .map(p -> Map.of("partition", p.partitionIndex(), "offset", p.committedOffset())).toList())));
        } else if (request instanceof DeleteGroupsRequestData r) {
            r.groupsNames().forEach(g -> out.add(resource("group", g)));
        } else if (request instanceof EndTxnRequestData r) {
            if (r.committed()) {
                return Optional.empty();
            }
            out.add(resource("transactionalId", r.transactionalId(), "action", "abort", "producerId",
                    r.producerId()));
        } else if (request instanceof WriteTxnMarkersRequestData r) {
            r.markers().forEach(m -> out.add(resource("producerId", Long.toString(m.producerId()), "action",
                    m.transactionResult() ? "commit" : "abort", "topics", m.topics().stream()
                            .map(WriteTxnMarkersRequestData.WritableTxnMarkerTopic::name).toList())));
        } else if (request instanceof InitProducerIdRequestData r) {
            if (r.transactionalId() == null) {
                return Optional.empty();
            }
            out.add(resource("transactionalId", r.transactionalId(), "action", "fence"));
        } else if (request instanceof CreateAclsRequestData r) {
            int i = 0;
            for (var c : r.creations()) {
                out.add(new Resource("acl/" + i++, acl(c.resourceType(), c.resourceName(), c.resourcePatternType(),
                        c.principal(), c.host(), c.operation(), c.permissionType())));
            }
        } else if (request instanceof DeleteAclsRequestData r) {
            int i = 0;
            for (var f : r.filters()) {
                out.add(new Resource("acl/" + i++, acl(f.resourceTypeFilter(), f.resourceNameFilter(),
                        f.patternTypeFilter(), f.principalFilter(), f.hostFilter(), f.operation(), f.permissionType())));
            }
        } else if (request instanceof AlterClientQuotasRequestData r) {
            r.entries().forEach(e -> out.add(resource("clientQuotaEntity", entity(e.entity(),
                    AlterClientQuotasRequestData.EntityData::entityType, AlterClientQuotasRequestData.EntityData::entityName),
                    "keys",
                    e.ops().stream().map(op -> op.key() + (op.remove() ? ":remove" : ":set")).toList(),
                    "validateOnly", r.validateOnly())));
        } else if (request instanceof AlterUserScramCredentialsRequestData r) {
            r.deletions().forEach(d -> out.add(resource("user", d.name(), "action", "delete", "mechanism",
                    scram(d.mechanism()))));
            r.upsertions().forEach(u -> out.add(resource("user", u.name(), "action", "upsert", "mechanism",
                    scram(u.mechanism()), "iterations", u.iterations())));
        } else if (request instanceof ElectLeadersRequestData r) {
            if (r.topicPartitions() == null) {
                out.add(resource("cluster", "kafka-cluster", "electionType", r.electionType()));
            } else {
                r.topicPartitions().forEach(t -> out.add(resource("topic", t.topic(), "partitions", t.partitions(),
                        "electionType", r.electionType())));
            }
        } else if (request instanceof AlterPartitionReassignmentsRequestData r) {
            r.topics().forEach(t -> out.add(resource("topic", t.name(), "partitions", t.partitions().stream()
                    .map(p -> {
                        Map<String, Object> each = new LinkedHashMap<>();
                        each.put("partition", p.partitionIndex());
                        each.put("replicas", p.replicas());
                        return each;
                    }).toList())));
        } else {
            return Optional.empty();
        }
        return Optional.of(out);
    }

    /**
     * The error of each resource in {@code answer}, by {@link Resource#key}; the answer's own error,
     * for the resources it names none for, under {@code ""}.
     */
    static Map<String, Short> errors(ApiMessage answer) {
        Map<String, Short> out = new LinkedHashMap<>();
        if (answer instanceof CreateTopicsResponseData a) {
            a.topics().forEach(t -> out.put(key("topic", t.name()), t.errorCode()));
        } else if (answer instanceof DeleteTopicsResponseData a) {
            a.responses().forEach(t -> {
                if (t.name() != null) {
                    out.put(key("topic", t.name()), t.errorCode());
                }
                out.put(key("topicId", t.topicId().toString()), t.errorCode());
            });
        } else if (answer instanceof CreatePartitionsResponseData a) {
            a.results().forEach(t -> out.put(key("topic", t.name()), t.errorCode()));
        } else if (answer instanceof AlterConfigsResponseData a) {
            a.responses().forEach(c -> out.put(key(configType(c.resourceType()), c.resourceName()), c.errorCode()));
        } else if (answer instanceof IncrementalAlterConfigsResponseData a) {
            a.responses().forEach(c -> out.put(key(configType(c.resourceType()), c.resourceName()), c.errorCode()));
        } else if (answer instanceof DeleteRecordsResponseData a) {
            a.topics().forEach(t -> t.partitions().forEach(p -> worst(out, key("topic", t.name()), p.errorCode())));
        } else if (answer instanceof OffsetDeleteResponseData a) {
            out.put("", a.errorCode());
            a.topics().forEach(t -> t.partitions().forEach(p -> worst(out, key("topic", t.name()), p.errorCode())));
        } else if (answer instanceof OffsetCommitResponseData a) {
            a.topics().forEach(t -> t.partitions().forEach(p -> worst(out, key("topic", t.name() == null
                    || t.name().isEmpty() ? t.topicId().toString() : t.name()), p.errorCode())));
            // The group is as good as its worst partition.
            out.put("", out.values().stream().filter(e -> e != 0).findFirst().orElse((short) 0));
        } else if (answer instanceof DeleteGroupsResponseData a) {
            a.results().forEach(g -> out.put(key("group", g.groupId()), g.errorCode()));
        } else if (answer instanceof EndTxnResponseData a) {
            out.put("", a.errorCode());
        } else if (answer instanceof WriteTxnMarkersResponseData a) {
            a.markers().forEach(m -> m.topics().forEach(t -> t.partitions().forEach(p ->
                    worst(out, key("producerId", Long.toString(m.producerId())), p.errorCode()))));
        } else if (answer instanceof InitProducerIdResponseData a) {
            out.put("", a.errorCode());
        } else if (answer instanceof CreateAclsResponseData a) {
            for (int i = 0; i < a.results().size(); i++) {
                out.put("acl/" + i, a.results().get(i).errorCode());
            }
        } else if (answer instanceof DeleteAclsResponseData a) {
            for (int i = 0; i < a.filterResults().size(); i++) {
                out.put("acl/" + i, a.filterResults().get(i).errorCode());
            }
        } else if (answer instanceof AlterClientQuotasResponseData a) {
            a.entries().forEach(e -> out.put(key("clientQuotaEntity", entity(e.entity(),
                    AlterClientQuotasResponseData.EntityData::entityType, AlterClientQuotasResponseData.EntityData::entityName)), e.errorCode()));
        } else if (answer instanceof AlterUserScramCredentialsResponseData a) {
            a.results().forEach(u -> out.put(key("user", u.user()), u.errorCode()));
        } else if (answer instanceof ElectLeadersResponseData a) {
            out.put("", a.errorCode());
            a.replicaElectionResults().forEach(t -> t.partitionResult().forEach(p -> worst(out,
                    key("topic", t.topic()), p.errorCode() == Errors.ELECTION_NOT_NEEDED.code() ? 0 : p.errorCode())));
        } else if (answer instanceof AlterPartitionReassignmentsResponseData a) {
            out.put("", a.errorCode());
            a.responses().forEach(t -> t.partitions().forEach(p -> worst(out, key("topic", t.name()), p.errorCode())));
        }
        return out;
    }

    /**
     * A resource's error in {@code errors}: its own or the answer's, whichever is an error (its own
     * first); NONE when both say so; UNKNOWN_SERVER_ERROR when the answer names neither.
     */
    static short errorOf(Resource resource, Map<String, Short> errors) {
        Short own = errors.get(resource.key());
        Short whole = errors.get("");
        if (own != null && own != 0) {
            return own;
        }
        if (whole != null && whole != 0) {
            return whole;
        }
        return own != null || whole != null ? 0 : Errors.UNKNOWN_SERVER_ERROR.code();
    }

    private static void worst(Map<String, Short> out, String key, short error) {
        Short seen = out.get(key);
        if (seen == null || seen == 0) {
            out.put(key, error);
        }
    }

    private static Resource resource(String type, String name, Object... details) {
        Map<String, Object> fields = new LinkedHashMap<>();
        fields.put("resourceType", type);
        fields.put("name", name);
        for (int i = 0; i + 1 < details.length; i += 2) {
            fields.put((String) details[i], details[i + 1]);
        }
        return new Resource(key(type, name), fields);
    }

    private static String key(String type, String name) {
        return type + "/" + name;
    }

    private static String configType(byte type) {
        ConfigResource.Type resolved = ConfigResource.Type.forId(type);
        return switch (resolved) {
            case TOPIC -> "topic";
            case BROKER -> "broker";
            case BROKER_LOGGER -> "brokerLogger";
            case CLIENT_METRICS -> "clientMetrics";
            case GROUP -> "groupConfig";
            default -> "config";
        };
    }

    private static String scram(byte mechanism) {
        ScramMechanism known = ScramMechanism.fromType(mechanism);
        return known == ScramMechanism.UNKNOWN ? "unknown(" + mechanism + ")" : known.mechanismName();
    }

    private static String operation(byte op) {
        return switch (op) {
            case 0 -> "set";
            case 1 -> "delete";
            case 2 -> "append";
            case 3 -> "subtract";
            default -> "op" + op;
        };
    }

    private static Map<String, Object> acl(byte resourceType, String name, byte patternType, String principal,
                                           String host, byte operation, byte permission) {
        Map<String, Object> fields = new LinkedHashMap<>();
        fields.put("resourceType", "acl");
        Map<String, Object> binding = new LinkedHashMap<>();
        binding.put("resourceType", ResourceType.fromCode(resourceType).name());
        binding.put("name", name);
        binding.put("patternType", PatternType.fromCode(patternType).name());
        binding.put("principal", principal);
        binding.put("host", host);
        binding.put("operation", AclOperation.fromCode(operation).name());
        binding.put("permission", AclPermissionType.fromCode(permission).name());
        fields.put("binding", binding);
        return fields;
    }

    /** A quota entity as {@code user=carol,client-id=app}; a default entity's name is {@code <default>}. */
    private static <T> String entity(List<T> parts, Function<T, String> type, Function<T, String> name) {
        return parts.stream().map(p -> type.apply(p) + "=" + (name.apply(p) == null ? "<default>" : name.apply(p)))
                .collect(Collectors.joining(","));
    }
}
