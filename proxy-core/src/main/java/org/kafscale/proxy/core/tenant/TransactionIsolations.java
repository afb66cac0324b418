package org.kafscale.proxy.core.tenant;

import org.kafscale.proxy.core.codec.Entries;
import org.apache.kafka.common.message.AddOffsetsToTxnRequestData;
import org.apache.kafka.common.message.AddPartitionsToTxnRequestData;
import org.apache.kafka.common.message.AddPartitionsToTxnResponseData;
import org.apache.kafka.common.message.DescribeTransactionsRequestData;
import org.apache.kafka.common.message.DescribeTransactionsResponseData;
import org.apache.kafka.common.message.EndTxnRequestData;
import org.apache.kafka.common.message.InitProducerIdRequestData;
import org.apache.kafka.common.message.ListTransactionsRequestData;
import org.apache.kafka.common.message.ListTransactionsResponseData;
import org.apache.kafka.common.message.TxnOffsetCommitRequestData;
import org.apache.kafka.common.message.TxnOffsetCommitResponseData;

/**
 * How the transaction APIs are kept within a virtual cluster: transactional ids get the tenant's
 * transactional-id prefix, groups and topics theirs, and answers get the client's names back. An
 * idempotent producer's InitProducerId names no transactional id (null): it stays null.
 */
public final class TransactionIsolations {
    private TransactionIsolations() {
    }

    public static final Isolation INIT_PRODUCER_ID = Isolation.requestRewritten(
            InitProducerIdRequestData.class,
            (q, scope) -> q.setTransactionalId(scope.names().transactionalId(q.transactionalId())),
            "transactional id prefixed (none stays none)");

    public static final Isolation ADD_PARTITIONS_TO_TXN = Isolation.rewritten(
            AddPartitionsToTxnRequestData.class, (q, scope) -> {
                TenantNames names = scope.names();
                q.setV3AndBelowTransactionalId(names.transactionalId(q.v3AndBelowTransactionalId()));
                Entries.rename(q.v3AndBelowTopics(), t -> t.setName(names.topic(t.name())));
                Entries.rename(q.transactions(), x -> {
                    x.setTransactionalId(names.transactionalId(x.transactionalId()));
                    Entries.rename(x.topics(), t -> t.setName(names.topic(t.name())));
                });
            },
            AddPartitionsToTxnResponseData.class, (a, scope) -> {
                TenantNames names = scope.names();
                Entries.rename(a.resultsByTopicV3AndBelow(), t -> t.setName(names.clientTopic(t.name())));
                Entries.rename(a.resultsByTransaction(), x -> {
                    x.setTransactionalId(names.clientTransactionalId(x.transactionalId()));
                    Entries.rename(x.topicResults(), t -> t.setName(names.clientTopic(t.name())));
                });
            },
            "transactional ids and topic names prefixed (v0-3 and v4+ shapes); answer's back");

    public static final Isolation ADD_OFFSETS_TO_TXN = Isolation.requestRewritten(
            AddOffsetsToTxnRequestData.class, (q, scope) -> q
                    .setTransactionalId(scope.names().transactionalId(q.transactionalId()))
                    .setGroupId(scope.names().group(q.groupId())),
            "transactional id and group id prefixed");

    public static final Isolation END_TXN = Isolation.requestRewritten(
            EndTxnRequestData.class,
            (q, scope) -> q.setTransactionalId(scope.names().transactionalId(q.transactionalId())),
            "transactional id prefixed");

    public static final Isolation TXN_OFFSET_COMMIT = Isolation.rewritten(
            TxnOffsetCommitRequestData.class, (q, scope) -> {
                TenantNames names = scope.names();
                q.setTransactionalId(names.transactionalId(q.transactionalId())).setGroupId(names.group(q.groupId()));
                Entries.rename(q.topics(), t -> t.setName(names.topic(t.name())));
            },
            TxnOffsetCommitResponseData.class, (a, scope) -> Entries.rename(a.topics(),
                    t -> t.setName(scope.names().clientTopic(t.name()))),
            "transactional id, group id and topic names prefixed; answer's topic names back");

    public static final Isolation DESCRIBE_TRANSACTIONS = Isolation.rewritten(
            DescribeTransactionsRequestData.class, (q, scope) -> q.setTransactionalIds(
                    GroupIsolations.mapped(q.transactionalIds(), scope.names()::transactionalId)),
            DescribeTransactionsResponseData.class, (a, scope) -> {
                TenantNames names = scope.names();
                Entries.rename(a.transactionStates(), x -> {
                    x.setTransactionalId(names.clientTransactionalId(x.transactionalId()));
                    Entries.rename(x.topics(), t -> t.setTopic(names.clientTopic(t.topic())));
                });
            },
            "transactional ids prefixed; answer's ids and topic names back");

    public static final Isolation LIST_TRANSACTIONS = Isolation.rewritten(
            ListTransactionsRequestData.class, (q, scope) -> q.setTransactionalIdPattern(
                    scope.names().transactionalIdPattern(q.transactionalIdPattern())),
            ListTransactionsResponseData.class, (a, scope) -> Entries.keepRenamed(a.transactionStates(),
                    x -> scope.names().ownsTransactionalId(x.transactionalId()),
                    x -> x.setTransactionalId(scope.names().clientTransactionalId(x.transactionalId()))),
            "transactional id pattern prefixed; answer keeps only the tenant's transactions, ids back");
}
