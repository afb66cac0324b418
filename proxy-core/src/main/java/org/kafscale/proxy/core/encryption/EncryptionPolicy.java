package org.kafscale.proxy.core.encryption;

import io.netty.util.concurrent.Future;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import java.util.function.LongSupplier;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.header.internals.RecordHeader;
import org.apache.kafka.common.message.FetchResponseData;
import org.apache.kafka.common.message.ProduceRequestData;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.security.auth.KafkaPrincipal;
import org.kafscale.proxy.core.policy.AnswerOutcome;
import org.kafscale.proxy.core.policy.Hooks;
import org.kafscale.proxy.core.policy.Policy;
import org.kafscale.proxy.core.policy.PolicyContext;
import org.kafscale.proxy.core.policy.RequestOutcome;
import org.kafscale.proxy.core.topology.Topology;
import org.kafscale.proxy.core.topology.TopicLayout;

/**
 * Record encryption (envelope encryption of values). On Produce, the values of every record for a
 * topic an {@link EncryptionRule} covers are encrypted with AES-256-GCM under the topic's current
 * data key, and a {@value Envelope#HEADER} header carries the wrapped key and IV ({@link Envelope});
 * the batches are written again with their own codec and producer fields ({@link BatchRewriter}).
 * On Fetch, the allowed principals get the values decrypted and the header removed; the others
 * get the ciphertext as the broker holds it. A record of a covered topic without a header (written
 * around the proxy), or one that does not decrypt, is never delivered: its partition answers
 * CORRUPT_MESSAGE with no records, for every principal, and the observer counts why. Records with
 * no value (tombstones) carry nothing to hide and pass both ways as they are.
 *
 * <p>After the tenant policy and authorization in the chain, so it sees real topic names both ways
 * and no refused request. Shared by every connection; the data keys are the only state.
 */
public final class EncryptionPolicy implements Policy {
    private final List<Keyed> rules;
    private final Topology topology;
    private final EncryptionObserver observer;

    private record Keyed(EncryptionRule rule, DataKeys keys) {
    }

    public EncryptionPolicy(List<EncryptionRule> rules, Topology topology, EncryptionObserver observer) {
        this(rules, topology, observer, System::nanoTime);
    }

    EncryptionPolicy(List<EncryptionRule> rules, Topology topology, EncryptionObserver observer, LongSupplier nanos) {
        this.rules = rules.stream().map(r -> new Keyed(r, new DataKeys(r.keks(), r.rotateAfterRecords(),
                r.rotateAfter().toNanos(), nanos))).toList();
        this.topology = topology;
        this.observer = observer;
    }

    @Override
    public void register(Hooks hooks) {
        hooks.onRequest(ProduceRequestData.class, this::onProduce);
        hooks.onAnswer(FetchResponseData.class, this::onFetch);
    }

    private Future<RequestOutcome> onProduce(ProduceRequestData request, PolicyContext context) {
        boolean changed = false;
        for (ProduceRequestData.TopicProduceData topic : request.topicData()) {
            if (nameOf(topic.name(), topic.topicId()).isEmpty()) {
                // A topic id the topology does not know yet might be a covered topic's: written
                // unencrypted it would be plaintext at rest, so the producer retries instead.
                return context.now(context.error(Errors.UNKNOWN_TOPIC_ID));
            }
            Optional<Keyed> rule = ruleOf(topic.name(), topic.topicId());
            if (rule.isEmpty()) {
                continue;
            }
            String name = nameOf(topic.name(), topic.topicId()).orElseThrow();
            for (ProduceRequestData.PartitionProduceData partition : topic.partitionData()) {
                if (!(partition.records() instanceof MemoryRecords records) || records.sizeInBytes() == 0) {
                    continue;
                }
                try {
                    partition.setRecords(seal(rule.get().keys(), name, records));
                } catch (RuntimeException e) {
                    // A batch older than magic v2 (no headers to carry the envelope), or one that does not decode.
                    return context.now(context.error(Errors.INVALID_RECORD));
                }
                changed = true;
            }
        }
        return context.now(changed ? RequestOutcome.forward(request) : RequestOutcome.FORWARD);
    }

    static MemoryRecords seal(DataKeys keys, String topic, MemoryRecords records) {
        // One key for the whole set: counted once, so a rotation never splits a batch.
        DataKeys.Current key = keys.forRecords(topic, countRecords(records));
        return BatchRewriter.rewrite(records, record -> {
            Header[] headers = record.headers();
            if (!record.hasValue()) {
                return new BatchRewriter.Rewritten(null, headers);
            }
            RecordCipher.Sealed sealed = RecordCipher.seal(keys, key, record.value());
            Header[] withEnvelope = Arrays.copyOf(headers, headers.length + 1);
            withEnvelope[headers.length] = new RecordHeader(Envelope.HEADER, sealed.header());
            return new BatchRewriter.Rewritten(sealed.value(), withEnvelope);
        });
    }

