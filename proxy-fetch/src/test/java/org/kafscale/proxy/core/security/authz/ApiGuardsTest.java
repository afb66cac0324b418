package org.kafscale.proxy.core.security.authz;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;

import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.kafka.common.acl.AccessControlEntry;
import org.apache.kafka.common.acl.AclBinding;
import org.apache.kafka.common.acl.AclOperation;
import org.apache.kafka.common.acl.AclPermissionType;
import org.apache.kafka.common.config.ConfigResource;
import org.apache.kafka.common.message.AddPartitionsToTxnRequestData;
import org.apache.kafka.common.message.AddPartitionsToTxnResponseData;
import org.apache.kafka.common.message.CreateTopicsRequestData;
import org.apache.kafka.common.message.DescribeConfigsRequestData;
import org.apache.kafka.common.message.DescribeConfigsResponseData;
import org.apache.kafka.common.message.FindCoordinatorRequestData;
import org.apache.kafka.common.message.FindCoordinatorResponseData;
import org.apache.kafka.common.message.InitProducerIdRequestData;
import org.apache.kafka.common.message.ListGroupsResponseData;
import org.apache.kafka.common.message.MetadataRequestData;
import org.apache.kafka.common.message.MetadataResponseData;
import org.apache.kafka.common.message.OffsetFetchRequestData;
import org.apache.kafka.common.message.OffsetFetchResponseData;
import org.apache.kafka.common.message.ShareGroupHeartbeatRequestData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.requests.FindCoordinatorRequest.CoordinatorType;
import org.apache.kafka.common.resource.PatternType;
import org.apache.kafka.common.resource.ResourcePattern;
import org.apache.kafka.common.resource.ResourceType;
import org.apache.kafka.common.security.auth.KafkaPrincipal;
import org.junit.jupiter.api.Test;
import org.kafscale.proxy.core.apis.ApiCatalog;
import org.kafscale.proxy.core.topology.TopologySnapshot;
import org.kafscale.proxy.routing.apis.Apis;

/**
 * What each API's check decides, on kafka-clients' decoded requests: which parts go on, which are
 * answered here and with which of Kafka's errors.
 */
class ApiGuardsTest {
    private static final ApiCatalog APIS = Apis.catalog();
    private static final KafkaPrincipal ALICE = new KafkaPrincipal(KafkaPrincipal.USER_TYPE, "alice");
    private static final AclRules RULES = new AclRules(List.of(
            allow(ResourceType.TOPIC, PatternType.PREFIXED, "alice-", AclOperation.ALL),
            allow(ResourceType.GROUP, PatternType.PREFIXED, "alice-", AclOperation.READ),
            allow(ResourceType.TRANSACTIONAL_ID, PatternType.LITERAL, "alice-tx", AclOperation.WRITE)));

    private static AclBinding allow(ResourceType type, PatternType pattern, String name, AclOperation operation) {
        return new AclBinding(new ResourcePattern(type, name, pattern),
                new AccessControlEntry(ALICE.toString(), "*", operation, AclPermissionType.ALLOW));
    }

    private final Access access = new Access(ALICE, RULES, TopologySnapshot.EMPTY);

    private Verdict check(ApiKeys api, ApiMessage request, int version) {
        return AuthorizationPolicy.guardOf(APIS, api).check(request, (short) version, access);
    }

    /** The answer a narrowed request's broker answer becomes once the refused parts are added. */
    static <S extends ApiMessage> S edited(Verdict verdict, S brokerAnswer) {
        ((Verdict.Edit) verdict).edit().accept(brokerAnswer);
        return brokerAnswer;
    }

    @Test
    void describeConfigsRefusesEachResourceWithItsOwnErrorAndSendsOnTheRest() {
        // Given
        DescribeConfigsRequestData request = new DescribeConfigsRequestData().setResources(new java.util.ArrayList<>(List.of(
                resource(ConfigResource.Type.TOPIC, "alice-orders"),
                resource(ConfigResource.Type.TOPIC, "bob-orders"),
                resource(ConfigResource.Type.BROKER, "0"))));
        // When
        Verdict verdict = check(ApiKeys.DESCRIBE_CONFIGS, request, 4);
        // Then: only alice's topic goes on; the others are answered with their errors
        Verdict.Edit edit = assertInstanceOf(Verdict.Edit.class, verdict);
        assertEquals(List.of("alice-orders"), ((DescribeConfigsRequestData) edit.narrowed()).resources().stream()
                .map(DescribeConfigsRequestData.DescribeConfigsResource::resourceName).toList());
        Map<String, Short> errors = new HashMap<>();
        edited(verdict, new DescribeConfigsResponseData()).results().forEach(r -> errors.put(r.resourceName(), r.errorCode()));
        assertEquals(Map.of("bob-orders", Errors.TOPIC_AUTHORIZATION_FAILED.code(),
                "0", Errors.CLUSTER_AUTHORIZATION_FAILED.code()), errors);
        assertEquals(java.util.Set.of(ResourceType.TOPIC, ResourceType.CLUSTER), access.refused());
    }

