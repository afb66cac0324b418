package org.kafscale.proxy.app.e2e;

import static org.kafscale.proxy.app.e2e.ApiTestState.CONSUMER_GROUP;
import static org.kafscale.proxy.app.e2e.ApiTestState.GROUP;
import static org.kafscale.proxy.app.e2e.ApiTestState.MARKER_TOPIC;
import static org.kafscale.proxy.app.e2e.ApiTestState.OPEN_TRANSACTION;
import static org.kafscale.proxy.app.e2e.ApiTestState.SHARE_GROUP;
import static org.kafscale.proxy.app.e2e.ApiTestState.STREAMS_GROUP;
import static org.kafscale.proxy.app.e2e.ApiTestState.TOPIC;

import java.util.Collections;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.apache.kafka.common.message.AddOffsetsToTxnRequestData;
import org.apache.kafka.common.message.AddPartitionsToTxnRequestData;
import org.apache.kafka.common.message.AlterClientQuotasRequestData;
import org.apache.kafka.common.message.AlterConfigsRequestData;
import org.apache.kafka.common.message.AlterReplicaLogDirsRequestData;
import org.apache.kafka.common.message.AlterPartitionReassignmentsRequestData;
import org.apache.kafka.common.message.AlterShareGroupOffsetsRequestData;
import org.apache.kafka.common.message.AlterUserScramCredentialsRequestData;
import org.apache.kafka.common.message.ApiVersionsRequestData;
import org.apache.kafka.common.message.ConsumerGroupDescribeRequestData;
import org.apache.kafka.common.message.ConsumerGroupHeartbeatRequestData;
import org.apache.kafka.common.message.CreateAclsRequestData;
import org.apache.kafka.common.message.CreatePartitionsRequestData;
import org.apache.kafka.common.message.CreateTopicsRequestData;
import org.apache.kafka.common.message.DeleteAclsRequestData;
import org.apache.kafka.common.message.DescribeLogDirsRequestData;
import org.apache.kafka.common.message.DeleteGroupsRequestData;
import org.apache.kafka.common.message.DeleteRecordsRequestData;
import org.apache.kafka.common.message.DeleteShareGroupOffsetsRequestData;
import org.apache.kafka.common.message.DeleteTopicsRequestData;
import org.apache.kafka.common.message.DescribeAclsRequestData;
import org.apache.kafka.common.message.DescribeClientQuotasRequestData;
import org.apache.kafka.common.message.DescribeClusterRequestData;
import org.apache.kafka.common.message.DescribeConfigsRequestData;
import org.apache.kafka.common.message.DescribeGroupsRequestData;
import org.apache.kafka.common.message.DescribeProducersRequestData;
import org.apache.kafka.common.message.DescribeQuorumRequestData;
import org.apache.kafka.common.message.DescribeShareGroupOffsetsRequestData;
import org.apache.kafka.common.message.DescribeTopicPartitionsRequestData;
import org.apache.kafka.common.message.DescribeTransactionsRequestData;
import org.apache.kafka.common.message.DescribeUserScramCredentialsRequestData;
import org.apache.kafka.common.message.ElectLeadersRequestData;
import org.apache.kafka.common.message.EndTxnRequestData;
import org.apache.kafka.common.message.FetchRequestData;
import org.apache.kafka.common.message.FindCoordinatorRequestData;
import org.apache.kafka.common.message.HeartbeatRequestData;
import org.apache.kafka.common.message.IncrementalAlterConfigsRequestData;
import org.apache.kafka.common.message.InitProducerIdRequestData;
import org.apache.kafka.common.message.JoinGroupRequestData;
import org.apache.kafka.common.message.LeaveGroupRequestData;
import org.apache.kafka.common.message.ListConfigResourcesRequestData;
import org.apache.kafka.common.message.ListGroupsRequestData;
import org.apache.kafka.common.message.ListOffsetsRequestData;
import org.apache.kafka.common.message.ListPartitionReassignmentsRequestData;
import org.apache.kafka.common.message.ListTransactionsRequestData;
import org.apache.kafka.common.message.MetadataRequestData;
import org.apache.kafka.common.message.OffsetCommitRequestData;
import org.apache.kafka.common.message.OffsetDeleteRequestData;
import org.apache.kafka.common.message.OffsetFetchRequestData;
import org.apache.kafka.common.message.OffsetForLeaderEpochRequestData;
import org.apache.kafka.common.message.ProduceRequestData;
import org.apache.kafka.common.message.ShareAcknowledgeRequestData;
import org.apache.kafka.common.message.ShareFetchRequestData;
import org.apache.kafka.common.message.ShareGroupDescribeRequestData;
import org.apache.kafka.common.message.ShareGroupHeartbeatRequestData;
import org.apache.kafka.common.message.StreamsGroupDescribeRequestData;
import org.apache.kafka.common.message.StreamsGroupHeartbeatRequestData;
import org.apache.kafka.common.message.SyncGroupRequestData;
import org.apache.kafka.common.message.TxnOffsetCommitRequestData;
import org.apache.kafka.common.message.UpdateFeaturesRequestData;
import org.apache.kafka.common.message.WriteTxnMarkersRequestData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.ApiMessage;
import org.kafscale.proxy.core.testing.TestRecords;

