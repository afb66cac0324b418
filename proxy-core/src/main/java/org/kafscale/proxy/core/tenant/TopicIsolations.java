package org.kafscale.proxy.core.tenant;

import org.kafscale.proxy.core.codec.Entries;
import org.apache.kafka.common.message.CreatePartitionsRequestData;
import org.apache.kafka.common.message.CreatePartitionsResponseData;
import org.apache.kafka.common.message.CreateTopicsRequestData;
import org.apache.kafka.common.message.CreateTopicsResponseData;
import org.apache.kafka.common.message.DeleteRecordsRequestData;
import org.apache.kafka.common.message.DeleteRecordsResponseData;
import org.apache.kafka.common.message.DeleteTopicsRequestData;
import org.apache.kafka.common.message.DeleteTopicsResponseData;
import org.apache.kafka.common.message.DescribeTopicPartitionsRequestData;
import org.apache.kafka.common.message.DescribeTopicPartitionsResponseData;
import org.apache.kafka.common.message.FetchRequestData;
import org.apache.kafka.common.message.FetchResponseData;
import org.apache.kafka.common.message.ListOffsetsRequestData;
import org.apache.kafka.common.message.ListOffsetsResponseData;
import org.apache.kafka.common.message.MetadataRequestData;
import org.apache.kafka.common.message.MetadataResponseData;
import org.apache.kafka.common.message.OffsetForLeaderEpochRequestData;
import org.apache.kafka.common.message.OffsetForLeaderEpochResponseData;
import org.apache.kafka.common.message.ProduceRequestData;
import org.apache.kafka.common.message.ProduceResponseData;

/**
 * The topic APIs in a virtual cluster: every topic name the client sends gets the tenant's topic
 * prefix, every topic id of another tenant's topic becomes one no broker knows
 * ({@link TenantScope#topicId}), and answers give the client's names and ids back. A listing
 * (Metadata or DescribeTopicPartitions of every topic) keeps only the tenant's topics, so the
 * cluster's internal topics and the other tenants' are never seen.
 */
public final class TopicIsolations {

    public static final Isolation METADATA = Isolation.rewritten(MetadataRequestData.class, (q, s) -> {
        if (q.topics() != null) {
            q.topics().forEach(t -> t.setName(s.names().topic(t.name())).setTopicId(s.topicId(t.topicId())));
        }
    }, MetadataResponseData.class, (a, s) -> {
        a.setClusterId(s.clusterId());
        Entries.keepRenamed(a.topics(), t -> t.name() == null || s.names().ownsTopic(t.name()),
                t -> t.setName(s.names().clientTopic(t.name())).setTopicId(s.clientTopicId(t.topicId())));
    }, "topic names prefixed, foreign topic ids unknown; a listing keeps the tenant's topics; its own cluster id");

    public static final Isolation DESCRIBE_TOPIC_PARTITIONS = Isolation.rewritten(
            DescribeTopicPartitionsRequestData.class, (q, s) -> {
                q.topics().forEach(t -> t.setName(s.names().topic(t.name())));
                if (q.cursor() != null) {
                    q.cursor().setTopicName(s.names().topic(q.cursor().topicName()));
                }
            }, DescribeTopicPartitionsResponseData.class, (a, s) -> {
                Entries.keepRenamed(a.topics(), t -> t.name() == null || s.names().ownsTopic(t.name()),
                        t -> t.setName(s.names().clientTopic(t.name())));
                if (a.nextCursor() != null) {
                    // A cursor past the tenant's last topic ends the listing: nothing after it is theirs.
                    if (s.names().ownsTopic(a.nextCursor().topicName())) {
                        a.nextCursor().setTopicName(s.names().clientTopic(a.nextCursor().topicName()));
                    } else {
                        a.setNextCursor(null);
                    }
                }
            }, "topic names and the cursor prefixed; a listing keeps the tenant's topics");

    public static final Isolation PRODUCE = Isolation.rewritten(ProduceRequestData.class, (q, s) -> {
        q.setTransactionalId(s.names().transactionalId(q.transactionalId()));
        Entries.rename(q.topicData(), t -> t.setName(s.names().topic(t.name())).setTopicId(s.topicId(t.topicId())));
    }, ProduceResponseData.class, (a, s) -> Entries.rename(a.responses(), t -> {
        t.setName(s.names().clientTopic(t.name())).setTopicId(s.clientTopicId(t.topicId()));
        t.partitionResponses().forEach(p -> {
            p.setErrorMessage(s.names().scrub(p.errorMessage()));
            p.recordErrors().forEach(e -> e.setBatchIndexErrorMessage(s.names().scrub(e.batchIndexErrorMessage())));
        });
    }), "topic names and the transactional id prefixed, foreign topic ids unknown");

