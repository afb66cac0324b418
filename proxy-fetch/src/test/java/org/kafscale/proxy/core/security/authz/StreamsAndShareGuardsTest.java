package org.kafscale.proxy.core.security.authz;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.kafscale.proxy.core.security.authz.ApiGuardsTest.edited;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.acl.AccessControlEntry;
import org.apache.kafka.common.acl.AclBinding;
import org.apache.kafka.common.acl.AclOperation;
import org.apache.kafka.common.acl.AclPermissionType;
import org.apache.kafka.common.message.AlterShareGroupOffsetsRequestData;
import org.apache.kafka.common.message.AlterShareGroupOffsetsResponseData;
import org.apache.kafka.common.message.DeleteShareGroupOffsetsRequestData;
import org.apache.kafka.common.message.DeleteShareGroupOffsetsResponseData;
import org.apache.kafka.common.message.DescribeShareGroupOffsetsRequestData;
import org.apache.kafka.common.message.DescribeShareGroupOffsetsResponseData;
import org.apache.kafka.common.message.ShareAcknowledgeRequestData;
import org.apache.kafka.common.message.ShareAcknowledgeResponseData;
import org.apache.kafka.common.message.ShareFetchRequestData;
import org.apache.kafka.common.message.ShareFetchResponseData;
import org.apache.kafka.common.message.StreamsGroupDescribeRequestData;
import org.apache.kafka.common.message.StreamsGroupDescribeResponseData;
import org.apache.kafka.common.message.StreamsGroupHeartbeatRequestData;
import org.apache.kafka.common.message.StreamsGroupHeartbeatResponseData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.resource.PatternType;
import org.apache.kafka.common.resource.ResourcePattern;
import org.apache.kafka.common.resource.ResourceType;
import org.apache.kafka.common.security.auth.KafkaPrincipal;
import org.junit.jupiter.api.Test;
import org.kafscale.proxy.core.apis.ApiCatalog;
import org.kafscale.proxy.core.apis.ApiSpec;
import org.kafscale.proxy.core.topology.TopicLayout;
import org.kafscale.proxy.core.topology.TopologySnapshot;
import org.kafscale.proxy.routing.apis.Apis;

/**
 * The streams-group and share-group checks, as Kafka's broker makes them (KIP-1071, KIP-932), on
 * kafka-clients' decoded requests: alice may use her own groups and topics, read the shared
 * topic, describe the other- topics, and create only topics of her own.
 */
class StreamsAndShareGuardsTest {
    private static final ApiCatalog APIS = Apis.catalog();
    private static final KafkaPrincipal ALICE = new KafkaPrincipal(KafkaPrincipal.USER_TYPE, "alice");
    private static final Uuid ALICE_ORDERS = Uuid.randomUuid();
    private static final Uuid BOB_ORDERS = Uuid.randomUuid();
    private static final AclRules RULES = new AclRules(List.of(
            allow(ResourceType.TOPIC, PatternType.PREFIXED, "alice-", AclOperation.ALL),
            allow(ResourceType.TOPIC, PatternType.LITERAL, "shared", AclOperation.READ),
            allow(ResourceType.TOPIC, PatternType.PREFIXED, "other-", AclOperation.DESCRIBE),
            allow(ResourceType.GROUP, PatternType.PREFIXED, "alice-", AclOperation.READ),
            allow(ResourceType.GROUP, PatternType.PREFIXED, "alice-", AclOperation.DELETE)));
    private static final TopologySnapshot TOPOLOGY = TopologySnapshot.of(null, -1, List.of(), List.of(
            TopicLayout.of("alice-orders", ALICE_ORDERS, false, Map.of()),
            TopicLayout.of("bob-orders", BOB_ORDERS, false, Map.of()),
            TopicLayout.of("shared", Uuid.randomUuid(), false, Map.of()),
            TopicLayout.of("bob-app-store-changelog", Uuid.randomUuid(), false, Map.of())));

    private final Access access = new Access(ALICE, RULES, TOPOLOGY);

    private static AclBinding allow(ResourceType type, PatternType pattern, String name, AclOperation operation) {
        return new AclBinding(new ResourcePattern(type, name, pattern),
                new AccessControlEntry(ALICE.toString(), "*", operation, AclPermissionType.ALLOW));
    }