/**
 * One representative request per API key, built with kafka-clients' generated classes for any
 * version of that key, with the broker the same request goes to directly for comparison.
 *
 * <p>Each asks about the state {@link ApiTestState} made (a topic with data, a group with a
 * committed offset, an open transaction) so that answers carry real data, not only errors.
 * Requests that change state change nothing that matters: creates and alters are
 * {@code validateOnly} where the API has it, deletes name a resource made for that one call,
 * other writes name ids that do not exist (so the broker refuses them the same way twice).
 *
 * <p>Adding an API to the proxy means adding its representative here; {@code EveryApiIT} fails
 * for an advertised key without one.
 */
final class RepresentativeRequests {
    /** A request body for one version and the broker that answers it directly. */
    record Call(ApiMessage body, DirectTarget direct) {
    }

    @FunctionalInterface
    interface Representative {
        /** Called once per send: the call through the proxy and the direct one each get their own. */
        Call make(short version, ApiTestState state);
    }

    /** A producer id no producer has, for writes that must be refused. */
    private static final long NO_SUCH_PRODUCER = 987_654_321L;
    private static final int TIMEOUT_MS = 10_000;
    private static final int MAX_BYTES = 1 << 20;
    private static final Map<ApiKeys, Representative> BY_KEY = build();

    private RepresentativeRequests() {
    }

    static Optional<Representative> of(ApiKeys key) {
        return Optional.ofNullable(BY_KEY.get(key));
    }

    static Map<ApiKeys, Representative> all() {
        return Collections.unmodifiableMap(BY_KEY);
    }

