package org.kafscale.proxy.core.validation;

import io.netty.util.concurrent.Future;
import io.netty.util.concurrent.Promise;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.IdentityHashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import org.apache.kafka.common.message.ProduceRequestData;
import org.apache.kafka.common.message.ProduceRequestData.PartitionProduceData;
import org.apache.kafka.common.message.ProduceRequestData.TopicProduceData;
import org.apache.kafka.common.message.ProduceResponseData;
import org.apache.kafka.common.message.ProduceResponseData.PartitionProduceResponse;
import org.apache.kafka.common.message.ProduceResponseData.TopicProduceResponse;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.Uuid;
import org.kafscale.proxy.core.policy.AnswerOutcome;
import org.kafscale.proxy.core.policy.AnswerPolicy;
import org.kafscale.proxy.core.policy.Hooks;
import org.kafscale.proxy.core.policy.Policy;
import org.kafscale.proxy.core.policy.PolicyContext;
import org.kafscale.proxy.core.policy.RequestOutcome;
import org.kafscale.proxy.core.topology.TopicLayout;
import org.kafscale.proxy.core.topology.Topology;
import org.kafscale.proxy.core.topology.TopologySnapshot;

/**
 * Record validation on Produce: the partitions of topics a rule covers are decoded and each
 * record's key and value checked ({@link PartitionCheck}); a partition with an invalid record is
 * refused with INVALID_RECORD, its per-record errors and a message, as a broker refuses one, and
 * the request's other partitions go on to their brokers, their answers merged with the refusals.
 * A request with no partition of a covered topic goes on untouched, its records not read.
 *
 * <p>Shared by every connection. Checks run on the connection's event loop; a format that waits
 * (a schema from a registry) makes the request wait, never the loop, and the partitions are
 * checked again when it is there (at most {@link #PASSES} passes: a schema still missing then
 * makes its records invalid).
 */
public final class ValidationPolicy implements Policy {
    /** A lookup that completed may be evicted by others before the next pass reads it: one pass more. */
    static final int PASSES = 3;

    private final ValidationRules rules;
    private final Topology topology;
    private final ValidationObserver observer;

    /** @param topology names the topics a Produce gives by id (version 13 on) */
    public ValidationPolicy(ValidationRules rules, Topology topology) {
        this(rules, topology, ValidationObserver.NONE);
    }

    /** @param observer hears each refused partition */
    public ValidationPolicy(ValidationRules rules, Topology topology, ValidationObserver observer) {
        this.rules = rules;
        this.topology = topology;
        this.observer = observer;
    }

    @Override
    public void register(Hooks hooks) {
        hooks.onRequest(ProduceRequestData.class, this::onProduce);
    }

    private Future<RequestOutcome> onProduce(ProduceRequestData request, PolicyContext context) {
        Map<PartitionProduceData, ValidationRule> covered = covered(request, context.connection().virtualCluster());
        if (covered.isEmpty()) {
            return context.forward();
        }
        return pass(request, context, covered, 1);
    }

    /** The partitions of {@code request} a rule covers, each with its rule. */
    private Map<PartitionProduceData, ValidationRule> covered(ProduceRequestData request,
                                                            Optional<String> virtualCluster) {
        Map<PartitionProduceData, ValidationRule> covered = new IdentityHashMap<>();
        TopologySnapshot snapshot = null;
        for (TopicProduceData topic : request.topicData()) {
            String name = topic.name();
            if (name == null || name.isEmpty()) {
                // A topic the topology does not know by its id is no topic a broker will take either.
                if (snapshot == null) {
                    snapshot = topology.snapshot();
                }
                name = nameOf(snapshot, topic.topicId());
                if (name == null) {
                    continue;
                }
            }
            rules.ruleFor(virtualCluster, name).ifPresent(rule -> topic.partitionData()
                    .forEach(partition -> covered.put(partition, rule)));
        }
        return covered;
    }

    private static String nameOf(TopologySnapshot snapshot, Uuid id) {
        if (id == null || Uuid.ZERO_UUID.equals(id)) {
            return null;
        }
        return snapshot.topic(id).map(TopicLayout::name).orElse(null);
    }

