package org.kafscale.proxy.core.security.authz;

import static org.apache.kafka.common.protocol.Errors.TOPIC_AUTHORIZATION_FAILED;

import java.util.HashSet;
import java.util.Iterator;
import java.util.List;
import java.util.Set;
import java.util.function.Consumer;
import java.util.function.Function;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.acl.AclOperation;
import org.apache.kafka.common.message.CreatePartitionsRequestData;
import org.apache.kafka.common.message.CreatePartitionsResponseData;
import org.apache.kafka.common.message.CreateTopicsRequestData;
import org.apache.kafka.common.message.CreateTopicsResponseData;
import org.apache.kafka.common.message.DeleteRecordsRequestData;
import org.apache.kafka.common.message.DeleteRecordsResponseData;
import org.apache.kafka.common.message.DeleteTopicsRequestData;
import org.apache.kafka.common.message.DeleteTopicsResponseData;
import org.apache.kafka.common.message.DescribeProducersRequestData;
import org.apache.kafka.common.message.DescribeProducersResponseData;
import org.apache.kafka.common.message.DescribeTopicPartitionsRequestData;
import org.apache.kafka.common.message.DescribeTopicPartitionsResponseData;
import org.apache.kafka.common.message.DescribeTopicPartitionsResponseData.DescribeTopicPartitionsResponseTopic;
import org.apache.kafka.common.message.FetchRequestData;
import org.apache.kafka.common.message.FetchResponseData;
import org.apache.kafka.common.message.ListOffsetsRequestData;
import org.apache.kafka.common.message.ListOffsetsResponseData;
import org.apache.kafka.common.message.MetadataRequestData;
import org.apache.kafka.common.message.MetadataResponseData;
import org.apache.kafka.common.message.MetadataResponseData.MetadataResponseTopic;
import org.apache.kafka.common.message.OffsetForLeaderEpochRequestData;
import org.apache.kafka.common.message.OffsetForLeaderEpochResponseData;
import org.apache.kafka.common.message.ProduceRequestData;
import org.apache.kafka.common.message.ProduceResponseData;
import org.apache.kafka.common.protocol.Errors;
import org.kafscale.proxy.core.codec.RecordSets;

/**
 * The topic APIs, with Kafka's operations and errors: Produce (Write; the transactional id's Write
 * first), Fetch (Read), ListOffsets and OffsetForLeaderEpoch (Describe), DeleteRecords (Delete),
 * DescribeProducers (Read), CreateTopics (Create on the cluster or the topic), DeleteTopics (Delete),
 * CreatePartitions (Alter); Metadata and DescribeTopicPartitions (Describe: a listing leaves out
 * what may not be described, a topic asked for by name gets TOPIC_AUTHORIZATION_FAILED).
 *
 * <p>A refused topic gets TOPIC_AUTHORIZATION_FAILED on each of its partitions; the others go on.
 */
public final class TopicGuards {
    private TopicGuards() {
    }

    public static Verdict produce(ProduceRequestData q, short version, Access a) {
        if (q.transactionalId() != null && !a.transactionalId(q.transactionalId(), AclOperation.WRITE)) {
            return q.acks() == 0 ? new Verdict.Close("acks=0 Produce refused: Write on the transactional id")
                    : new Verdict.Refuse(Errors.TRANSACTIONAL_ID_AUTHORIZATION_FAILED);
        }
        var refused = Refusals.takeOut(q.topicData(), t -> topicError(a, t.name(), t.topicId(), AclOperation.WRITE));
        if (refused.isEmpty()) {
            return Verdict.ALLOW;
        }
        if (q.acks() == 0) {
            return new Verdict.Close("acks=0 Produce refused: Write on topic(s) " + refused.keySet().stream()
                    .map(t -> t.name() != null && !t.name().isEmpty() ? t.name() : t.topicId().toString()).toList());
        }
        return Verdict.partly(q.topicData().isEmpty(), q, ProduceResponseData::new, answer -> refused.forEach((t, e) ->
                answer.responses().add(new ProduceResponseData.TopicProduceResponse().setName(t.name())
                        .setTopicId(t.topicId()).setPartitionResponses(t.partitionData().stream()
                                .map(p -> new ProduceResponseData.PartitionProduceResponse().setIndex(p.index())
                                        .setErrorCode(e.code()).setBaseOffset(-1).setLogAppendTimeMs(-1)
                                        .setLogStartOffset(-1)).toList()))));
    }