    private static Map<ApiKeys, Representative> build() {
        Map<ApiKeys, Representative> r = new EnumMap<>(ApiKeys.class);
        // Answered by the proxy itself
        r.put(ApiKeys.API_VERSIONS, (v, s) -> any(new ApiVersionsRequestData()
                .setClientSoftwareName("every-api-it").setClientSoftwareVersion("1.0")));
        r.put(ApiKeys.METADATA, (v, s) -> any(metadata(v, s)));
        r.put(ApiKeys.FIND_COORDINATOR, (v, s) -> any(v >= 4
                ? new FindCoordinatorRequestData().setKeyType((byte) 0).setCoordinatorKeys(List.of(GROUP))
                : new FindCoordinatorRequestData().setKey(GROUP)));
        r.put(ApiKeys.DESCRIBE_CLUSTER, (v, s) -> any(new DescribeClusterRequestData()));
        r.put(ApiKeys.DESCRIBE_TOPIC_PARTITIONS, (v, s) -> any(new DescribeTopicPartitionsRequestData()
                .setTopics(List.of(new DescribeTopicPartitionsRequestData.TopicRequest().setName(TOPIC)))
                .setResponsePartitionLimit(2000)));

        // Partition APIs: one partition, sent directly to its leader
        r.put(ApiKeys.PRODUCE, (v, s) -> leader(produce(v, s)));
        r.put(ApiKeys.FETCH, (v, s) -> leader(fetch(v, s)));
        r.put(ApiKeys.LIST_OFFSETS, (v, s) -> leader(new ListOffsetsRequestData().setReplicaId(-1)
                .setTimeoutMs(v >= 10 ? TIMEOUT_MS : 0)
                .setTopics(List.of(new ListOffsetsRequestData.ListOffsetsTopic().setName(TOPIC)
                        .setPartitions(List.of(new ListOffsetsRequestData.ListOffsetsPartition()
                                .setPartitionIndex(0).setTimestamp(-1L)))))));
        r.put(ApiKeys.OFFSET_FOR_LEADER_EPOCH, (v, s) -> {
            var topics = new OffsetForLeaderEpochRequestData.OffsetForLeaderTopicCollection();
            topics.add(new OffsetForLeaderEpochRequestData.OffsetForLeaderTopic().setTopic(TOPIC)
                    .setPartitions(List.of(new OffsetForLeaderEpochRequestData.OffsetForLeaderPartition()
                            .setPartition(0).setLeaderEpoch(0))));
            return leader(new OffsetForLeaderEpochRequestData().setTopics(topics));
        });
        // Deleting records before offset 0 deletes nothing
        r.put(ApiKeys.DELETE_RECORDS, (v, s) -> leader(new DeleteRecordsRequestData().setTimeoutMs(TIMEOUT_MS)
                .setTopics(List.of(new DeleteRecordsRequestData.DeleteRecordsTopic().setName(TOPIC)
                        .setPartitions(List.of(new DeleteRecordsRequestData.DeleteRecordsPartition()
                                .setPartitionIndex(0).setOffset(0)))))));
        r.put(ApiKeys.DESCRIBE_PRODUCERS, (v, s) -> leader(new DescribeProducersRequestData()
                .setTopics(List.of(new DescribeProducersRequestData.TopicRequest().setName(TOPIC)
                        .setPartitionIndexes(List.of(0))))));
        // An abort marker for a producer that has nothing open on the marker topic: appends a
        // control record there and nowhere else
        r.put(ApiKeys.WRITE_TXN_MARKERS, (v, s) -> new Call(new WriteTxnMarkersRequestData().setMarkers(List.of(
                new WriteTxnMarkersRequestData.WritableTxnMarker().setProducerId(NO_SUCH_PRODUCER).setProducerEpoch((short) 0)
                        .setTransactionResult(false).setCoordinatorEpoch(0)
                        .setTopics(List.of(new WriteTxnMarkersRequestData.WritableTxnMarkerTopic().setName(MARKER_TOPIC)
                                .setPartitionIndexes(List.of(0)))))),
                new DirectTarget.Leader(MARKER_TOPIC, 0)));
        r.put(ApiKeys.SHARE_FETCH, (v, s) -> leader(shareFetch(v, s)));
        r.put(ApiKeys.SHARE_ACKNOWLEDGE, (v, s) -> {
            var partitions = new ShareAcknowledgeRequestData.AcknowledgePartitionCollection();
            partitions.add(new ShareAcknowledgeRequestData.AcknowledgePartition().setPartitionIndex(0)
                    .setAcknowledgementBatches(List.of(new ShareAcknowledgeRequestData.AcknowledgementBatch()
                            .setFirstOffset(0).setLastOffset(0).setAcknowledgeTypes(List.of((byte) 1)))));
            var topics = new ShareAcknowledgeRequestData.AcknowledgeTopicCollection();
            topics.add(new ShareAcknowledgeRequestData.AcknowledgeTopic().setTopicId(s.topicId()).setPartitions(partitions));
            // No share session was opened for this member: refused alike
            return leader(new ShareAcknowledgeRequestData().setGroupId(SHARE_GROUP).setMemberId(ApiTestState.memberId())
                    .setShareSessionEpoch(1).setTopics(topics));
        });

        // Group coordinator APIs
        r.put(ApiKeys.JOIN_GROUP, (v, s) -> {
            // A group of its own each time: a member joined at v0-3 stays until its session ends
            String group = s.freshName("every-api-join");
            var protocols = new JoinGroupRequestData.JoinGroupRequestProtocolCollection();
            protocols.add(new JoinGroupRequestData.JoinGroupRequestProtocol().setName("every-api").setMetadata(new byte[] {1}));
            return group(group, new JoinGroupRequestData().setGroupId(group).setSessionTimeoutMs(10_000)
                    .setRebalanceTimeoutMs(v >= 1 ? 10_000 : -1).setMemberId("").setProtocolType("every-api")
                    .setProtocols(protocols));
        });
        r.put(ApiKeys.SYNC_GROUP, (v, s) -> group(GROUP, new SyncGroupRequestData().setGroupId(GROUP).setGenerationId(1)
                .setMemberId("every-api-nobody").setProtocolType(v >= 5 ? "consumer" : null)
                .setProtocolName(v >= 5 ? "range" : null).setAssignments(List.of())));
        r.put(ApiKeys.HEARTBEAT, (v, s) -> group(GROUP, new HeartbeatRequestData().setGroupId(GROUP).setGenerationId(1)
                .setMemberId("every-api-nobody")));
        r.put(ApiKeys.LEAVE_GROUP, (v, s) -> group(GROUP, v >= 3
                ? new LeaveGroupRequestData().setGroupId(GROUP)
                        .setMembers(List.of(new LeaveGroupRequestData.MemberIdentity().setMemberId("every-api-nobody")))
                : new LeaveGroupRequestData().setGroupId(GROUP).setMemberId("every-api-nobody")));
        r.put(ApiKeys.OFFSET_COMMIT, (v, s) -> group(GROUP, offsetCommit(v, s)));
        r.put(ApiKeys.OFFSET_FETCH, (v, s) -> group(GROUP, offsetFetch(v, s)));
        r.put(ApiKeys.OFFSET_DELETE, (v, s) -> {
            String group = s.freshGroupWithOffset();
            var partitions = List.of(new OffsetDeleteRequestData.OffsetDeleteRequestPartition().setPartitionIndex(0));
            var topics = new OffsetDeleteRequestData.OffsetDeleteRequestTopicCollection();
            topics.add(new OffsetDeleteRequestData.OffsetDeleteRequestTopic().setName(TOPIC).setPartitions(partitions));
            return group(group, new OffsetDeleteRequestData().setGroupId(group).setTopics(topics));
        });
        r.put(ApiKeys.DESCRIBE_GROUPS, (v, s) -> group(GROUP, new DescribeGroupsRequestData().setGroups(List.of(GROUP))));
        r.put(ApiKeys.DELETE_GROUPS, (v, s) -> {
            String group = s.freshGroupWithOffset();
            return group(group, new DeleteGroupsRequestData().setGroupsNames(List.of(group)));
        });
        r.put(ApiKeys.CONSUMER_GROUP_HEARTBEAT, (v, s) -> consumerGroupJoin(s.freshName("every-api-848")));
        r.put(ApiKeys.CONSUMER_GROUP_DESCRIBE, (v, s) -> group(CONSUMER_GROUP,
                new ConsumerGroupDescribeRequestData().setGroupIds(List.of(CONSUMER_GROUP))));
        r.put(ApiKeys.TXN_OFFSET_COMMIT, (v, s) -> group(GROUP, new TxnOffsetCommitRequestData()
                .setTransactionalId("every-api-no-such-txn").setGroupId(GROUP).setProducerId(NO_SUCH_PRODUCER)
                .setProducerEpoch((short) 0)
                .setTopics(List.of(new TxnOffsetCommitRequestData.TxnOffsetCommitRequestTopic().setName(TOPIC)
                        .setPartitions(List.of(new TxnOffsetCommitRequestData.TxnOffsetCommitRequestPartition()
                                .setPartitionIndex(0).setCommittedOffset(1)))))));
        r.put(ApiKeys.SHARE_GROUP_HEARTBEAT, (v, s) -> shareGroupJoin(s.freshName("every-api-share-hb")));
        r.put(ApiKeys.SHARE_GROUP_DESCRIBE, (v, s) -> group(SHARE_GROUP,
                new ShareGroupDescribeRequestData().setGroupIds(List.of(SHARE_GROUP))));
        r.put(ApiKeys.DESCRIBE_SHARE_GROUP_OFFSETS, (v, s) -> group(SHARE_GROUP,
                new DescribeShareGroupOffsetsRequestData().setGroups(List.of(
                        new DescribeShareGroupOffsetsRequestData.DescribeShareGroupOffsetsRequestGroup()
                                .setGroupId(SHARE_GROUP).setTopics(null)))));
        r.put(ApiKeys.ALTER_SHARE_GROUP_OFFSETS, (v, s) -> {
            String group = s.freshName("every-api-share-alter");
            var topics = new AlterShareGroupOffsetsRequestData.AlterShareGroupOffsetsRequestTopicCollection();
            topics.add(new AlterShareGroupOffsetsRequestData.AlterShareGroupOffsetsRequestTopic().setTopicName(TOPIC)
                    .setPartitions(List.of(new AlterShareGroupOffsetsRequestData.AlterShareGroupOffsetsRequestPartition()
                            .setPartitionIndex(0).setStartOffset(0))));
            return group(group, new AlterShareGroupOffsetsRequestData().setGroupId(group).setTopics(topics));
        });
        r.put(ApiKeys.DELETE_SHARE_GROUP_OFFSETS, (v, s) -> {
            String group = s.freshName("every-api-share-delete");
            return group(group, new DeleteShareGroupOffsetsRequestData().setGroupId(group).setTopics(List.of(
                    new DeleteShareGroupOffsetsRequestData.DeleteShareGroupOffsetsRequestTopic().setTopicName(TOPIC))));
        });
        r.put(ApiKeys.STREAMS_GROUP_HEARTBEAT, (v, s) -> streamsGroupJoin(s.freshName("every-api-streams")));
        r.put(ApiKeys.STREAMS_GROUP_DESCRIBE, (v, s) -> group(STREAMS_GROUP,
                new StreamsGroupDescribeRequestData().setGroupIds(List.of(STREAMS_GROUP))));

        // Transaction coordinator APIs
        r.put(ApiKeys.INIT_PRODUCER_ID, (v, s) -> txn(ApiTestState.INIT_TRANSACTION, new InitProducerIdRequestData()
                .setTransactionalId(ApiTestState.INIT_TRANSACTION).setTransactionTimeoutMs(60_000)));
        // The open transaction adds a partition it already has: a no-op the coordinator accepts
        r.put(ApiKeys.ADD_PARTITIONS_TO_TXN, (v, s) -> txn(OPEN_TRANSACTION, addPartitions(v, s)));
        r.put(ApiKeys.ADD_OFFSETS_TO_TXN, (v, s) -> txn(OPEN_TRANSACTION, new AddOffsetsToTxnRequestData()
                .setTransactionalId(OPEN_TRANSACTION).setProducerId(s.openProducerId())
                .setProducerEpoch(s.openProducerEpoch()).setGroupId(GROUP)));
        r.put(ApiKeys.END_TXN, (v, s) -> txn("every-api-no-such-txn", new EndTxnRequestData()
                .setTransactionalId("every-api-no-such-txn").setProducerId(NO_SUCH_PRODUCER).setProducerEpoch((short) 0)
                .setCommitted(false)));
        r.put(ApiKeys.DESCRIBE_TRANSACTIONS, (v, s) -> txn(OPEN_TRANSACTION,
                new DescribeTransactionsRequestData().setTransactionalIds(List.of(OPEN_TRANSACTION))));

        // Cluster-wide listings and admin
        r.put(ApiKeys.LIST_GROUPS, (v, s) -> any(new ListGroupsRequestData()));
        r.put(ApiKeys.LIST_TRANSACTIONS, (v, s) -> any(new ListTransactionsRequestData().setDurationFilter(-1)));
        r.put(ApiKeys.CREATE_TOPICS, (v, s) -> {
            var topics = new CreateTopicsRequestData.CreatableTopicCollection();
            topics.add(new CreateTopicsRequestData.CreatableTopic().setName("every-api-never-created")
                    .setNumPartitions(2).setReplicationFactor((short) 3));
            return any(new CreateTopicsRequestData().setTopics(topics).setTimeoutMs(TIMEOUT_MS).setValidateOnly(true));
        });
        r.put(ApiKeys.DELETE_TOPICS, (v, s) -> {
            String topic = s.freshTopic();
            return any(v >= 6
                    ? new DeleteTopicsRequestData().setTimeoutMs(TIMEOUT_MS)
                            .setTopics(List.of(new DeleteTopicsRequestData.DeleteTopicState().setName(topic)))
                    : new DeleteTopicsRequestData().setTimeoutMs(TIMEOUT_MS).setTopicNames(List.of(topic)));
        });
        r.put(ApiKeys.CREATE_PARTITIONS, (v, s) -> {
            var topics = new CreatePartitionsRequestData.CreatePartitionsTopicCollection();
            topics.add(new CreatePartitionsRequestData.CreatePartitionsTopic().setName(TOPIC)
                    .setCount(ApiTestState.PARTITIONS + 1).setAssignments(null));
            return any(new CreatePartitionsRequestData().setTopics(topics).setTimeoutMs(TIMEOUT_MS).setValidateOnly(true));
        });
        // A topic and a broker: the broker resource is answered by the broker it names
        r.put(ApiKeys.DESCRIBE_CONFIGS, (v, s) -> new Call(new DescribeConfigsRequestData().setResources(List.of(
                new DescribeConfigsRequestData.DescribeConfigsResource().setResourceType((byte) 2).setResourceName(TOPIC)
                        .setConfigurationKeys(List.of("retention.ms", "cleanup.policy")),
                new DescribeConfigsRequestData.DescribeConfigsResource().setResourceType((byte) 4).setResourceName("0")
                        .setConfigurationKeys(List.of("log.retention.hours", "num.io.threads")))),
                new DirectTarget.Broker(0)));
        r.put(ApiKeys.ALTER_CONFIGS, (v, s) -> {
            var configs = new AlterConfigsRequestData.AlterableConfigCollection();
            configs.add(new AlterConfigsRequestData.AlterableConfig().setName("retention.ms").setValue("604800000"));
            var resources = new AlterConfigsRequestData.AlterConfigsResourceCollection();
            resources.add(new AlterConfigsRequestData.AlterConfigsResource().setResourceType((byte) 2).setResourceName(TOPIC)
                    .setConfigs(configs));
            return any(new AlterConfigsRequestData().setResources(resources).setValidateOnly(true));
        });
        r.put(ApiKeys.INCREMENTAL_ALTER_CONFIGS, (v, s) -> {
            var configs = new IncrementalAlterConfigsRequestData.AlterableConfigCollection();
            configs.add(new IncrementalAlterConfigsRequestData.AlterableConfig().setName("retention.ms")
                    .setConfigOperation((byte) 0).setValue("604800000"));
            var resources = new IncrementalAlterConfigsRequestData.AlterConfigsResourceCollection();
            resources.add(new IncrementalAlterConfigsRequestData.AlterConfigsResource().setResourceType((byte) 2)
                    .setResourceName(TOPIC).setConfigs(configs));
            return any(new IncrementalAlterConfigsRequestData().setResources(resources).setValidateOnly(true));
        });
        // No authorizer in the test cluster: the ACL APIs answer SECURITY_DISABLED, alike
        r.put(ApiKeys.DESCRIBE_ACLS, (v, s) -> any(new DescribeAclsRequestData().setResourceTypeFilter((byte) 1)
                .setResourceNameFilter(null).setPatternTypeFilter((byte) 1).setPrincipalFilter(null).setHostFilter(null)
                .setOperation((byte) 1).setPermissionType((byte) 1)));
        r.put(ApiKeys.CREATE_ACLS, (v, s) -> any(new CreateAclsRequestData().setCreations(List.of(
                new CreateAclsRequestData.AclCreation().setResourceType((byte) 2).setResourceName(TOPIC)
                        .setResourcePatternType((byte) 3).setPrincipal("User:every-api").setHost("*")
                        .setOperation((byte) 3).setPermissionType((byte) 3)))));
        r.put(ApiKeys.DELETE_ACLS, (v, s) -> any(new DeleteAclsRequestData().setFilters(List.of(
                new DeleteAclsRequestData.DeleteAclsFilter().setResourceTypeFilter((byte) 2).setResourceNameFilter(TOPIC)
                        .setPatternTypeFilter((byte) 3).setPrincipalFilter("User:every-api").setHostFilter("*")
                        .setOperation((byte) 3).setPermissionType((byte) 3)))));
        // About one broker's disks: served only on a broker's own port (advertise mode ports), to that broker
        r.put(ApiKeys.DESCRIBE_LOG_DIRS, (v, s) -> new Call(new DescribeLogDirsRequestData().setTopics(null),
                new DirectTarget.Broker(0)));
        r.put(ApiKeys.ALTER_REPLICA_LOG_DIRS, (v, s) -> new Call(new AlterReplicaLogDirsRequestData(),
                new DirectTarget.Broker(0)));
        r.put(ApiKeys.DESCRIBE_CLIENT_QUOTAS, (v, s) -> any(new DescribeClientQuotasRequestData()
                .setComponents(List.of()).setStrict(false)));
        r.put(ApiKeys.ALTER_CLIENT_QUOTAS, (v, s) -> any(new AlterClientQuotasRequestData().setValidateOnly(true)
                .setEntries(List.of(new AlterClientQuotasRequestData.EntryData()
                        .setEntity(List.of(new AlterClientQuotasRequestData.EntityData().setEntityType("client-id")
                                .setEntityName("every-api")))
                        .setOps(List.of(new AlterClientQuotasRequestData.OpData().setKey("consumer_byte_rate")
                                .setValue(1_048_576).setRemove(false)))))));
        r.put(ApiKeys.DESCRIBE_USER_SCRAM_CREDENTIALS, (v, s) -> any(new DescribeUserScramCredentialsRequestData()
                .setUsers(List.of(new DescribeUserScramCredentialsRequestData.UserName().setName("every-api-user")))));
        // Deleting a credential the user does not have: refused, nothing changes
        r.put(ApiKeys.ALTER_USER_SCRAM_CREDENTIALS, (v, s) -> any(new AlterUserScramCredentialsRequestData()
                .setDeletions(List.of(new AlterUserScramCredentialsRequestData.ScramCredentialDeletion()
                        .setName("every-api-user").setMechanism((byte) 1)))
                .setUpsertions(List.of())));
        r.put(ApiKeys.UPDATE_FEATURES, (v, s) -> any(updateFeatures(v)));
        r.put(ApiKeys.DESCRIBE_QUORUM, (v, s) -> any(new DescribeQuorumRequestData().setTopics(List.of(
                new DescribeQuorumRequestData.TopicData().setTopicName("__cluster_metadata").setPartitions(List.of(
                        new DescribeQuorumRequestData.PartitionData().setPartitionIndex(0)))))));
        r.put(ApiKeys.LIST_CONFIG_RESOURCES, (v, s) -> any(new ListConfigResourcesRequestData()));
        // The preferred leader already leads: ELECTION_NOT_NEEDED, nothing moves
        r.put(ApiKeys.ELECT_LEADERS, (v, s) -> {
            var partitions = new ElectLeadersRequestData.TopicPartitionsCollection();
            partitions.add(new ElectLeadersRequestData.TopicPartitions().setTopic(TOPIC).setPartitions(List.of(0)));
            return any(new ElectLeadersRequestData().setElectionType((byte) 0).setTopicPartitions(partitions)
                    .setTimeoutMs(TIMEOUT_MS));
        });
        // Cancelling a reassignment that is not in progress: refused, nothing moves
        r.put(ApiKeys.ALTER_PARTITION_REASSIGNMENTS, (v, s) -> any(new AlterPartitionReassignmentsRequestData()
                .setTimeoutMs(TIMEOUT_MS).setTopics(List.of(new AlterPartitionReassignmentsRequestData.ReassignableTopic()
                        .setName(TOPIC).setPartitions(List.of(
                                new AlterPartitionReassignmentsRequestData.ReassignablePartition().setPartitionIndex(0)
                                        .setReplicas(null)))))));
        r.put(ApiKeys.LIST_PARTITION_REASSIGNMENTS, (v, s) -> any(new ListPartitionReassignmentsRequestData()
                .setTimeoutMs(TIMEOUT_MS).setTopics(null)));
        return r;
    }

