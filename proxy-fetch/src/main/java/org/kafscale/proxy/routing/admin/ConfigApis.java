package org.kafscale.proxy.routing.admin;

import java.util.List;
import org.apache.kafka.common.message.AlterConfigsRequestData;
import org.apache.kafka.common.message.AlterConfigsRequestData.AlterConfigsResource;
import org.apache.kafka.common.message.AlterConfigsRequestData.AlterConfigsResourceCollection;
import org.apache.kafka.common.message.AlterConfigsResponseData;
import org.apache.kafka.common.message.AlterConfigsResponseData.AlterConfigsResourceResponse;
import org.apache.kafka.common.message.DescribeConfigsRequestData;
import org.apache.kafka.common.message.DescribeConfigsRequestData.DescribeConfigsResource;
import org.apache.kafka.common.message.DescribeConfigsResponseData;
import org.apache.kafka.common.message.DescribeConfigsResponseData.DescribeConfigsResult;
import org.apache.kafka.common.message.IncrementalAlterConfigsRequestData;
import org.apache.kafka.common.message.IncrementalAlterConfigsResponseData;
import org.apache.kafka.common.protocol.ApiKeys;

/**
 * DescribeConfigs, AlterConfigs and IncrementalAlterConfigs as {@link ConfigResourceRoute} splits
 * them. A requested resource belongs to its request's keyed collection (the alters), so a part
 * carries copies.
 */
final class ConfigApis {
    static final ConfigResourceApi<DescribeConfigsRequestData, DescribeConfigsResource, DescribeConfigsResponseData,
            DescribeConfigsResult> DESCRIBE_CONFIGS = new ConfigResourceApi<>(ApiKeys.DESCRIBE_CONFIGS,
            DescribeConfigsRequestData::resources, r -> new ConfigResourceKey(r.resourceType(), r.resourceName()),
            (q, resources) -> new DescribeConfigsRequestData().setResources(resources)
                    .setIncludeSynonyms(q.includeSynonyms()).setIncludeDocumentation(q.includeDocumentation()),
            DescribeConfigsResponseData::new, DescribeConfigsResponseData::results,
            r -> new ConfigResourceKey(r.resourceType(), r.resourceName()), DescribeConfigsResponseData::throttleTimeMs,
            (r, error, message) -> new DescribeConfigsResult().setResourceType(r.resourceType())
                    .setResourceName(r.resourceName()).setErrorCode(error.code())
                    .setErrorMessage(message != null ? message : error.message()),
            (results, throttle) -> new DescribeConfigsResponseData().setThrottleTimeMs(throttle).setResults(results));

    static final ConfigResourceApi<AlterConfigsRequestData, AlterConfigsResource, AlterConfigsResponseData,
            AlterConfigsResourceResponse> ALTER_CONFIGS = new ConfigResourceApi<>(ApiKeys.ALTER_CONFIGS,
            q -> List.copyOf(q.resources()), r -> new ConfigResourceKey(r.resourceType(), r.resourceName()),
            (q, resources) -> new AlterConfigsRequestData().setValidateOnly(q.validateOnly()).setResources(
                    new AlterConfigsResourceCollection(resources.stream().map(AlterConfigsResource::duplicate).iterator())),
            AlterConfigsResponseData::new, AlterConfigsResponseData::responses,
            r -> new ConfigResourceKey(r.resourceType(), r.resourceName()), AlterConfigsResponseData::throttleTimeMs,
            (r, error, message) -> new AlterConfigsResourceResponse().setResourceType(r.resourceType())
                    .setResourceName(r.resourceName()).setErrorCode(error.code())
                    .setErrorMessage(message != null ? message : error.message()),
            (results, throttle) -> new AlterConfigsResponseData().setThrottleTimeMs(throttle).setResponses(results));

    static final ConfigResourceApi<IncrementalAlterConfigsRequestData,
            IncrementalAlterConfigsRequestData.AlterConfigsResource, IncrementalAlterConfigsResponseData,
            IncrementalAlterConfigsResponseData.AlterConfigsResourceResponse> INCREMENTAL_ALTER_CONFIGS =
            new ConfigResourceApi<>(ApiKeys.INCREMENTAL_ALTER_CONFIGS,
                    q -> List.copyOf(q.resources()), r -> new ConfigResourceKey(r.resourceType(), r.resourceName()),
                    (q, resources) -> new IncrementalAlterConfigsRequestData().setValidateOnly(q.validateOnly())
                            .setResources(new IncrementalAlterConfigsRequestData.AlterConfigsResourceCollection(resources
                                    .stream().map(IncrementalAlterConfigsRequestData.AlterConfigsResource::duplicate).iterator())),
                    IncrementalAlterConfigsResponseData::new, IncrementalAlterConfigsResponseData::responses,
                    r -> new ConfigResourceKey(r.resourceType(), r.resourceName()),
                    IncrementalAlterConfigsResponseData::throttleTimeMs,
                    (r, error, message) -> new IncrementalAlterConfigsResponseData.AlterConfigsResourceResponse()
                            .setResourceType(r.resourceType()).setResourceName(r.resourceName()).setErrorCode(error.code())
                            .setErrorMessage(message != null ? message : error.message()),
                    (results, throttle) -> new IncrementalAlterConfigsResponseData().setThrottleTimeMs(throttle)
                            .setResponses(results));

    private ConfigApis() {
    }
}