    /** One pass over the covered partitions; the decision, or a later pass once what was missing is there. */
    private Future<RequestOutcome> pass(ProduceRequestData request, PolicyContext context,
                                        Map<PartitionProduceData, ValidationRule> covered, int pass) {
        Map<PartitionProduceData, PartitionCheck.Outcome> refused = new IdentityHashMap<>();
        Set<CompletionStage<?>> pending = new HashSet<>();
        boolean last = pass >= PASSES;
        covered.forEach((partition, rule) -> {
            PartitionCheck.Outcome outcome = PartitionCheck.run(partition, rule, last);
            if (outcome.invalid() > 0) {
                refused.put(partition, outcome);
            } else {
                pending.addAll(outcome.pending());
            }
        });
        if (!pending.isEmpty()) {
            // Checked again, all of it, when every lookup is done: a partition refused already is
            // refused again, at no cost worth a second path.
            Promise<RequestOutcome> decided = context.newOutcome();
            CompletableFuture.allOf(pending.stream().map(CompletionStage::toCompletableFuture)
                    .toArray(CompletableFuture[]::new)).whenComplete((ok, failed) -> context.loop().execute(() -> {
                        try {
                            pass(request, context, covered, pass + 1).addListener(done -> {
                                if (done.isSuccess()) {
                                    decided.trySuccess((RequestOutcome) done.getNow());
                                } else {
                                    decided.tryFailure(done.cause());
                                }
                            });
                        } catch (RuntimeException e) {
                            decided.tryFailure(e);
                        }
                    }));
            return decided;
        }
        refused.forEach((partition, outcome) -> observer.refused(covered.get(partition), outcome.invalid()));
        return context.now(decide(request, context, refused));
    }

    private static RequestOutcome decide(ProduceRequestData request, PolicyContext context,
                                         Map<PartitionProduceData, PartitionCheck.Outcome> refused) {
        if (refused.isEmpty()) {
            return RequestOutcome.FORWARD;
        }
        if (request.acks() == 0) {
            // No answer can carry the refusal: the connection closes, as a broker's does on an
            // acks=0 Produce it refuses, so the producer at least sees a failure.
            PartitionCheck.Outcome first = refused.values().iterator().next();
            return context.close("acks=0 Produce refused by record validation: " + first.message());
        }
        List<TopicProduceResponse> answers = takeOut(request, refused);
        if (request.topicData().isEmpty()) {
            return context.answer(new ProduceResponseData().setResponses(
                    new ProduceResponseData.TopicProduceResponseCollection(answers.iterator())));
        }
        return RequestOutcome.forward(request, new Refusals(answers));
    }

    /** Takes the refused partitions out of {@code request} (and topics left with none); their answers. */
    private static List<TopicProduceResponse> takeOut(ProduceRequestData request,
                                                      Map<PartitionProduceData, PartitionCheck.Outcome> refused) {
        List<TopicProduceResponse> answers = new ArrayList<>();
        for (Iterator<TopicProduceData> topics = request.topicData().iterator(); topics.hasNext(); ) {
            TopicProduceData topic = topics.next();
            TopicProduceResponse answer = null;
            for (Iterator<PartitionProduceData> partitions = topic.partitionData().iterator(); partitions.hasNext(); ) {
                PartitionProduceData partition = partitions.next();
                PartitionCheck.Outcome outcome = refused.get(partition);
                if (outcome == null) {
                    continue;
                }
                partitions.remove();
                if (answer == null) {
                    answer = new TopicProduceResponse().setName(topic.name()).setTopicId(topic.topicId());
                    answers.add(answer);
                }
                answer.partitionResponses().add(new PartitionProduceResponse().setIndex(partition.index())
                        .setErrorCode(Errors.INVALID_RECORD.code()).setErrorMessage(outcome.message())
                        .setRecordErrors(outcome.errors()).setBaseOffset(-1).setLogAppendTimeMs(-1)
                        .setLogStartOffset(-1));
            }
            if (topic.partitionData().isEmpty()) {
                topics.remove();
            }
        }
        return answers;
    }

    /** Adds the refused partitions to the answer of the partitions that went on. */
    private record Refusals(List<TopicProduceResponse> answers) implements AnswerPolicy {
        @Override
        public Future<AnswerOutcome> onAnswer(org.apache.kafka.common.protocol.ApiMessage answer,
                                              PolicyContext context) {
            ProduceResponseData produce = (ProduceResponseData) answer;
            for (TopicProduceResponse refused : answers) {
                TopicProduceResponse same = produce.responses().find(refused.name(), refused.topicId());
                if (same == null) {
                    produce.responses().add(refused.duplicate());
                } else {
                    refused.partitionResponses().forEach(p -> same.partitionResponses().add(p.duplicate()));
                }
            }
            return context.now(AnswerOutcome.replace(answer));
        }
    }
}
