package org.kafscale.proxy.core.tenant;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.netty.buffer.ByteBuf;
import io.netty.channel.DefaultEventLoop;
import io.netty.channel.EventLoop;
import io.netty.util.concurrent.Future;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.common.ElectionType;
import org.apache.kafka.common.acl.AclBindingFilter;
import org.apache.kafka.common.config.ConfigResource;
import org.apache.kafka.common.message.ApiVersionsResponseData;
import org.apache.kafka.common.message.DescribeConfigsRequestData;
import org.apache.kafka.common.message.DescribeConfigsResponseData;
import org.apache.kafka.common.message.ElectLeadersResponseData;
import org.apache.kafka.common.message.MetadataRequestData;
import org.apache.kafka.common.message.MetadataResponseData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.requests.AbstractRequest;
import org.apache.kafka.common.requests.ApiVersionsRequest;
import org.apache.kafka.common.requests.ApiVersionsResponse;
import org.apache.kafka.common.requests.DescribeAclsRequest;
import org.apache.kafka.common.requests.DescribeConfigsRequest;
import org.apache.kafka.common.requests.DescribeConfigsResponse;
import org.apache.kafka.common.requests.ElectLeadersRequest;
import org.apache.kafka.common.requests.ElectLeadersResponse;
import org.apache.kafka.common.requests.MetadataRequest;
import org.apache.kafka.common.requests.MetadataResponse;
import org.apache.kafka.common.security.auth.KafkaPrincipal;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.kafscale.proxy.core.codec.KafkaWire;
import org.kafscale.proxy.core.codec.RequestFrame;
import org.kafscale.proxy.core.codec.ResponseFrames;
import org.kafscale.proxy.core.policy.PolicyChain;
import org.kafscale.proxy.core.security.OwnConnections;
import org.kafscale.proxy.core.server.ConnectionContext;
import org.kafscale.proxy.core.server.Replies;
import org.kafscale.proxy.core.server.Reply;
import org.kafscale.proxy.core.server.RequestHandler;
import org.kafscale.proxy.core.testing.StubTopology;
import org.kafscale.proxy.core.topology.TopologySnapshot;

/**
 * The tenant policy in a policy chain in front of a route that plays the real cluster, on a real
 * event loop: who is placed where, what is refused, what ApiVersions shows a tenant, and a
 * rewritten request and answer.
 */
class TenantPolicyTest {
    private final EventLoop loop = new DefaultEventLoop();
    private final ConnectionContext connection = new ConnectionContext(loop, null,
            new InetSocketAddress("127.0.0.1", 50000));
    /** The requests the real cluster got: their bodies, as the route read them. */
    private final List<ApiMessage> routed = new ArrayList<>();
    private final List<RequestFrame> requests = new ArrayList<>();

    /**
     * The real cluster: ApiVersions lists Metadata, the SASL keys and DescribeAcls; Metadata
     * names one topic of team a's, one of another tenant's and an internal one.
     */
    private final RequestHandler cluster = (context, request) -> {
        ApiKeys api = request.knownApi().orElseThrow();
        ApiMessage answer = switch (api) {
            case API_VERSIONS -> {
                ApiVersionsResponseData versions = new ApiVersionsResponseData();
                for (ApiKeys listed : List.of(ApiKeys.METADATA, ApiKeys.SASL_HANDSHAKE, ApiKeys.SASL_AUTHENTICATE,
                        ApiKeys.DESCRIBE_ACLS)) {
                    versions.apiKeys().add(new ApiVersionsResponseData.ApiVersion().setApiKey(listed.id)
                            .setMinVersion(listed.oldestVersion()).setMaxVersion(listed.latestVersion()));
                }
                yield versions;
            }
            case METADATA -> {
                routed.add(request.decodeBody(MetadataRequestData.class));
                MetadataResponseData metadata = new MetadataResponseData().setClusterId("real-cluster");
                for (String name : List.of("a.orders", "b.orders", "__consumer_offsets")) {
                    metadata.topics().add(new MetadataResponseData.MetadataResponseTopic().setName(name));
                }
                yield metadata;
            }
            default -> throw new AssertionError(api + " reached the real cluster");
        };
        return Replies.now(context.loop(), Reply.send(ResponseFrames.encode(request, answer)));
    };

    private final PolicyChain chain = PolicyChain.of(new TenantPolicy(isolations(), new VirtualClusters(List.of(TeamA.CLUSTER)),
            new StubTopology(TopologySnapshot.EMPTY), new OwnConnections()));

    @AfterEach
    void stop() {
        requests.forEach(r -> r.frame().release());
        loop.shutdownGracefully(0, 1, TimeUnit.SECONDS);
    }

    @Test
    void aPrincipalInNoVirtualClusterIsClosedWithALineNamingIt() throws Exception {
        // Given a client authenticated as bob, whom no virtual cluster names
        connection.authenticatedAs(new KafkaPrincipal("User", "bob"));

        // When it asks for Metadata
        Reply reply = handle(new MetadataRequest.Builder(new MetadataRequestData().setTopics(null)).build((short) 12));

        // Then it is closed, saying who and why, and the real cluster never saw the request
        String reason = assertInstanceOf(Reply.Close.class, reply).reason();
        assertTrue(reason.contains("User:bob") && reason.contains("in no virtual cluster"), reason);
        assertEquals(List.of(), routed);
    }