    @Test
    void findCoordinatorForSeveralGroupsAnswersTheRefusedKeysHere() {
        FindCoordinatorRequestData request = new FindCoordinatorRequestData().setKeyType(CoordinatorType.GROUP.id())
                .setCoordinatorKeys(new java.util.ArrayList<>(List.of("alice-g", "bob-g")));
        Verdict verdict = check(ApiKeys.FIND_COORDINATOR, request, 4);
        assertEquals(List.of("alice-g"), ((FindCoordinatorRequestData) ((Verdict.Edit) verdict).narrowed()).coordinatorKeys());
        FindCoordinatorResponseData.Coordinator refused = edited(verdict, new FindCoordinatorResponseData()).coordinators().get(0);
        assertEquals("bob-g", refused.key());
        assertEquals(Errors.GROUP_AUTHORIZATION_FAILED.code(), refused.errorCode());
        assertEquals(-1, refused.nodeId());
    }

    @Test
    void findCoordinatorOfARefusedTransactionalIdIsRefusedWithTheTransactionalIdError() {
        Verdict verdict = check(ApiKeys.FIND_COORDINATOR, new FindCoordinatorRequestData()
                .setKeyType(CoordinatorType.TRANSACTION.id()).setKey("bob-tx"), 3);
        assertEquals(new Verdict.Refuse(Errors.TRANSACTIONAL_ID_AUTHORIZATION_FAILED), verdict);
    }

    @Test
    void offsetFetchOfSeveralGroupsAnswersTheRefusedGroupsHere() {
        OffsetFetchRequestData request = new OffsetFetchRequestData().setGroups(new java.util.ArrayList<>(List.of(
                new OffsetFetchRequestData.OffsetFetchRequestGroup().setGroupId("alice-g"),
                new OffsetFetchRequestData.OffsetFetchRequestGroup().setGroupId("bob-g"))));
        Verdict verdict = check(ApiKeys.OFFSET_FETCH, request, 8);
        OffsetFetchResponseData answer = edited(verdict, new OffsetFetchResponseData().setGroups(new java.util.ArrayList<>(
                List.of(new OffsetFetchResponseData.OffsetFetchResponseGroup().setGroupId("alice-g")))));
        assertEquals(List.of("alice-g", "bob-g"), answer.groups().stream()
                .map(OffsetFetchResponseData.OffsetFetchResponseGroup::groupId).toList());
        assertEquals(Errors.GROUP_AUTHORIZATION_FAILED.code(), answer.groups().get(1).errorCode());
    }

    @Test
    void metadataOfEveryTopicLeavesOutWhatMayNotBeDescribedAndNamedTopicsAreRefused() {
        // Given: every topic, then two by name
        Verdict all = check(ApiKeys.METADATA, new MetadataRequestData().setTopics(null), 12);
        Verdict named = check(ApiKeys.METADATA, new MetadataRequestData().setAllowAutoTopicCreation(false)
                .setTopics(List.of(new MetadataRequestData.MetadataRequestTopic().setName("alice-orders"),
                        new MetadataRequestData.MetadataRequestTopic().setName("bob-orders"))), 12);
        // Then
        assertEquals(List.of("alice-orders"), edited(all, metadataOf("alice-orders", "bob-orders")).topics().stream()
                .map(MetadataResponseData.MetadataResponseTopic::name).toList());
        MetadataResponseData namedAnswer = edited(named, metadataOf("alice-orders", "bob-orders"));
        assertEquals(Errors.NONE.code(), namedAnswer.topics().find("alice-orders").errorCode());
        MetadataResponseData.MetadataResponseTopic refused = namedAnswer.topics().find("bob-orders");
        assertEquals(Errors.TOPIC_AUTHORIZATION_FAILED.code(), refused.errorCode());
        assertEquals(List.of(), refused.partitions());
    }

    @Test
    void metadataMayAutoCreateOnlyWhatThePrincipalMayCreate() {
        Verdict verdict = check(ApiKeys.METADATA, new MetadataRequestData().setAllowAutoTopicCreation(true)
                .setTopics(List.of(new MetadataRequestData.MetadataRequestTopic().setName("bob-new"))), 12);
        assertEquals(false, ((MetadataRequestData) ((Verdict.Edit) verdict).narrowed()).allowAutoTopicCreation());
        Verdict own = check(ApiKeys.METADATA, new MetadataRequestData().setAllowAutoTopicCreation(true)
                .setTopics(List.of(new MetadataRequestData.MetadataRequestTopic().setName("alice-new"))), 12);
        assertNull(((Verdict.Edit) own).narrowed(), "alice may create alice-new: the request goes on as sent");
    }

    @Test
    void createTopicsIsAllowedByCreateOnTheTopicOrOnTheCluster() {
        CreateTopicsRequestData request = new CreateTopicsRequestData();
        request.topics().add(new CreateTopicsRequestData.CreatableTopic().setName("alice-new"));
        assertEquals(Verdict.ALLOW, check(ApiKeys.CREATE_TOPICS, request, 7));
        assertEquals(java.util.Set.of(), access.refused(), "the cluster check that failed first is no refusal");
        CreateTopicsRequestData other = new CreateTopicsRequestData();
        other.topics().add(new CreateTopicsRequestData.CreatableTopic().setName("bob-new"));
        assertInstanceOf(Verdict.Answer.class, check(ApiKeys.CREATE_TOPICS, other, 7));
    }