    private static MetadataRequestData metadata(short v, ApiTestState s) {
        var topic = new MetadataRequestData.MetadataRequestTopic();
        if (v >= 12) {
            // As Kafka's admin client asks by id (brokers take ids from v12): the name is left at
            // its default, which a broker ignores when an id is set
            topic.setTopicId(s.topicId());
        } else {
            topic.setName(TOPIC);
        }
        var request = new MetadataRequestData().setTopics(List.of(topic));
        if (v >= 4) {
            request.setAllowAutoTopicCreation(false);
        }
        return request;
    }

    private static ProduceRequestData produce(short v, ApiTestState s) {
        var partition = new ProduceRequestData.PartitionProduceData().setIndex(0)
                .setRecords(TestRecords.plain("every-api-v" + v));
        var topic = new ProduceRequestData.TopicProduceData().setPartitionData(List.of(partition));
        if (v >= 13) {
            topic.setTopicId(s.topicId());
        } else {
            topic.setName(TOPIC);
        }
        var topics = new ProduceRequestData.TopicProduceDataCollection();
        topics.add(topic);
        return new ProduceRequestData().setAcks((short) 1).setTimeoutMs(TIMEOUT_MS).setTopicData(topics);
    }

    private static FetchRequestData fetch(short v, ApiTestState s) {
        var partition = new FetchRequestData.FetchPartition().setPartition(0).setFetchOffset(0)
                .setPartitionMaxBytes(MAX_BYTES).setLogStartOffset(-1);
        var topic = new FetchRequestData.FetchTopic().setPartitions(List.of(partition));
        if (v >= 13) {
            topic.setTopicId(s.topicId());
        } else {
            topic.setTopic(TOPIC);
        }
        var request = new FetchRequestData().setMaxWaitMs(10).setMinBytes(1).setMaxBytes(MAX_BYTES)
                .setSessionId(0).setSessionEpoch(-1).setTopics(List.of(topic)).setForgottenTopicsData(List.of());
        if (v <= 14) {
            request.setReplicaId(-1);
        }
        return request;
    }