    @Test
    void anApiRefusedToVirtualClustersClosesTheTenantsConnection() throws Exception {
        // Given a client of team a
        connection.authenticatedAs(TeamA.ALICE);

        // When it sends DescribeAcls, which no virtual cluster is served
        Reply reply = handle(new DescribeAclsRequest.Builder(AclBindingFilter.ANY).build((short) 3));

        // Then it is closed, naming the API and the virtual cluster, and the real cluster never saw it
        String reason = assertInstanceOf(Reply.Close.class, reply).reason();
        assertTrue(reason.contains(ApiKeys.DESCRIBE_ACLS.name) && reason.contains("team-a"), reason);
        assertEquals(List.of(), routed);
    }

    @Test
    void apiVersionsListsNoRefusedKeyAndKeepsTheSaslKeys() throws Exception {
        // Given a client that has not authenticated yet (ApiVersions comes first)
        // When it asks for the API versions
        short version = 3;
        ApiVersionsResponseData answer = KafkaWire.parseResponseAndRelease(
                sent(handle(new ApiVersionsRequest.Builder().build(version))), ApiKeys.API_VERSIONS, version)
                .as(ApiVersionsResponse.class).data();

        // Then DescribeAcls is gone; Metadata and the SASL keys, which the listener serves, stay
        List<Short> keys = answer.apiKeys().stream().map(ApiVersionsResponseData.ApiVersion::apiKey).toList();
        assertEquals(List.of(ApiKeys.METADATA.id, ApiKeys.SASL_HANDSHAKE.id, ApiKeys.SASL_AUTHENTICATE.id), keys);
    }

    @Test
    void aTenantsMetadataGoesOnInRealNamesAndComesBackInItsOwn() throws Exception {
        // Given a client of team a
        connection.authenticatedAs(TeamA.ALICE);
        short version = 12;
        MetadataRequestData asked = new MetadataRequestData();
        asked.topics().add(new MetadataRequestData.MetadataRequestTopic().setName("orders"));

        // When it asks for Metadata of its topic orders
        MetadataResponseData answer = KafkaWire.parseResponseAndRelease(
                sent(handle(new MetadataRequest.Builder(asked).build(version))), ApiKeys.METADATA, version)
                .as(MetadataResponse.class).data();

        // Then the real cluster was asked for a.orders
        MetadataRequestData real = (MetadataRequestData) routed.get(0);
        assertEquals(List.of("a.orders"), real.topics().stream().map(MetadataRequestData.MetadataRequestTopic::name)
                .toList());
        // ... and the client reads orders alone, under team a's cluster id
        assertEquals(List.of("orders"), answer.topics().stream().map(MetadataResponseData.MetadataResponseTopic::name)
                .toList());
        assertEquals(TeamA.CLUSTER.clusterId(), answer.clusterId());
    }

    @Test
    void aRequestARewriteRefusesIsAnsweredWithKafkasErrorAndNeverSent() throws Exception {
        // Given a client of team a
        connection.authenticatedAs(TeamA.ALICE);
        short version = 4;
        DescribeConfigsRequestData asked = new DescribeConfigsRequestData();
        asked.resources().add(new DescribeConfigsRequestData.DescribeConfigsResource()
                .setResourceType(ConfigResource.Type.BROKER.id()).setResourceName("0"));

        // When it asks for a broker's configuration
        DescribeConfigsResponseData answer = KafkaWire.parseResponseAndRelease(
                sent(handle(new DescribeConfigsRequest.Builder(asked).build(version))), ApiKeys.DESCRIBE_CONFIGS, version)
                .as(DescribeConfigsResponse.class).data();

        // Then it reads CLUSTER_AUTHORIZATION_FAILED for the resource, the connection stays, and no broker was asked
        assertEquals(Errors.CLUSTER_AUTHORIZATION_FAILED.code(), answer.results().get(0).errorCode());
        assertEquals(List.of(), routed);
    }

    @Test
    void anElectionOverEveryPartitionIsAnsweredWithKafkasErrorAndNeverSent() throws Exception {
        // Given a client of team a
        connection.authenticatedAs(TeamA.ALICE);
        short version = 2;

        // When it asks for an election over every partition (no topic list)
        ElectLeadersResponseData answer = KafkaWire.parseResponseAndRelease(sent(handle(new ElectLeadersRequest.Builder(
                ElectionType.PREFERRED, null, 30_000).build(version))), ApiKeys.ELECT_LEADERS, version)
                .as(ElectLeadersResponse.class).data();

        // Then it reads CLUSTER_AUTHORIZATION_FAILED, and no broker was asked
        assertEquals(Errors.CLUSTER_AUTHORIZATION_FAILED.code(), answer.errorCode());
        assertEquals(List.of(), routed);
    }

    /** How the registry would serve the keys the tests send; every other key is refused. */
    private static IsolatedApis isolations() {
        Map<ApiKeys, Isolation> isolations = new EnumMap<>(ApiKeys.class);
        isolations.put(ApiKeys.API_VERSIONS, ClusterIsolations.API_VERSIONS);
        isolations.put(ApiKeys.METADATA, TopicIsolations.METADATA);
        isolations.put(ApiKeys.DESCRIBE_CONFIGS, ConfigIsolations.DESCRIBE_CONFIGS);
        isolations.put(ApiKeys.ELECT_LEADERS, PartitionIsolations.ELECT_LEADERS);
        return api -> isolations.getOrDefault(api, Isolation.NOT_ISOLATED);
    }

    private Reply handle(AbstractRequest body) throws Exception {
        RequestFrame request = KafkaWire.requestFrame(body, 42, "tenant-client");
        requests.add(request);
        RequestHandler handler = chain.around(cluster);
        Future<Reply> reply = loop.submit(() -> handler.handle(connection, request)).get(5, TimeUnit.SECONDS);
        return reply.get(5, TimeUnit.SECONDS);
    }

    private static ByteBuf sent(Reply reply) {
        return assertInstanceOf(Reply.Send.class, reply).frame();
    }
}