    private Verdict check(ApiKeys api, ApiMessage request) {
        return AuthorizationPolicy.guardOf(APIS, api).check(request, api.latestVersion(), access);
    }

    @Test
    void everyServedApiHasACheckOfItsOwnOrIsOneKafkaDoesNotCheck() {
        List<ApiKeys> unmapped = APIS.all().values().stream().filter(ApiSpec::served).map(ApiSpec::api)
                .filter(api -> AuthorizationPolicy.guardOf(APIS, api).refusesWhole()).toList();
        assertEquals(List.of(), unmapped);
    }

    @Test
    void aStreamsMemberJoinsWithReadOnItsGroupAndDescribeOnEveryTopicOfItsTopology() {
        // Given: alice's application reading the shared topic, with internal topics she may create
        StreamsGroupHeartbeatRequestData join = streamsJoin("alice-app", List.of("shared"), "alice-app-store-changelog");
        // When / Then
        assertEquals(Verdict.ALLOW, check(ApiKeys.STREAMS_GROUP_HEARTBEAT, join));
        assertEquals(Set.of(), access.refused());
        // A heartbeat without a topology (a member that joined already) needs Read on the group only
        assertEquals(Verdict.ALLOW, check(ApiKeys.STREAMS_GROUP_HEARTBEAT,
                new StreamsGroupHeartbeatRequestData().setGroupId("alice-app").setTopology(null)));
        // Another principal's group is refused with the group's error
        assertEquals(new Verdict.Refuse(Errors.GROUP_AUTHORIZATION_FAILED), check(ApiKeys.STREAMS_GROUP_HEARTBEAT,
                streamsJoin("bob-app", List.of("shared"), "bob-app-store-changelog")));
    }

    @Test
    void aStreamsTopologyReadingATopicThePrincipalMayNotDescribeIsRefusedNamingIt() {
        StreamsGroupHeartbeatRequestData join = streamsJoin("alice-app", List.of("bob-orders"), "alice-app-store-changelog");
        StreamsGroupHeartbeatResponseData answer = (StreamsGroupHeartbeatResponseData)
                assertInstanceOf(Verdict.Answer.class, check(ApiKeys.STREAMS_GROUP_HEARTBEAT, join)).answer();
        assertEquals(Errors.TOPIC_AUTHORIZATION_FAILED.code(), answer.errorCode());
        assertTrue(answer.errorMessage().contains("bob-orders"), answer.errorMessage());
        assertEquals(Set.of(ResourceType.TOPIC), access.refused());
    }

    @Test
    void aMissingInternalTopicThePrincipalMayNotCreateRefusesTheJoinBeforeTheBrokerCreatesIt() {
        // Given: alice's group, but a changelog topic she may describe, not create, that does not exist yet
        StreamsGroupHeartbeatRequestData join = streamsJoin("alice-app", List.of("alice-orders"), "other-store-changelog");
        // When
        Verdict verdict = check(ApiKeys.STREAMS_GROUP_HEARTBEAT, join);
        // Then: it is not created by the broker as the proxy's identity
        StreamsGroupHeartbeatResponseData answer = (StreamsGroupHeartbeatResponseData)
                assertInstanceOf(Verdict.Answer.class, verdict).answer();
        assertEquals(Errors.TOPIC_AUTHORIZATION_FAILED.code(), answer.errorCode());
        assertTrue(answer.errorMessage().contains("create") && answer.errorMessage().contains("other-store-changelog"),
                answer.errorMessage());
    }

