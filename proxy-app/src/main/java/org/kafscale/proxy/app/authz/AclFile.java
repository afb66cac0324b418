package org.kafscale.proxy.app.authz;

import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonMappingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import io.netty.util.NetUtil;
import java.io.IOException;
import java.net.InetAddress;
import java.util.EnumSet;
import java.util.List;
import java.util.Set;
import org.apache.kafka.common.acl.AccessControlEntry;
import org.apache.kafka.common.acl.AclBinding;
import org.apache.kafka.common.acl.AclOperation;
import org.apache.kafka.common.acl.AclPermissionType;
import org.apache.kafka.common.resource.PatternType;
import org.apache.kafka.common.resource.ResourcePattern;
import org.apache.kafka.common.resource.ResourceType;
import org.apache.kafka.common.security.auth.KafkaPrincipal;
import org.kafscale.proxy.app.config.ConfigException;
import org.kafscale.proxy.core.codec.AclNames;
import org.kafscale.proxy.core.security.authz.AclRules;

/**
 * Reads the ACL file ({@code KAFSCALE_PROXY_ACL_FILE}): YAML, or JSON (which YAML reads too), a
 * list {@code acls} of rules, each with a principal ({@code User:alice}, {@code User:*}), a
 * resource type (TOPIC, GROUP, TRANSACTIONAL_ID, CLUSTER), a pattern type (LITERAL, the default,
 * or PREFIXED), a name, an operation (Kafka's names: Read, Write, Create, Delete, Describe, Alter,
 * DescribeConfigs, AlterConfigs, IdempotentWrite, ClusterAction, All) and a permission (ALLOW or
 * DENY). Names are kafka-clients' enums, in their own spelling (TRANSACTIONAL_ID, DESCRIBE_CONFIGS) or the
 * one Kafka's tools print (TransactionalId, DescribeConfigs): {@link AclNames}.
 * Anything else (an unknown field, a misspelt operation, a rule without a name) is an error that
 * names the setting, the file and the line.
 */
public final class AclFile {
    static final String SETTING = "KAFSCALE_PROXY_ACL_FILE";
    private static final Set<ResourceType> RESOURCE_TYPES = EnumSet.of(ResourceType.TOPIC, ResourceType.GROUP,
            ResourceType.TRANSACTIONAL_ID, ResourceType.CLUSTER);
    private static final String CLUSTER_NAME = "kafka-cluster";
    private static final ObjectMapper MAPPER = new ObjectMapper(new YAMLFactory());

    private AclFile() {
    }

    /**
     * The rules in {@code text}, read from {@code source} (named in errors).
     *
     * @throws ConfigException naming the setting, {@code source} and the line of the first problem
     */
    public static AclRules parse(String source, byte[] text) {
        return parse(SETTING, source, text);
    }

    /**
     * The rules in {@code text}, read from {@code source}, which {@code setting} names (a virtual
     * cluster's {@code virtualClusters[0].aclFile}, for instance).
     *
     * @throws ConfigException naming {@code setting}, {@code source} and the line of the first problem
     */
    public static AclRules parse(String setting, String source, byte[] text) {
        Document document;
        try {
            document = new String(text, java.nio.charset.StandardCharsets.UTF_8).isBlank() ? null
                    : MAPPER.readValue(text, Document.class);
        } catch (JsonProcessingException e) {
            throw new ConfigException(setting + " (" + source + ") is invalid"
                    + (e.getLocation() == null ? "" : " at line " + e.getLocation().getLineNr()) + ruleNumber(e)
                    + ": " + problem(e));
        } catch (IOException e) {
            throw new ConfigException(setting + " (" + source + ") cannot be read: " + e.getMessage());
        }
        if (document == null || document.acls() == null) {
            throw new ConfigException(setting + " (" + source + ") is invalid: expected a list `acls` of rules "
                    + "(an empty list refuses everything)");
        }
        return new AclRules(document.acls().stream().map(Rule::binding).toList());
    }

    private static String ruleNumber(JsonProcessingException e) {
        if (e instanceof JsonMappingException mapping) {
            for (JsonMappingException.Reference ref : mapping.getPath()) {
                if (ref.getIndex() >= 0) {
                    return " (rule " + (ref.getIndex() + 1) + ")";
                }
            }
        }
        return "";
    }