    public static Verdict fetch(FetchRequestData q, short version, Access a) {
        var refused = Refusals.takeOut(q.topics(), t -> topicError(a, t.topic(), t.topicId(), AclOperation.READ));
        if (refused.isEmpty()) {
            return Verdict.ALLOW;
        }
        return Verdict.partly(q.topics().isEmpty(), q, FetchResponseData::new, answer -> refused.forEach((t, e) ->
                answer.responses().add(new FetchResponseData.FetchableTopicResponse().setTopic(t.topic())
                        .setTopicId(t.topicId()).setPartitions(t.partitions().stream()
                                .map(p -> new FetchResponseData.PartitionData().setPartitionIndex(p.partition())
                                        .setErrorCode(e.code()).setHighWatermark(-1).setLastStableOffset(-1)
                                        .setLogStartOffset(-1).setAbortedTransactions(null)
                                        .setRecords(RecordSets.empty())).toList()))));
    }

    public static Verdict listOffsets(ListOffsetsRequestData q, short version, Access a) {
        var refused = Refusals.takeOut(q.topics(), t -> topicError(a, t.name(), null, AclOperation.DESCRIBE));
        if (refused.isEmpty()) {
            return Verdict.ALLOW;
        }
        return Verdict.partly(q.topics().isEmpty(), q, ListOffsetsResponseData::new, answer -> refused.forEach((t, e) ->
                answer.topics().add(new ListOffsetsResponseData.ListOffsetsTopicResponse().setName(t.name())
                        .setPartitions(t.partitions().stream()
                                .map(p -> new ListOffsetsResponseData.ListOffsetsPartitionResponse()
                                        .setPartitionIndex(p.partitionIndex()).setErrorCode(e.code())
                                        .setTimestamp(-1).setOffset(-1).setLeaderEpoch(-1)).toList()))));
    }

    public static Verdict offsetForLeaderEpoch(OffsetForLeaderEpochRequestData q, short version, Access a) {
        var refused = Refusals.takeOut(q.topics(), t -> topicError(a, t.topic(), null, AclOperation.DESCRIBE));
        if (refused.isEmpty()) {
            return Verdict.ALLOW;
        }
        return Verdict.partly(q.topics().isEmpty(), q, OffsetForLeaderEpochResponseData::new,
                answer -> refused.forEach((t, e) -> answer.topics().add(
                        new OffsetForLeaderEpochResponseData.OffsetForLeaderTopicResult().setTopic(t.topic())
                                .setPartitions(t.partitions().stream()
                                        .map(p -> new OffsetForLeaderEpochResponseData.EpochEndOffset()
                                                .setPartition(p.partition()).setErrorCode(e.code())
                                                .setLeaderEpoch(-1).setEndOffset(-1)).toList()))));
    }

    public static Verdict deleteRecords(DeleteRecordsRequestData q, short version, Access a) {
        var refused = Refusals.takeOut(q.topics(), t -> topicError(a, t.name(), null, AclOperation.DELETE));
        if (refused.isEmpty()) {
            return Verdict.ALLOW;
        }
        return Verdict.partly(q.topics().isEmpty(), q, DeleteRecordsResponseData::new, answer -> refused.forEach((t, e) -> {
            var partitions = new DeleteRecordsResponseData.DeleteRecordsPartitionResultCollection();
            t.partitions().forEach(p -> partitions.add(new DeleteRecordsResponseData.DeleteRecordsPartitionResult()
                    .setPartitionIndex(p.partitionIndex()).setLowWatermark(-1).setErrorCode(e.code())));
            answer.topics().add(new DeleteRecordsResponseData.DeleteRecordsTopicResult().setName(t.name())
                    .setPartitions(partitions));
        }));
    }