    @Test
    void streamsGroupDescribeRefusesOtherGroupsAndGroupsWhoseTopologyUsesUndescribableTopics() {
        // Given
        StreamsGroupDescribeRequestData request = new StreamsGroupDescribeRequestData()
                .setGroupIds(new ArrayList<>(List.of("alice-app", "alice-other", "bob-app")));
        // When
        Verdict verdict = check(ApiKeys.STREAMS_GROUP_DESCRIBE, request);
        // Then: bob's group is answered here; the broker's answer for alice-other, whose topology
        // reads bob's topic, becomes a refusal
        assertEquals(List.of("alice-app", "alice-other"),
                ((StreamsGroupDescribeRequestData) ((Verdict.Edit) verdict).narrowed()).groupIds());
        StreamsGroupDescribeResponseData answer = edited(verdict, new StreamsGroupDescribeResponseData().setGroups(
                new ArrayList<>(List.of(describedGroup("alice-app", "alice-orders"), describedGroup("alice-other", "bob-orders")))));
        Map<String, Short> errors = new HashMap<>();
        answer.groups().forEach(g -> errors.put(g.groupId(), g.errorCode()));
        assertEquals(Map.of("alice-app", Errors.NONE.code(), "alice-other", Errors.TOPIC_AUTHORIZATION_FAILED.code(),
                "bob-app", Errors.GROUP_AUTHORIZATION_FAILED.code()), errors);
        assertNull(answer.groups().get(1).topology(), "nothing of the refused group's topology is shown");
    }

    @Test
    void aShareFetchNamingATopicThePrincipalMayNotReadGoesOnWithoutItAndTheTopicIsAnsweredRefused() {
        // Given: a ShareFetch of alice's topic and bob's, acknowledging records of bob's
        ShareFetchRequestData request = new ShareFetchRequestData().setGroupId("alice-share").setShareSessionEpoch(1);
        request.topics().add(fetchTopic(ALICE_ORDERS));
        ShareFetchRequestData.FetchTopic bobs = fetchTopic(BOB_ORDERS);
        bobs.partitions().iterator().next().setAcknowledgementBatches(List.of(
                new ShareFetchRequestData.AcknowledgementBatch().setFirstOffset(0).setLastOffset(0)
                        .setAcknowledgeTypes(List.of((byte) 1))));
        request.topics().add(bobs);
        // When
        Verdict verdict = check(ApiKeys.SHARE_FETCH, request);
        // Then: alice's topic goes on; bob's is answered with the refusal, of its fetch and its acknowledgements
        ShareFetchRequestData narrowed = (ShareFetchRequestData) ((Verdict.Edit) verdict).narrowed();
        assertEquals(List.of(ALICE_ORDERS), narrowed.topics().stream().map(ShareFetchRequestData.FetchTopic::topicId).toList());
        ShareFetchResponseData answer = edited(verdict, shareFetchAnswer(ALICE_ORDERS));
        ShareFetchResponseData.PartitionData refused = answer.responses().find(BOB_ORDERS).partitions().get(0);
        assertEquals(Errors.TOPIC_AUTHORIZATION_FAILED.code(), refused.errorCode());
        assertEquals(Errors.TOPIC_AUTHORIZATION_FAILED.code(), refused.acknowledgeErrorCode());
        assertEquals(Errors.NONE.code(), answer.responses().find(ALICE_ORDERS).partitions().get(0).errorCode());
    }

    @Test
    void aShareFetchAnswerWithRecordsOfATopicNoLongerReadableWithholdsThem() {
        // Given: an incremental ShareFetch naming nothing; the session holds bob's topic from before
        Verdict verdict = check(ApiKeys.SHARE_FETCH, new ShareFetchRequestData().setGroupId("alice-share")
                .setShareSessionEpoch(3));
        assertNull(((Verdict.Edit) verdict).narrowed(), "the client's request goes on as sent");
        // When: the broker answers with records of it
        ShareFetchResponseData answer = edited(verdict, shareFetchAnswer(BOB_ORDERS));
        // Then
        ShareFetchResponseData.PartitionData p = answer.responses().find(BOB_ORDERS).partitions().get(0);
        assertEquals(Errors.TOPIC_AUTHORIZATION_FAILED.code(), p.errorCode());
        assertEquals(List.of(), p.acquiredRecords());
        assertEquals(Set.of(ResourceType.TOPIC), access.refused());
    }