    private Future<AnswerOutcome> onFetch(FetchResponseData answer, PolicyContext context) {
        KafkaPrincipal principal = context.connection().principal();
        boolean changed = false;
        for (FetchResponseData.FetchableTopicResponse topic : answer.responses()) {
            Optional<Keyed> rule = ruleOf(topic.topic(), topic.topicId());
            if (rule.isEmpty()) {
                continue;
            }
            boolean allowed = rule.get().rule().allowed().contains(principal);
            for (FetchResponseData.PartitionData partition : topic.partitions()) {
                if (!(partition.records() instanceof MemoryRecords records) || records.sizeInBytes() == 0) {
                    continue;
                }
                Opened opened = open(rule.get().keys(), records, allowed);
                if (opened.refusal() != null) {
                    observer.refusedRecord(opened.refusal());
                    partition.setErrorCode(Errors.CORRUPT_MESSAGE.code()).setRecords(MemoryRecords.EMPTY);
                    changed = true;
                } else if (opened.records() != records) {
                    partition.setRecords(opened.records());
                    changed = true;
                }
            }
        }
        return context.now(changed ? AnswerOutcome.replace(answer) : AnswerOutcome.keep());
    }

    /**
     * What a partition's fetched records become.
     *
     * @param records what the client gets, when {@code refusal} is null
     * @param refusal why the records may not be delivered (the first refused record's reason), or null
     */
    record Opened(MemoryRecords records, String refusal) {
    }

    /**
     * The records decrypted (when {@code decrypt}) or as they are (after each was checked for an
     * envelope), or why not.
     */
    static Opened open(DataKeys keys, MemoryRecords records, boolean decrypt) {
        String[] reason = new String[1];
        try {
            MemoryRecords opened = BatchRewriter.rewrite(records, record -> {
                if (!record.hasValue()) {
                    return new BatchRewriter.Rewritten(null, record.headers());
                }
                Header[] headers = record.headers();
                int at = envelopeAt(headers);
                if (at < 0) {
                    reason[0] = "unencrypted";
                    throw new IllegalArgumentException("a record has no envelope");
                }
                if (!decrypt) {
                    return new BatchRewriter.Rewritten(record.value(), headers);
                }
                ByteBuffer plain;
                try {
                    plain = RecordCipher.open(keys, headers[at].value(), record.value());
                } catch (IllegalArgumentException e) {
                    reason[0] = "undecryptable";
                    throw e;
                }
                return new BatchRewriter.Rewritten(plain, without(headers, at));
            });
            return new Opened(decrypt ? opened : records, null);
        } catch (RuntimeException e) {
            // Besides the two above: a batch older than magic v2, which no envelope can be on, or
            // one that does not decode (Kafka's CorruptRecordException).
            return new Opened(records, reason[0] == null ? "unencrypted" : reason[0]);
        }
    }

    /** The last envelope header: the proxy appends its own after any the producer sent. */
    private static int envelopeAt(Header[] headers) {
        for (int i = headers.length - 1; i >= 0; i--) {
            if (Envelope.HEADER.equals(headers[i].key())) {
                return i;
            }
        }
        return -1;
    }

    private static Header[] without(Header[] headers, int at) {
        List<Header> kept = new ArrayList<>(List.of(headers));
        kept.remove(at);
        return kept.toArray(Header[]::new);
    }

    private static int countRecords(MemoryRecords records) {
        int count = 0;
        for (var batch : records.batches()) {
            Integer n = batch.countOrNull();
            count += n == null ? 0 : n;
        }
        return count;
    }

    private Optional<Keyed> ruleOf(String name, Uuid id) {
        return nameOf(name, id).flatMap(n -> rules.stream().filter(k -> k.rule().covers(n)).findFirst());
    }

    /** The topic's name: the one given, else the one the topology has for its id (Produce and Fetch v13+). */
    private Optional<String> nameOf(String name, Uuid id) {
        if (name != null && !name.isEmpty()) {
            return Optional.of(name);
        }
        if (id == null || Uuid.ZERO_UUID.equals(id)) {
            return Optional.empty();
        }
        return topology.snapshot().topic(id).map(TopicLayout::name);
    }
}