    public static Verdict describeProducers(DescribeProducersRequestData q, short version, Access a) {
        var refused = Refusals.takeOut(q.topics(), t -> topicError(a, t.name(), null, AclOperation.READ));
        if (refused.isEmpty()) {
            return Verdict.ALLOW;
        }
        return Verdict.partly(q.topics().isEmpty(), q, DescribeProducersResponseData::new,
                answer -> refused.forEach((t, e) -> answer.topics().add(new DescribeProducersResponseData.TopicResponse()
                        .setName(t.name()).setPartitions(t.partitionIndexes().stream()
                                .map(p -> new DescribeProducersResponseData.PartitionResponse().setPartitionIndex(p)
                                        .setErrorCode(e.code()).setErrorMessage(e.message())).toList()))));
    }

    public static Verdict createTopics(CreateTopicsRequestData q, short version, Access a) {
        if (a.cluster(AclOperation.CREATE)) {
            a.forgetRefusals();
            return Verdict.ALLOW;
        }
        a.forgetRefusals();
        var refused = Refusals.takeOut(q.topics(), t -> topicError(a, t.name(), null, AclOperation.CREATE));
        if (refused.isEmpty()) {
            return Verdict.ALLOW;
        }
        return Verdict.partly(q.topics().isEmpty(), q, CreateTopicsResponseData::new, answer -> refused.forEach((t, e) ->
                answer.topics().add(new CreateTopicsResponseData.CreatableTopicResult().setName(t.name())
                        .setErrorCode(e.code()).setErrorMessage(e.message()).setNumPartitions(-1)
                        .setReplicationFactor((short) -1))));
    }

    public static Verdict deleteTopics(DeleteTopicsRequestData q, short version, Access a) {
        var refusedNames = Refusals.takeOut(q.topicNames(), name -> topicError(a, name, null, AclOperation.DELETE));
        var refusedStates = Refusals.takeOut(q.topics(), t -> topicError(a, t.name(), t.topicId(), AclOperation.DELETE));
        if (refusedNames.isEmpty() && refusedStates.isEmpty()) {
            return Verdict.ALLOW;
        }
        return Verdict.partly(q.topicNames().isEmpty() && q.topics().isEmpty(), q, DeleteTopicsResponseData::new,
                answer -> {
                    refusedNames.forEach((name, e) -> answer.responses().add(
                            new DeleteTopicsResponseData.DeletableTopicResult().setName(name).setErrorCode(e.code())
                                    .setErrorMessage(e.message())));
                    refusedStates.forEach((t, e) -> answer.responses().add(
                            new DeleteTopicsResponseData.DeletableTopicResult().setName(t.name())
                                    .setTopicId(t.topicId()).setErrorCode(e.code()).setErrorMessage(e.message())));
                });
    }

    public static Verdict createPartitions(CreatePartitionsRequestData q, short version, Access a) {
        var refused = Refusals.takeOut(q.topics(), t -> topicError(a, t.name(), null, AclOperation.ALTER));
        if (refused.isEmpty()) {
            return Verdict.ALLOW;
        }
        return Verdict.partly(q.topics().isEmpty(), q, CreatePartitionsResponseData::new,
                answer -> refused.forEach((t, e) -> answer.results().add(
                        new CreatePartitionsResponseData.CreatePartitionsTopicResult().setName(t.name())
                                .setErrorCode(e.code()).setErrorMessage(e.message()))));
    }