    private static ShareFetchRequestData shareFetch(short v, ApiTestState s) {
        var partitions = new ShareFetchRequestData.FetchPartitionCollection();
        var partition = new ShareFetchRequestData.FetchPartition().setPartitionIndex(0).setAcknowledgementBatches(List.of());
        if (v == 0) {
            partition.setPartitionMaxBytes(MAX_BYTES);
        }
        partitions.add(partition);
        var topics = new ShareFetchRequestData.FetchTopicCollection();
        topics.add(new ShareFetchRequestData.FetchTopic().setTopicId(s.topicId()).setPartitions(partitions));
        var request = new ShareFetchRequestData().setGroupId(SHARE_GROUP).setMemberId(ApiTestState.memberId())
                .setShareSessionEpoch(0).setMaxWaitMs(10).setMinBytes(1).setMaxBytes(MAX_BYTES).setTopics(topics)
                .setForgottenTopicsData(List.of());
        if (v >= 1) {
            request.setMaxRecords(100).setBatchSize(100);
        }
        return request;
    }

    private static OffsetCommitRequestData offsetCommit(short v, ApiTestState s) {
        var partition = new OffsetCommitRequestData.OffsetCommitRequestPartition().setPartitionIndex(0)
                .setCommittedOffset(5).setCommittedMetadata("");
        var topic = new OffsetCommitRequestData.OffsetCommitRequestTopic().setPartitions(List.of(partition));
        if (v >= 10) {
            topic.setTopicId(s.topicId());
        } else {
            topic.setName(TOPIC);
        }
        return new OffsetCommitRequestData().setGroupId(GROUP).setGenerationIdOrMemberEpoch(-1).setMemberId("")
                .setTopics(List.of(topic));
    }

