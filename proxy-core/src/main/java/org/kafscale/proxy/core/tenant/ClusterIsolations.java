package org.kafscale.proxy.core.tenant;

import org.apache.kafka.common.message.DescribeClusterResponseData;

/** The APIs about the cluster as a whole, as a virtual cluster sees it: the same brokers, its own cluster id. */
public final class ClusterIsolations {
    public static final Isolation API_VERSIONS = Isolation.asIs(
            "as it is, less the keys no virtual cluster is served");
    public static final Isolation DESCRIBE_CLUSTER = Isolation.answerRewritten(DescribeClusterResponseData.class,
            (answer, scope) -> answer.setClusterId(scope.clusterId())
                    .setErrorMessage(scope.names().scrub(answer.errorMessage())),
            "the virtual cluster's own cluster id");

    private ClusterIsolations() {
    }
}
