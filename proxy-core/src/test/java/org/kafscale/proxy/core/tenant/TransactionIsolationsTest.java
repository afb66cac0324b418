package org.kafscale.proxy.core.tenant;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;

import java.util.ArrayList;
import java.util.List;
import org.apache.kafka.common.message.AddPartitionsToTxnRequestData;
import org.apache.kafka.common.message.AddPartitionsToTxnResponseData;
import org.apache.kafka.common.message.DescribeTransactionsResponseData;
import org.apache.kafka.common.message.InitProducerIdRequestData;
import org.apache.kafka.common.message.ListTransactionsResponseData;
import org.apache.kafka.common.message.TxnOffsetCommitRequestData;
import org.junit.jupiter.api.Test;

class TransactionIsolationsTest {
    private final TenantScope scope = TeamA.scope();

    @Test
    void initProducerIdPrefixesATransactionalIdAndLeavesNoneAsNone() {
        InitProducerIdRequestData transactional = new InitProducerIdRequestData().setTransactionalId("tx-1");
        TransactionIsolations.INIT_PRODUCER_ID.rewriteRequest(transactional, scope);
        assertEquals("a.tx-1", transactional.transactionalId());

        InitProducerIdRequestData idempotent = new InitProducerIdRequestData().setTransactionalId(null);
        TransactionIsolations.INIT_PRODUCER_ID.rewriteRequest(idempotent, scope);
        assertNull(idempotent.transactionalId());
    }

    @Test
    void addPartitionsOfAnOldClientArePrefixedAndTheirResultsFoundByClientNames() {
        AddPartitionsToTxnRequestData.AddPartitionsToTxnTopicCollection topics =
                new AddPartitionsToTxnRequestData.AddPartitionsToTxnTopicCollection();
        topics.add(new AddPartitionsToTxnRequestData.AddPartitionsToTxnTopic().setName("orders"));
        AddPartitionsToTxnRequestData request = new AddPartitionsToTxnRequestData()
                .setV3AndBelowTransactionalId("tx-1").setV3AndBelowTopics(topics);
        TransactionIsolations.ADD_PARTITIONS_TO_TXN.rewriteRequest(request, scope);
        assertEquals("a.tx-1", request.v3AndBelowTransactionalId());
        assertNotNull(request.v3AndBelowTopics().find("a.orders"));

        AddPartitionsToTxnResponseData.AddPartitionsToTxnTopicResultCollection results =
                new AddPartitionsToTxnResponseData.AddPartitionsToTxnTopicResultCollection();
        results.add(new AddPartitionsToTxnResponseData.AddPartitionsToTxnTopicResult().setName("a.orders"));
        AddPartitionsToTxnResponseData answer = new AddPartitionsToTxnResponseData().setResultsByTopicV3AndBelow(results);
        TransactionIsolations.ADD_PARTITIONS_TO_TXN.rewriteAnswer(answer, scope);
        assertNotNull(answer.resultsByTopicV3AndBelow().find("orders"));
    }

    @Test
    void addPartitionsOfANewClientArePrefixedPerTransaction() {
        AddPartitionsToTxnRequestData.AddPartitionsToTxnTopicCollection topics =
                new AddPartitionsToTxnRequestData.AddPartitionsToTxnTopicCollection();
        topics.add(new AddPartitionsToTxnRequestData.AddPartitionsToTxnTopic().setName("orders"));
        AddPartitionsToTxnRequestData.AddPartitionsToTxnTransactionCollection transactions =
                new AddPartitionsToTxnRequestData.AddPartitionsToTxnTransactionCollection();
        transactions.add(new AddPartitionsToTxnRequestData.AddPartitionsToTxnTransaction().setTransactionalId("tx-1")
                .setTopics(topics));
        AddPartitionsToTxnRequestData request = new AddPartitionsToTxnRequestData().setTransactions(transactions);
        TransactionIsolations.ADD_PARTITIONS_TO_TXN.rewriteRequest(request, scope);
        AddPartitionsToTxnRequestData.AddPartitionsToTxnTransaction sent = request.transactions().find("a.tx-1");
        assertNotNull(sent);
        assertNotNull(sent.topics().find("a.orders"));

        AddPartitionsToTxnResponseData.AddPartitionsToTxnResultCollection byTransaction =
                new AddPartitionsToTxnResponseData.AddPartitionsToTxnResultCollection();
        AddPartitionsToTxnResponseData.AddPartitionsToTxnTopicResultCollection topicResults =
                new AddPartitionsToTxnResponseData.AddPartitionsToTxnTopicResultCollection();
        topicResults.add(new AddPartitionsToTxnResponseData.AddPartitionsToTxnTopicResult().setName("a.orders"));
        byTransaction.add(new AddPartitionsToTxnResponseData.AddPartitionsToTxnResult().setTransactionalId("a.tx-1")
                .setTopicResults(topicResults));
        AddPartitionsToTxnResponseData answer = new AddPartitionsToTxnResponseData().setResultsByTransaction(byTransaction);
        TransactionIsolations.ADD_PARTITIONS_TO_TXN.rewriteAnswer(answer, scope);
        AddPartitionsToTxnResponseData.AddPartitionsToTxnResult result = answer.resultsByTransaction().find("tx-1");
        assertNotNull(result);
        assertNotNull(result.topicResults().find("orders"));
    }

    @Test
    void txnOffsetCommitPrefixesTransactionGroupAndTopics() {
        TxnOffsetCommitRequestData request = new TxnOffsetCommitRequestData().setTransactionalId("tx-1")
                .setGroupId("orders-app").setTopics(new ArrayList<>(List.of(
                        new TxnOffsetCommitRequestData.TxnOffsetCommitRequestTopic().setName("orders"))));
        TransactionIsolations.TXN_OFFSET_COMMIT.rewriteRequest(request, scope);
        assertEquals("a.tx-1", request.transactionalId());
        assertEquals("a.orders-app", request.groupId());
        assertEquals("a.orders", request.topics().get(0).name());
    }

    @Test
    void describeTransactionsGivesIdsAndTopicsBack() {
        DescribeTransactionsResponseData.TopicDataCollection topics = new DescribeTransactionsResponseData.TopicDataCollection();
        topics.add(new DescribeTransactionsResponseData.TopicData().setTopic("a.orders"));
        DescribeTransactionsResponseData answer = new DescribeTransactionsResponseData().setTransactionStates(
                new ArrayList<>(List.of(new DescribeTransactionsResponseData.TransactionState()
                        .setTransactionalId("a.tx-1").setTopics(topics))));
        TransactionIsolations.DESCRIBE_TRANSACTIONS.rewriteAnswer(answer, scope);
        assertEquals("tx-1", answer.transactionStates().get(0).transactionalId());
        assertNotNull(answer.transactionStates().get(0).topics().find("orders"));
    }

    @Test
    void listTransactionsShowsOnlyTheTenantsTransactions() {
        ListTransactionsResponseData answer = new ListTransactionsResponseData().setTransactionStates(new ArrayList<>(List.of(
                new ListTransactionsResponseData.TransactionState().setTransactionalId("a.tx-1"),
                new ListTransactionsResponseData.TransactionState().setTransactionalId("b.tx-9"))));
        TransactionIsolations.LIST_TRANSACTIONS.rewriteAnswer(answer, scope);
        assertEquals(List.of("tx-1"), answer.transactionStates().stream()
                .map(ListTransactionsResponseData.TransactionState::transactionalId).toList());
    }
}