    @Test
    void aShareAcknowledgeOfARefusedTopicIsAnsweredRefusedAndTheRestGoesOn() {
        ShareAcknowledgeRequestData request = new ShareAcknowledgeRequestData().setGroupId("alice-share").setShareSessionEpoch(2);
        request.topics().add(ackTopic(ALICE_ORDERS));
        request.topics().add(ackTopic(BOB_ORDERS));
        Verdict verdict = check(ApiKeys.SHARE_ACKNOWLEDGE, request);
        ShareAcknowledgeRequestData narrowed = (ShareAcknowledgeRequestData) ((Verdict.Edit) verdict).narrowed();
        assertEquals(List.of(ALICE_ORDERS), narrowed.topics().stream()
                .map(ShareAcknowledgeRequestData.AcknowledgeTopic::topicId).toList());
        ShareAcknowledgeResponseData answer = edited(verdict, new ShareAcknowledgeResponseData());
        assertEquals(Errors.TOPIC_AUTHORIZATION_FAILED.code(), answer.responses().find(BOB_ORDERS).partitions().get(0).errorCode());
        assertEquals(new Verdict.Refuse(Errors.GROUP_AUTHORIZATION_FAILED), check(ApiKeys.SHARE_ACKNOWLEDGE,
                new ShareAcknowledgeRequestData().setGroupId("bob-share")));
    }

    @Test
    void describeShareGroupOffsetsDecidesEachGroupAloneAndHidesTopicsOfAnEveryTopicAnswer() {
        // Given: alice's group for every topic, bob's group
        DescribeShareGroupOffsetsRequestData request = new DescribeShareGroupOffsetsRequestData().setGroups(new ArrayList<>(List.of(
                new DescribeShareGroupOffsetsRequestData.DescribeShareGroupOffsetsRequestGroup().setGroupId("alice-share")
                        .setTopics(null),
                new DescribeShareGroupOffsetsRequestData.DescribeShareGroupOffsetsRequestGroup().setGroupId("bob-share"))));
        // When
        Verdict verdict = check(ApiKeys.DESCRIBE_SHARE_GROUP_OFFSETS, request);
        DescribeShareGroupOffsetsResponseData answer = edited(verdict, new DescribeShareGroupOffsetsResponseData()
                .setGroups(new ArrayList<>(List.of(new DescribeShareGroupOffsetsResponseData.DescribeShareGroupOffsetsResponseGroup()
                        .setGroupId("alice-share").setTopics(new ArrayList<>(List.of(offsetsOf("alice-orders"),
                                offsetsOf("bob-orders"))))))));
        // Then
        assertEquals(List.of("alice-share"), ((DescribeShareGroupOffsetsRequestData) ((Verdict.Edit) verdict).narrowed())
                .groups().stream().map(DescribeShareGroupOffsetsRequestData.DescribeShareGroupOffsetsRequestGroup::groupId)
                .toList());
        assertEquals(List.of("alice-orders"), answer.groups().get(0).topics().stream()
                .map(DescribeShareGroupOffsetsResponseData.DescribeShareGroupOffsetsResponseTopic::topicName).toList());
        assertEquals("bob-share", answer.groups().get(1).groupId());
        assertEquals(Errors.GROUP_AUTHORIZATION_FAILED.code(), answer.groups().get(1).errorCode());
    }

    @Test
    void alterShareGroupOffsetsNeedsReadOnTheGroupAndOnEachTopic() {
        AlterShareGroupOffsetsRequestData request = new AlterShareGroupOffsetsRequestData().setGroupId("alice-share");
        for (String topic : List.of("alice-orders", "bob-orders")) {
            request.topics().add(new AlterShareGroupOffsetsRequestData.AlterShareGroupOffsetsRequestTopic().setTopicName(topic)
                    .setPartitions(List.of(new AlterShareGroupOffsetsRequestData.AlterShareGroupOffsetsRequestPartition()
                            .setPartitionIndex(0).setStartOffset(5))));
        }
        Verdict verdict = check(ApiKeys.ALTER_SHARE_GROUP_OFFSETS, request);
        assertEquals(List.of("alice-orders"), ((AlterShareGroupOffsetsRequestData) ((Verdict.Edit) verdict).narrowed())
                .topics().stream().map(AlterShareGroupOffsetsRequestData.AlterShareGroupOffsetsRequestTopic::topicName).toList());
        AlterShareGroupOffsetsResponseData answer = edited(verdict, new AlterShareGroupOffsetsResponseData());
        assertEquals(Errors.TOPIC_AUTHORIZATION_FAILED.code(), answer.responses().find("bob-orders").partitions().get(0).errorCode());
        assertEquals(new Verdict.Refuse(Errors.GROUP_AUTHORIZATION_FAILED), check(ApiKeys.ALTER_SHARE_GROUP_OFFSETS,
                new AlterShareGroupOffsetsRequestData().setGroupId("bob-share")));
    }

