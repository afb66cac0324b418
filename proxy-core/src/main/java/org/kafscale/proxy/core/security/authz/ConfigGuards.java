package org.kafscale.proxy.core.security.authz;

import org.apache.kafka.common.acl.AclOperation;
import org.apache.kafka.common.config.ConfigResource;
import org.apache.kafka.common.message.AlterConfigsRequestData;
import org.apache.kafka.common.message.AlterConfigsResponseData;
import org.apache.kafka.common.message.DescribeConfigsRequestData;
import org.apache.kafka.common.message.DescribeConfigsResponseData;
import org.apache.kafka.common.message.IncrementalAlterConfigsRequestData;
import org.apache.kafka.common.message.IncrementalAlterConfigsResponseData;
import org.apache.kafka.common.protocol.Errors;

/**
 * DescribeConfigs, AlterConfigs and IncrementalAlterConfigs, per resource as Kafka checks them:
 * a topic's configs need DescribeConfigs / AlterConfigs on the topic (TOPIC_AUTHORIZATION_FAILED),
 * a group's on the group (GROUP_AUTHORIZATION_FAILED), a broker's, a broker logger's and client
 * metrics' on the cluster (CLUSTER_AUTHORIZATION_FAILED). Refused resources are answered here;
 * the others go on.
 */
public final class ConfigGuards {
    private ConfigGuards() {
    }

    public static Verdict describeConfigs(DescribeConfigsRequestData q, short version, Access a) {
        var refused = Refusals.takeOut(q.resources(),
                r -> resourceError(a, r.resourceType(), r.resourceName(), AclOperation.DESCRIBE_CONFIGS));
        if (refused.isEmpty()) {
            return Verdict.ALLOW;
        }
        return Verdict.partly(q.resources().isEmpty(), q, DescribeConfigsResponseData::new,
                answer -> refused.forEach((r, e) -> answer.results().add(new DescribeConfigsResponseData.DescribeConfigsResult()
                        .setResourceType(r.resourceType()).setResourceName(r.resourceName()).setErrorCode(e.code())
                        .setErrorMessage(e.message()))));
    }

    public static Verdict alterConfigs(AlterConfigsRequestData q, short version, Access a) {
        var refused = Refusals.takeOut(q.resources(),
                r -> resourceError(a, r.resourceType(), r.resourceName(), AclOperation.ALTER_CONFIGS));
        if (refused.isEmpty()) {
            return Verdict.ALLOW;
        }
        return Verdict.partly(q.resources().isEmpty(), q, AlterConfigsResponseData::new,
                answer -> refused.forEach((r, e) -> answer.responses().add(
                        new AlterConfigsResponseData.AlterConfigsResourceResponse().setResourceType(r.resourceType())
                                .setResourceName(r.resourceName()).setErrorCode(e.code()).setErrorMessage(e.message()))));
    }

    public static Verdict incrementalAlterConfigs(IncrementalAlterConfigsRequestData q, short version, Access a) {
        var refused = Refusals.takeOut(q.resources(),
                r -> resourceError(a, r.resourceType(), r.resourceName(), AclOperation.ALTER_CONFIGS));
        if (refused.isEmpty()) {
            return Verdict.ALLOW;
        }
        return Verdict.partly(q.resources().isEmpty(), q, IncrementalAlterConfigsResponseData::new,
                answer -> refused.forEach((r, e) -> answer.responses().add(
                        new IncrementalAlterConfigsResponseData.AlterConfigsResourceResponse()
                                .setResourceType(r.resourceType()).setResourceName(r.resourceName())
                                .setErrorCode(e.code()).setErrorMessage(e.message()))));
    }

    private static Errors resourceError(Access a, byte type, String name, AclOperation operation) {
        return switch (ConfigResource.Type.forId(type)) {
            case TOPIC -> Refusals.unless(a.topic(name, operation), Errors.TOPIC_AUTHORIZATION_FAILED);
            case GROUP -> Refusals.unless(a.group(name, operation), Errors.GROUP_AUTHORIZATION_FAILED);
            default -> Refusals.unless(a.cluster(operation), Errors.CLUSTER_AUTHORIZATION_FAILED);
        };
    }
}