    private static OffsetFetchRequestData offsetFetch(short v, ApiTestState s) {
        if (v < 8) {
            return new OffsetFetchRequestData().setGroupId(GROUP).setTopics(List.of(
                    new OffsetFetchRequestData.OffsetFetchRequestTopic().setName(TOPIC).setPartitionIndexes(List.of(0, 1))));
        }
        var topic = new OffsetFetchRequestData.OffsetFetchRequestTopics().setPartitionIndexes(List.of(0, 1));
        if (v >= 10) {
            topic.setTopicId(s.topicId());
        } else {
            topic.setName(TOPIC);
        }
        return new OffsetFetchRequestData().setGroups(List.of(new OffsetFetchRequestData.OffsetFetchRequestGroup()
                .setGroupId(GROUP).setTopics(List.of(topic))));
    }

    private static AddPartitionsToTxnRequestData addPartitions(short v, ApiTestState s) {
        var topics = new AddPartitionsToTxnRequestData.AddPartitionsToTxnTopicCollection();
        topics.add(new AddPartitionsToTxnRequestData.AddPartitionsToTxnTopic().setName(TOPIC).setPartitions(List.of(1)));
        if (v <= 3) {
            return new AddPartitionsToTxnRequestData().setV3AndBelowTransactionalId(OPEN_TRANSACTION)
                    .setV3AndBelowProducerId(s.openProducerId()).setV3AndBelowProducerEpoch(s.openProducerEpoch())
                    .setV3AndBelowTopics(topics);
        }
        // v4+ is the brokers' own batched form; verifyOnly asks without adding
        var transactions = new AddPartitionsToTxnRequestData.AddPartitionsToTxnTransactionCollection();
        transactions.add(new AddPartitionsToTxnRequestData.AddPartitionsToTxnTransaction().setTransactionalId(OPEN_TRANSACTION)
                .setProducerId(s.openProducerId()).setProducerEpoch(s.openProducerEpoch()).setVerifyOnly(true)
                .setTopics(topics));
        return new AddPartitionsToTxnRequestData().setTransactions(transactions);
    }