    @Test
    void deleteShareGroupOffsetsNeedsDeleteOnTheGroupAndReadOnEachTopic() {
        DeleteShareGroupOffsetsRequestData request = new DeleteShareGroupOffsetsRequestData().setGroupId("alice-share")
                .setTopics(new ArrayList<>(List.of(
                        new DeleteShareGroupOffsetsRequestData.DeleteShareGroupOffsetsRequestTopic().setTopicName("bob-orders"))));
        DeleteShareGroupOffsetsResponseData answer = (DeleteShareGroupOffsetsResponseData) assertInstanceOf(Verdict.Answer.class,
                check(ApiKeys.DELETE_SHARE_GROUP_OFFSETS, request)).answer();
        assertEquals(Errors.TOPIC_AUTHORIZATION_FAILED.code(), answer.responses().get(0).errorCode());
        // Read on alice's groups does not give Delete on bob's
        assertEquals(new Verdict.Refuse(Errors.GROUP_AUTHORIZATION_FAILED), check(ApiKeys.DELETE_SHARE_GROUP_OFFSETS,
                new DeleteShareGroupOffsetsRequestData().setGroupId("bob-share")));
    }

    private static StreamsGroupHeartbeatRequestData streamsJoin(String group, List<String> sources, String changelog) {
        return new StreamsGroupHeartbeatRequestData().setGroupId(group).setMemberEpoch(0).setTopology(
                new StreamsGroupHeartbeatRequestData.Topology().setEpoch(0).setSubtopologies(List.of(
                        new StreamsGroupHeartbeatRequestData.Subtopology().setSubtopologyId("0").setSourceTopics(sources)
                                .setStateChangelogTopics(List.of(new StreamsGroupHeartbeatRequestData.TopicInfo()
                                        .setName(changelog))))));
    }

    private static StreamsGroupDescribeResponseData.DescribedGroup describedGroup(String group, String source) {
        return new StreamsGroupDescribeResponseData.DescribedGroup().setGroupId(group).setGroupState("Stable")
                .setTopology(new StreamsGroupDescribeResponseData.Topology().setSubtopologies(List.of(
                        new StreamsGroupDescribeResponseData.Subtopology().setSubtopologyId("0")
                                .setSourceTopics(List.of(source)))));
    }

    private static ShareFetchRequestData.FetchTopic fetchTopic(Uuid id) {
        ShareFetchRequestData.FetchTopic t = new ShareFetchRequestData.FetchTopic().setTopicId(id);
        t.partitions().add(new ShareFetchRequestData.FetchPartition().setPartitionIndex(0));
        return t;
    }

    private static ShareAcknowledgeRequestData.AcknowledgeTopic ackTopic(Uuid id) {
        ShareAcknowledgeRequestData.AcknowledgeTopic t = new ShareAcknowledgeRequestData.AcknowledgeTopic().setTopicId(id);
        t.partitions().add(new ShareAcknowledgeRequestData.AcknowledgePartition().setPartitionIndex(0));
        return t;
    }

    private static ShareFetchResponseData shareFetchAnswer(Uuid topic) {
        ShareFetchResponseData answer = new ShareFetchResponseData();
        answer.responses().add(new ShareFetchResponseData.ShareFetchableTopicResponse().setTopicId(topic)
                .setPartitions(new ArrayList<>(List.of(new ShareFetchResponseData.PartitionData().setPartitionIndex(0)
                        .setAcquiredRecords(List.of(new ShareFetchResponseData.AcquiredRecords().setFirstOffset(0)
                                .setLastOffset(4).setDeliveryCount((short) 1)))))));
        return answer;
    }

    private static DescribeShareGroupOffsetsResponseData.DescribeShareGroupOffsetsResponseTopic offsetsOf(String topic) {
        return new DescribeShareGroupOffsetsResponseData.DescribeShareGroupOffsetsResponseTopic().setTopicName(topic)
                .setPartitions(new ArrayList<>(List.of(
                        new DescribeShareGroupOffsetsResponseData.DescribeShareGroupOffsetsResponsePartition().setPartitionIndex(0))));
    }
}