    @Test
    void anIdempotentProducerNeedsWriteOnSomeTopicAndATransactionalOneWriteOnItsId() {
        assertEquals(Verdict.ALLOW, check(ApiKeys.INIT_PRODUCER_ID, new InitProducerIdRequestData().setTransactionalId(null), 5));
        assertEquals(Verdict.ALLOW, check(ApiKeys.INIT_PRODUCER_ID, new InitProducerIdRequestData()
                .setTransactionalId("alice-tx"), 5));
        assertEquals(new Verdict.Refuse(Errors.TRANSACTIONAL_ID_AUTHORIZATION_FAILED),
                check(ApiKeys.INIT_PRODUCER_ID, new InitProducerIdRequestData().setTransactionalId("alice-tx-2"), 5));
        Access bob = new Access(new KafkaPrincipal(KafkaPrincipal.USER_TYPE, "bob"), RULES, TopologySnapshot.EMPTY);
        assertEquals(new Verdict.Refuse(Errors.CLUSTER_AUTHORIZATION_FAILED),
                AuthorizationPolicy.guardOf(APIS, ApiKeys.INIT_PRODUCER_ID)
                        .check(new InitProducerIdRequestData().setTransactionalId(null), (short) 5, bob));
    }

    @Test
    void addingARefusedTopicToATransactionAddsNothingAsKafkaDoes() {
        AddPartitionsToTxnRequestData request = new AddPartitionsToTxnRequestData().setV3AndBelowTransactionalId("alice-tx");
        request.v3AndBelowTopics().add(new AddPartitionsToTxnRequestData.AddPartitionsToTxnTopic().setName("alice-orders")
                .setPartitions(List.of(0)));
        request.v3AndBelowTopics().add(new AddPartitionsToTxnRequestData.AddPartitionsToTxnTopic().setName("bob-orders")
                .setPartitions(List.of(0)));
        AddPartitionsToTxnResponseData answer = (AddPartitionsToTxnResponseData)
                assertInstanceOf(Verdict.Answer.class, check(ApiKeys.ADD_PARTITIONS_TO_TXN, request, 3)).answer();
        assertEquals(Errors.OPERATION_NOT_ATTEMPTED.code(), answer.resultsByTopicV3AndBelow().find("alice-orders")
                .resultsByPartition().find(0).partitionErrorCode());
        assertEquals(Errors.TOPIC_AUTHORIZATION_FAILED.code(), answer.resultsByTopicV3AndBelow().find("bob-orders")
                .resultsByPartition().find(0).partitionErrorCode());
    }

    @Test
    void listGroupsListsOnlyTheGroupsThePrincipalMayDescribeWithoutCountingARefusal() {
        ListGroupsResponseData answer = edited(check(ApiKeys.LIST_GROUPS, new org.apache.kafka.common.message
                .ListGroupsRequestData(), 4), new ListGroupsResponseData().setGroups(new java.util.ArrayList<>(List.of(
                new ListGroupsResponseData.ListedGroup().setGroupId("alice-g"),
                new ListGroupsResponseData.ListedGroup().setGroupId("bob-g")))));
        assertEquals(List.of("alice-g"), answer.groups().stream().map(ListGroupsResponseData.ListedGroup::groupId).toList());
        assertEquals(java.util.Set.of(), access.refused());
    }

    @Test
    void aShareConsumerNeedsReadOnItsGroupAndDescribeOnWhatItSubscribes() {
        assertEquals(Verdict.ALLOW, check(ApiKeys.SHARE_GROUP_HEARTBEAT, new ShareGroupHeartbeatRequestData()
                .setGroupId("alice-g").setSubscribedTopicNames(List.of("alice-orders")), 1));
        assertEquals(new Verdict.Refuse(Errors.TOPIC_AUTHORIZATION_FAILED), check(ApiKeys.SHARE_GROUP_HEARTBEAT,
                new ShareGroupHeartbeatRequestData().setGroupId("alice-g").setSubscribedTopicNames(List.of("bob-orders")), 1));
        assertEquals(new Verdict.Refuse(Errors.GROUP_AUTHORIZATION_FAILED), check(ApiKeys.SHARE_GROUP_HEARTBEAT,
                new ShareGroupHeartbeatRequestData().setGroupId("bob-g").setSubscribedTopicNames(null), 1));
    }

    private static DescribeConfigsRequestData.DescribeConfigsResource resource(ConfigResource.Type type, String name) {
        return new DescribeConfigsRequestData.DescribeConfigsResource().setResourceType(type.id()).setResourceName(name);
    }

    private static MetadataResponseData metadataOf(String... topics) {
        MetadataResponseData answer = new MetadataResponseData();
        for (String topic : topics) {
            answer.topics().add(new MetadataResponseData.MetadataResponseTopic().setName(topic).setPartitions(
                    new java.util.ArrayList<>(List.of(new MetadataResponseData.MetadataResponsePartition()))));
        }
        return answer;
    }
}
