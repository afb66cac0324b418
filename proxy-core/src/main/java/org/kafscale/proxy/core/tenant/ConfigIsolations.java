package org.kafscale.proxy.core.tenant;

import java.util.function.ToIntFunction;
import org.apache.kafka.common.config.ConfigResource;
import org.apache.kafka.common.message.AlterConfigsRequestData;
import org.apache.kafka.common.message.AlterConfigsResponseData;
import org.apache.kafka.common.message.DescribeConfigsRequestData;
import org.apache.kafka.common.message.DescribeConfigsResponseData;
import org.apache.kafka.common.message.IncrementalAlterConfigsRequestData;
import org.apache.kafka.common.message.IncrementalAlterConfigsResponseData;
import org.apache.kafka.common.protocol.Errors;
import org.kafscale.proxy.core.codec.Entries;

/**
 * The configuration APIs in a virtual cluster: a tenant reads and changes its topics'
 * configurations, under its prefix. A broker's, a broker logger's, client metrics' or a group's
 * configuration is the real cluster's (a group's resource name would also need its own mapping),
 * so a request naming one is refused whole. Every resource is checked before any is renamed: the
 * refusal's answer lists the resources as the request holds them then, and must list the client's
 * names. Configuration values that name topics are left as sent.
 */
public final class ConfigIsolations {
    private static final String REFUSED = "a request naming a broker, broker logger, client metrics or group "
            + "resource is not sent: each resource answered CLUSTER_AUTHORIZATION_FAILED (GROUP_AUTHORIZATION_FAILED "
            + "if the first such is a group)";

    public static final Isolation DESCRIBE_CONFIGS = Isolation.rewritten(DescribeConfigsRequestData.class, (q, s) -> {
        requireTopics(q.resources(), DescribeConfigsRequestData.DescribeConfigsResource::resourceType);
        q.resources().forEach(r -> r.setResourceName(s.names().topic(r.resourceName())));
    }, DescribeConfigsResponseData.class,
            (a, s) -> a.results().forEach(r -> r.setResourceName(s.names().clientTopic(r.resourceName()))
                    .setErrorMessage(s.names().scrub(r.errorMessage()))),
            "topic resources' names prefixed, the answer's back; " + REFUSED);

    public static final Isolation ALTER_CONFIGS = Isolation.rewritten(AlterConfigsRequestData.class, (q, s) -> {
        requireTopics(q.resources(), AlterConfigsRequestData.AlterConfigsResource::resourceType);
        Entries.rename(q.resources(), r -> r.setResourceName(s.names().topic(r.resourceName())));
    }, AlterConfigsResponseData.class,
            (a, s) -> a.responses().forEach(r -> r.setResourceName(s.names().clientTopic(r.resourceName()))
                    .setErrorMessage(s.names().scrub(r.errorMessage()))),
            "topic resources' names prefixed, the answer's back; values left as sent; " + REFUSED);

    public static final Isolation INCREMENTAL_ALTER_CONFIGS = Isolation.rewritten(
            IncrementalAlterConfigsRequestData.class, (q, s) -> {
                requireTopics(q.resources(), IncrementalAlterConfigsRequestData.AlterConfigsResource::resourceType);
                Entries.rename(q.resources(), r -> r.setResourceName(s.names().topic(r.resourceName())));
            }, IncrementalAlterConfigsResponseData.class,
            (a, s) -> a.responses().forEach(r -> r.setResourceName(s.names().clientTopic(r.resourceName()))
                    .setErrorMessage(s.names().scrub(r.errorMessage()))),
            "topic resources' names prefixed, the answer's back; values left as sent; " + REFUSED);

    private ConfigIsolations() {
    }

    /** @throws TenantRefusal at the first resource that is not a topic, with the error a broker gives its kind */
    private static <R> void requireTopics(Iterable<R> resources, ToIntFunction<R> resourceType) {
        for (R resource : resources) {
            ConfigResource.Type type = ConfigResource.Type.forId((byte) resourceType.applyAsInt(resource));
            if (type != ConfigResource.Type.TOPIC) {
                throw new TenantRefusal(type == ConfigResource.Type.GROUP ? Errors.GROUP_AUTHORIZATION_FAILED
                        : Errors.CLUSTER_AUTHORIZATION_FAILED,
                        type + " configurations are not served to a virtual cluster, only its topics'");
            }
        }
    }
}
