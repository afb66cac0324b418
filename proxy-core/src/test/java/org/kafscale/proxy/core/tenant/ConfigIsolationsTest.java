package org.kafscale.proxy.core.tenant;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.util.List;
import org.apache.kafka.common.config.ConfigResource;
import org.apache.kafka.common.message.AlterConfigsRequestData;
import org.apache.kafka.common.message.AlterConfigsResponseData;
import org.apache.kafka.common.message.DescribeConfigsRequestData;
import org.apache.kafka.common.message.IncrementalAlterConfigsRequestData;
import org.apache.kafka.common.message.IncrementalAlterConfigsResponseData;
import org.apache.kafka.common.protocol.Errors;
import org.junit.jupiter.api.Test;

class ConfigIsolationsTest {
    private static final byte TOPIC = ConfigResource.Type.TOPIC.id();

    private final TenantScope scope = TeamA.scope();

    @Test
    void alterConfigsOfATopicGoesOnUnderItsRealNameAndIsAnsweredUnderTheClients() {
        AlterConfigsRequestData request = new AlterConfigsRequestData();
        request.resources().add(new AlterConfigsRequestData.AlterConfigsResource().setResourceType(TOPIC)
                .setResourceName("orders"));
        ConfigIsolations.ALTER_CONFIGS.rewriteRequest(request, scope);
        assertNotNull(request.resources().find(TOPIC, "a.orders"), "a route finds it by its real name");

        AlterConfigsResponseData answer = new AlterConfigsResponseData().setResponses(List.of(
                new AlterConfigsResponseData.AlterConfigsResourceResponse().setResourceType(TOPIC)
                        .setResourceName("a.orders").setErrorMessage("retention.ms of a.orders is invalid")));
        ConfigIsolations.ALTER_CONFIGS.rewriteAnswer(answer, scope);
        assertEquals("orders", answer.responses().get(0).resourceName());
        assertEquals("retention.ms of orders is invalid", answer.responses().get(0).errorMessage());
    }

    @Test
    void incrementalAlterConfigsOfATopicGoesOnUnderItsRealNameAndIsAnsweredUnderTheClients() {
        IncrementalAlterConfigsRequestData request = new IncrementalAlterConfigsRequestData();
        request.resources().add(new IncrementalAlterConfigsRequestData.AlterConfigsResource().setResourceType(TOPIC)
                .setResourceName("orders"));
        ConfigIsolations.INCREMENTAL_ALTER_CONFIGS.rewriteRequest(request, scope);
        assertNotNull(request.resources().find(TOPIC, "a.orders"), "a route finds it by its real name");

        IncrementalAlterConfigsResponseData answer = new IncrementalAlterConfigsResponseData().setResponses(List.of(
                new IncrementalAlterConfigsResponseData.AlterConfigsResourceResponse().setResourceType(TOPIC)
                        .setResourceName("a.orders").setErrorMessage("topic a.orders is unknown")));
        ConfigIsolations.INCREMENTAL_ALTER_CONFIGS.rewriteAnswer(answer, scope);
        assertEquals("orders", answer.responses().get(0).resourceName());
        assertEquals("topic orders is unknown", answer.responses().get(0).errorMessage());
    }

    @Test
    void aBrokerOrGroupResourceRefusesTheRequestWithKafkasErrorAndRenamesNothing() {
        for (ConfigResource.Type type : List.of(ConfigResource.Type.BROKER, ConfigResource.Type.BROKER_LOGGER,
                ConfigResource.Type.CLIENT_METRICS)) {
            IncrementalAlterConfigsRequestData request = incrementalAlter(type);
            TenantRefusal refusal = assertThrows(TenantRefusal.class,
                    () -> ConfigIsolations.INCREMENTAL_ALTER_CONFIGS.rewriteRequest(request, scope));
            assertEquals(Errors.CLUSTER_AUTHORIZATION_FAILED, refusal.error(), type.name());
            // The refusal's answer lists the request's resources: the topic keeps the client's name.
            assertNotNull(request.resources().find(TOPIC, "orders"), type.name());
        }
        TenantRefusal group = assertThrows(TenantRefusal.class,
                () -> ConfigIsolations.INCREMENTAL_ALTER_CONFIGS.rewriteRequest(
                        incrementalAlter(ConfigResource.Type.GROUP), scope));
        assertEquals(Errors.GROUP_AUTHORIZATION_FAILED, group.error());

        AlterConfigsRequestData alter = new AlterConfigsRequestData();
        alter.resources().add(new AlterConfigsRequestData.AlterConfigsResource()
                .setResourceType(ConfigResource.Type.BROKER.id()).setResourceName("0"));
        assertEquals(Errors.CLUSTER_AUTHORIZATION_FAILED, assertThrows(TenantRefusal.class,
                () -> ConfigIsolations.ALTER_CONFIGS.rewriteRequest(alter, scope)).error());
    }

    @Test
    void describingABrokersConfigurationIsRefusedAndTheTopicBesideItKeepsTheClientsName() {
        DescribeConfigsRequestData request = new DescribeConfigsRequestData();
        request.resources().add(new DescribeConfigsRequestData.DescribeConfigsResource().setResourceType(TOPIC)
                .setResourceName("orders"));
        request.resources().add(new DescribeConfigsRequestData.DescribeConfigsResource()
                .setResourceType(ConfigResource.Type.BROKER.id()).setResourceName("0"));
        TenantRefusal refusal = assertThrows(TenantRefusal.class,
                () -> ConfigIsolations.DESCRIBE_CONFIGS.rewriteRequest(request, scope));
        assertEquals(Errors.CLUSTER_AUTHORIZATION_FAILED, refusal.error());
        assertEquals("orders", request.resources().get(0).resourceName());
    }

    /** A change to topic orders, then to a resource of {@code type}. */
    private static IncrementalAlterConfigsRequestData incrementalAlter(ConfigResource.Type type) {
        IncrementalAlterConfigsRequestData request = new IncrementalAlterConfigsRequestData();
        request.resources().add(new IncrementalAlterConfigsRequestData.AlterConfigsResource().setResourceType(TOPIC)
                .setResourceName("orders"));
        request.resources().add(new IncrementalAlterConfigsRequestData.AlterConfigsResource()
                .setResourceType(type.id()).setResourceName("0"));
        return request;
    }
}
