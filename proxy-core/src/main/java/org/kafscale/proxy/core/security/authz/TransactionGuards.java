package org.kafscale.proxy.core.security.authz;

import static org.apache.kafka.common.protocol.Errors.TRANSACTIONAL_ID_AUTHORIZATION_FAILED;

import org.apache.kafka.common.acl.AclOperation;
import org.apache.kafka.common.message.AddOffsetsToTxnRequestData;
import org.apache.kafka.common.message.AddPartitionsToTxnRequestData;
import org.apache.kafka.common.message.AddPartitionsToTxnResponseData;
import org.apache.kafka.common.message.DescribeTransactionsRequestData;
import org.apache.kafka.common.message.DescribeTransactionsResponseData;
import org.apache.kafka.common.message.EndTxnRequestData;
import org.apache.kafka.common.message.InitProducerIdRequestData;
import org.apache.kafka.common.message.ListTransactionsResponseData;
import org.apache.kafka.common.message.TxnOffsetCommitRequestData;
import org.apache.kafka.common.message.TxnOffsetCommitResponseData;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.protocol.Errors;

/**
 * The transaction APIs, with Kafka's operations: Write on the transactional id for InitProducerId,
 * AddPartitionsToTxn (and Write on each topic), AddOffsetsToTxn and TxnOffsetCommit (and Read on
 * the group, and on each topic committed), EndTxn; Describe for DescribeTransactions, and
 * ListTransactions lists only what the principal may describe. An idempotent producer's
 * InitProducerId needs IdempotentWrite on the cluster or Write on some topic. A refused id gets
 * TRANSACTIONAL_ID_AUTHORIZATION_FAILED.
 */
public final class TransactionGuards {
    private TransactionGuards() {
    }

    public static Verdict initProducerId(InitProducerIdRequestData q, short version, Access a) {
        if (q.transactionalId() != null) {
            return writeOn(q.transactionalId(), a);
        }
        return a.idempotentWrite() ? Verdict.ALLOW : new Verdict.Refuse(Errors.CLUSTER_AUTHORIZATION_FAILED);
    }

    public static Verdict endTxn(EndTxnRequestData q, short version, Access a) {
        return writeOn(q.transactionalId(), a);
    }

    public static Verdict addOffsetsToTxn(AddOffsetsToTxnRequestData q, short version, Access a) {
        if (!a.transactionalId(q.transactionalId(), AclOperation.WRITE)) {
            return new Verdict.Refuse(TRANSACTIONAL_ID_AUTHORIZATION_FAILED);
        }
        return GroupGuards.oneGroup(q.groupId(), AclOperation.READ, a);
    }

    /**
     * AddPartitionsToTxn as clients send it (up to v3): with a topic refused nothing is added, the
     * refused partitions answered TOPIC_AUTHORIZATION_FAILED and the rest OPERATION_NOT_ATTEMPTED,
     * as Kafka does. From v4 only brokers send it (verification batches): ClusterAction.
     */
    public static Verdict addPartitionsToTxn(AddPartitionsToTxnRequestData q, short version, Access a) {
        if (version >= 4) {
            return a.cluster(AclOperation.CLUSTER_ACTION) ? Verdict.ALLOW
                    : new Verdict.Refuse(Errors.CLUSTER_AUTHORIZATION_FAILED);
        }
        if (!a.transactionalId(q.v3AndBelowTransactionalId(), AclOperation.WRITE)) {
            return new Verdict.Refuse(TRANSACTIONAL_ID_AUTHORIZATION_FAILED);
        }
        boolean anyRefused = false;
        var results = new AddPartitionsToTxnResponseData.AddPartitionsToTxnTopicResultCollection();
        for (AddPartitionsToTxnRequestData.AddPartitionsToTxnTopic t : q.v3AndBelowTopics()) {
            Errors error = TopicGuards.topicError(a, t.name(), null, AclOperation.WRITE);
            anyRefused |= error != Errors.NONE;
            var partitions = new AddPartitionsToTxnResponseData.AddPartitionsToTxnPartitionResultCollection();
            // Nothing is added when a topic is refused: the allowed partitions are not attempted.
            Errors partitionError = error == Errors.NONE ? Errors.OPERATION_NOT_ATTEMPTED : error;
            t.partitions().forEach(p -> partitions.add(new AddPartitionsToTxnResponseData.AddPartitionsToTxnPartitionResult()
                    .setPartitionIndex(p).setPartitionErrorCode(partitionError.code())));
            results.add(new AddPartitionsToTxnResponseData.AddPartitionsToTxnTopicResult().setName(t.name())
                    .setResultsByPartition(partitions));
        }
        return anyRefused ? new Verdict.Answer(new AddPartitionsToTxnResponseData().setResultsByTopicV3AndBelow(results))
                : Verdict.ALLOW;
    }

    public static Verdict txnOffsetCommit(TxnOffsetCommitRequestData q, short version, Access a) {
        if (!a.transactionalId(q.transactionalId(), AclOperation.WRITE)) {
            return new Verdict.Refuse(TRANSACTIONAL_ID_AUTHORIZATION_FAILED);
        }
        if (!a.group(q.groupId(), AclOperation.READ)) {
            return new Verdict.Refuse(Errors.GROUP_AUTHORIZATION_FAILED);
        }
        var refused = Refusals.takeOut(q.topics(), t -> TopicGuards.topicError(a, t.name(), null, AclOperation.READ));
        if (refused.isEmpty()) {
            return Verdict.ALLOW;
        }
        return Verdict.partly(q.topics().isEmpty(), q, TxnOffsetCommitResponseData::new, answer -> refused.forEach((t, e) ->
                answer.topics().add(new TxnOffsetCommitResponseData.TxnOffsetCommitResponseTopic().setName(t.name())
                        .setPartitions(t.partitions().stream()
                                .map(p -> new TxnOffsetCommitResponseData.TxnOffsetCommitResponsePartition()
                                        .setPartitionIndex(p.partitionIndex()).setErrorCode(e.code())).toList()))));
    }

    public static Verdict describeTransactions(DescribeTransactionsRequestData q, short version, Access a) {
        var refused = Refusals.takeOut(q.transactionalIds(), id -> Refusals.unless(
                a.transactionalId(id, AclOperation.DESCRIBE), TRANSACTIONAL_ID_AUTHORIZATION_FAILED));
        if (refused.isEmpty()) {
            return Verdict.ALLOW;
        }
        return Verdict.partly(q.transactionalIds().isEmpty(), q, DescribeTransactionsResponseData::new,
                answer -> refused.forEach((id, e) -> answer.transactionStates().add(
                        new DescribeTransactionsResponseData.TransactionState().setTransactionalId(id)
                                .setErrorCode(e.code()).setTransactionState("").setProducerId(-1)
                                .setProducerEpoch((short) -1).setTransactionStartTimeMs(-1))));
    }

    /** ListTransactions: only the transactional ids the principal may describe. */
    public static Verdict listTransactions(ApiMessage q, short version, Access a) {
        return Verdict.<ListTransactionsResponseData>editAnswer(answer -> answer.transactionStates()
                .removeIf(t -> !a.quietly().transactionalId(t.transactionalId(), AclOperation.DESCRIBE)));
    }

    private static Verdict writeOn(String transactionalId, Access a) {
        return a.transactionalId(transactionalId, AclOperation.WRITE) ? Verdict.ALLOW
                : new Verdict.Refuse(TRANSACTIONAL_ID_AUTHORIZATION_FAILED);
    }
}