    /**
     * Metadata: the listing of every topic leaves out those the principal may not describe; a topic
     * asked for gets TOPIC_AUTHORIZATION_FAILED and nothing else. Auto-creation is asked of the
     * broker only when the principal may create every topic named.
     */
    public static Verdict metadata(MetadataRequestData q, short version, Access a) {
        boolean everyTopic = q.topics() == null || (version == 0 && q.topics().isEmpty());
        Set<String> askedByName = new HashSet<>();
        boolean mayCreate = true;
        if (!everyTopic) {
            for (MetadataRequestData.MetadataRequestTopic t : q.topics()) {
                if (t.name() != null) {
                    askedByName.add(t.name());
                    mayCreate &= a.cluster(AclOperation.CREATE) || a.topic(t.name(), AclOperation.CREATE);
                }
            }
            a.forgetRefusals();
        }
        Consumer<MetadataResponseData> edit = answer -> hideUndescribable(answer.topics().iterator(),
                MetadataResponseTopic::name, everyTopic, a, t -> {
                    t.setErrorCode(TOPIC_AUTHORIZATION_FAILED.code()).setPartitions(List.of()).setIsInternal(false)
                            .setTopicAuthorizedOperations(Integer.MIN_VALUE);
                    if (askedByName.contains(t.name())) {
                        t.setTopicId(Uuid.ZERO_UUID);
                    } else {
                        t.setName(null);
                    }
                });
        if (q.allowAutoTopicCreation() && !mayCreate) {
            return Verdict.edit(q.setAllowAutoTopicCreation(false), edit);
        }
        return Verdict.editAnswer(edit);
    }

    /**
     * The one way a topic listing (Metadata, DescribeTopicPartitions) hides what the principal may
     * not describe: a listing of every topic drops such a topic as if it did not exist; a listing
     * that named topics keeps the entry, made a refusal by {@code refuse}, since the client asked
     * for it and waits for an answer about it.
     */
    private static <T> void hideUndescribable(Iterator<T> topics, Function<T, String> name, boolean everyTopic,
                                              Access a, Consumer<T> refuse) {
        while (topics.hasNext()) {
            T t = topics.next();
            String topic = name.apply(t);
            if (topic == null || describable(topic, everyTopic, a)) {
                continue;
            }
            if (everyTopic) {
                topics.remove();
            } else {
                refuse.accept(t);
            }
        }
    }

    /**
     * Whether a listing may show {@code topic}: Describe on it. A listing of every topic hides the
     * others without counting a refusal ({@link Access#quietly()}); one that named the topic refuses it.
     */
    private static boolean describable(String topic, boolean everyTopic, Access a) {
        return everyTopic ? a.quietly().topic(topic, AclOperation.DESCRIBE) : a.topic(topic, AclOperation.DESCRIBE);
    }

    /** DescribeTopicPartitions: as Metadata; an empty topic list asks for every topic. */
    public static Verdict describeTopicPartitions(DescribeTopicPartitionsRequestData q, short version, Access a) {
        boolean everyTopic = q.topics().isEmpty();
        Consumer<DescribeTopicPartitionsResponseData> edit = answer -> hideUndescribable(answer.topics().iterator(),
                DescribeTopicPartitionsResponseTopic::name, everyTopic, a,
                t -> t.setErrorCode(TOPIC_AUTHORIZATION_FAILED.code()).setPartitions(List.of()).setIsInternal(false)
                        .setTopicId(Uuid.ZERO_UUID).setTopicAuthorizedOperations(Integer.MIN_VALUE));
        return Verdict.editAnswer(edit);
    }

    /** NONE when allowed, TOPIC_AUTHORIZATION_FAILED when not, UNKNOWN_TOPIC_ID for an id no topic has. */
    static Errors topicError(Access a, String name, Uuid id, AclOperation operation) {
        if (a.topicName(name, id).isEmpty()) {
            // Named by an id no topic has (a broker answers the same), or by nothing at all.
            return id != null && !Uuid.ZERO_UUID.equals(id) ? Errors.UNKNOWN_TOPIC_ID : TOPIC_AUTHORIZATION_FAILED;
        }
        return Refusals.unless(a.topic(name, id, operation), TOPIC_AUTHORIZATION_FAILED);
    }
}