    /** A new member's first heartbeat (KIP-848), which creates {@code group} if needed. */
    static Call consumerGroupJoin(String group) {
        return group(group, new ConsumerGroupHeartbeatRequestData().setGroupId(group).setMemberId(ApiTestState.memberId())
                .setMemberEpoch(0).setRebalanceTimeoutMs(30_000).setSubscribedTopicNames(List.of(TOPIC))
                .setTopicPartitions(List.of()));
    }

    /** A new share-group member's first heartbeat (KIP-932). */
    static Call shareGroupJoin(String group) {
        return group(group, new ShareGroupHeartbeatRequestData().setGroupId(group).setMemberId(ApiTestState.memberId())
                .setMemberEpoch(0).setSubscribedTopicNames(List.of(TOPIC)));
    }

    /** A new streams-group member's first heartbeat (KIP-1071), with a one-subtopology topology reading the topic. */
    static Call streamsGroupJoin(String group) {
        var subtopology = new StreamsGroupHeartbeatRequestData.Subtopology().setSubtopologyId("0")
                .setSourceTopics(List.of(TOPIC)).setRepartitionSinkTopics(List.of()).setStateChangelogTopics(List.of())
                .setRepartitionSourceTopics(List.of()).setCopartitionGroups(List.of());
        return group(group, new StreamsGroupHeartbeatRequestData().setGroupId(group).setMemberId(ApiTestState.memberId())
                .setMemberEpoch(0).setEndpointInformationEpoch(0).setRebalanceTimeoutMs(30_000)
                .setTopology(new StreamsGroupHeartbeatRequestData.Topology().setEpoch(0).setSubtopologies(List.of(subtopology)))
                .setActiveTasks(List.of()).setStandbyTasks(List.of()).setWarmupTasks(List.of()).setProcessId("every-api")
                .setClientTags(List.of()));
    }

    private static UpdateFeaturesRequestData updateFeatures(short v) {
        // Validate-only from v1; at v0 an upgrade to the level already finalized changes nothing
        var updates = new UpdateFeaturesRequestData.FeatureUpdateKeyCollection();
        var update = new UpdateFeaturesRequestData.FeatureUpdateKey().setFeature("group.version").setMaxVersionLevel((short) 1);
        if (v >= 1) {
            update.setUpgradeType((byte) 1);
        }
        updates.add(update);
        var request = new UpdateFeaturesRequestData().setTimeoutMs(TIMEOUT_MS).setFeatureUpdates(updates);
        if (v >= 1) {
            request.setValidateOnly(true);
        }
        return request;
    }

    private static Call any(ApiMessage body) {
        return new Call(body, DirectTarget.anyBroker());
    }

    private static Call leader(ApiMessage body) {
        return new Call(body, new DirectTarget.Leader(TOPIC, 0));
    }

    private static Call group(String group, ApiMessage body) {
        return new Call(body, new DirectTarget.GroupCoordinator(group));
    }

    private static Call txn(String transactionalId, ApiMessage body) {
        return new Call(body, new DirectTarget.TransactionCoordinator(transactionalId));
    }
}