    /** The first Fetch version that names topics by id only. */
    private static final short FETCH_BY_TOPIC_ID = 13;

    public static final Isolation FETCH = Isolation.rewritten(FetchRequestData.class, (q, s) -> {
        q.topics().forEach(t -> t.setTopic(s.names().topic(t.topic())).setTopicId(s.topicId(t.topicId())));
        q.forgottenTopicsData().forEach(t -> t.setTopic(s.names().topic(t.topic())).setTopicId(s.topicId(t.topicId())));
    }, FetchResponseData.class, (a, s) -> a.responses().forEach(t -> t.setTopic(s.names().clientTopic(t.topic()))
            .setTopicId(s.clientTopicId(t.topicId()))),
            // From version 13 a Fetch answer names topics by id only (those of the fetch session too)
            // and carries no error message: unless an id was substituted it holds nothing to map,
            // and its records go to the client as the broker's bytes, as without virtual clusters.
            (q, version, s) -> version < FETCH_BY_TOPIC_ID || s.substitutedTopicIds(),
            "topic names prefixed, foreign topic ids unknown");

    public static final Isolation LIST_OFFSETS = Isolation.rewritten(ListOffsetsRequestData.class,
            (q, s) -> q.topics().forEach(t -> t.setName(s.names().topic(t.name()))),
            ListOffsetsResponseData.class,
            (a, s) -> a.topics().forEach(t -> t.setName(s.names().clientTopic(t.name()))),
            "topic names prefixed");

    public static final Isolation OFFSET_FOR_LEADER_EPOCH = Isolation.rewritten(
            OffsetForLeaderEpochRequestData.class,
            (q, s) -> Entries.rename(q.topics(), t -> t.setTopic(s.names().topic(t.topic()))),
            OffsetForLeaderEpochResponseData.class,
            (a, s) -> Entries.rename(a.topics(), t -> t.setTopic(s.names().clientTopic(t.topic()))),
            "topic names prefixed");

    public static final Isolation CREATE_TOPICS = Isolation.rewritten(CreateTopicsRequestData.class,
            (q, s) -> Entries.rename(q.topics(), t -> t.setName(s.names().topic(t.name()))),
            CreateTopicsResponseData.class,
            (a, s) -> Entries.rename(a.topics(), t -> t.setName(s.names().clientTopic(t.name()))
                    .setErrorMessage(s.names().scrub(t.errorMessage()))),
            "topic names prefixed: a tenant creates its topics under its prefix");

    public static final Isolation DELETE_TOPICS = Isolation.rewritten(DeleteTopicsRequestData.class, (q, s) -> {
        q.topicNames().replaceAll(s.names()::topic);
        q.topics().forEach(t -> t.setName(s.names().topic(t.name())).setTopicId(s.topicId(t.topicId())));
    }, DeleteTopicsResponseData.class, (a, s) -> Entries.rename(a.responses(), t ->
            t.setName(s.names().clientTopic(t.name())).setTopicId(s.clientTopicId(t.topicId()))
                    .setErrorMessage(s.names().scrub(t.errorMessage()))),
            "topic names prefixed, foreign topic ids unknown");

    public static final Isolation CREATE_PARTITIONS = Isolation.rewritten(CreatePartitionsRequestData.class,
            (q, s) -> Entries.rename(q.topics(), t -> t.setName(s.names().topic(t.name()))),
            CreatePartitionsResponseData.class,
            (a, s) -> a.results().forEach(t -> t.setName(s.names().clientTopic(t.name()))
                    .setErrorMessage(s.names().scrub(t.errorMessage()))),
            "topic names prefixed");

    public static final Isolation DELETE_RECORDS = Isolation.rewritten(DeleteRecordsRequestData.class,
            (q, s) -> q.topics().forEach(t -> t.setName(s.names().topic(t.name()))),
            DeleteRecordsResponseData.class,
            (a, s) -> Entries.rename(a.topics(), t -> t.setName(s.names().clientTopic(t.name()))),
            "topic names prefixed");

    private TopicIsolations() {
    }
}