    private static String problem(JsonProcessingException e) {
        Throwable cause = e.getCause();
        if (cause instanceof IllegalArgumentException) {
            return cause.getMessage();
        }
        return e.getOriginalMessage();
    }

    /** The file as a whole. */
    record Document(@JsonProperty("acls") List<Rule> acls) {
    }

    /** One rule as written; checked as it is read, so an error carries its line. */
    record Rule(@JsonProperty("principal") String principal,
                @JsonProperty("resourceType") String resourceType,
                @JsonProperty("patternType") String patternType,
                @JsonProperty("name") String name,
                @JsonProperty("operation") String operation,
                @JsonProperty("permission") String permission,
                @JsonProperty("host") String host) {
        Rule {
            required("principal", principal);
            required("resourceType", resourceType);
            required("operation", operation);
            required("permission", permission);
            KafkaPrincipal parsed;
            try {
                parsed = AclNames.principal(principal);
            } catch (IllegalArgumentException e) {
                throw new IllegalArgumentException("principal '" + principal + "' is not of the form User:name "
                        + "(User:* for everyone)");
            }
            if (parsed.getName().isEmpty()) {
                throw new IllegalArgumentException("principal '" + principal + "' has no name");
            }
            ResourceType type = AclNames.resourceType(resourceType);
            if (!RESOURCE_TYPES.contains(type)) {
                throw new IllegalArgumentException("resourceType '" + resourceType
                        + "' is not one of TOPIC, GROUP, TRANSACTIONAL_ID, CLUSTER");
            }
            PatternType pattern = patternType == null ? PatternType.LITERAL : PatternType.fromString(patternType);
            if (pattern != PatternType.LITERAL && pattern != PatternType.PREFIXED) {
                throw new IllegalArgumentException("patternType '" + patternType + "' is not LITERAL or PREFIXED");
            }
            if (type == ResourceType.CLUSTER) {
                if (name != null && !name.equals(CLUSTER_NAME)) {
                    throw new IllegalArgumentException("a CLUSTER rule's name is '" + CLUSTER_NAME
                            + "' (or left out), not '" + name + "'");
                }
            } else {
                required("name", name);
            }
            AclOperation op = AclNames.operation(operation);
            if (op == AclOperation.UNKNOWN || op == AclOperation.ANY) {
                throw new IllegalArgumentException("operation '" + operation + "' is not one of Read, Write, Create, "
                        + "Delete, Describe, Alter, DescribeConfigs, AlterConfigs, IdempotentWrite, ClusterAction, All");
            }
            AclPermissionType perm = AclNames.permission(permission);
            if (perm != AclPermissionType.ALLOW && perm != AclPermissionType.DENY) {
                throw new IllegalArgumentException("permission '" + permission + "' is not ALLOW or DENY");
            }
            hostOf(host);
        }

        /**
         * The rule's host as Kafka compares it: {@code *} (also when left out) or an IP address
         * in {@link InetAddress#getHostAddress} form, so {@code 2001:db8::7} matches that client.
         * A name is refused: it would need a DNS lookup, and Kafka does not resolve one either.
         */
        private static String hostOf(String host) {
            if (host == null || host.equals(AclRules.WILDCARD_HOST)) {
                return AclRules.WILDCARD_HOST;
            }
            InetAddress address = NetUtil.createInetAddressFromIpAddressString(host.trim());
            if (address == null) {
                throw new IllegalArgumentException("host '" + host + "' is not * or an IP address");
            }
            return address.getHostAddress();
        }

        AclBinding binding() {
            ResourceType type = AclNames.resourceType(resourceType);
            String resource = type == ResourceType.CLUSTER ? CLUSTER_NAME : name;
            PatternType pattern = patternType == null ? PatternType.LITERAL : PatternType.fromString(patternType);
            return new AclBinding(new ResourcePattern(type, resource, pattern),
                    new AccessControlEntry(AclNames.principal(principal).toString(), hostOf(host),
                            AclNames.operation(operation), AclNames.permission(permission)));
        }

        private static void required(String field, String value) {
            if (value == null || value.isBlank()) {
                throw new IllegalArgumentException("`" + field + "` is missing");
            }
        }
    }
}
