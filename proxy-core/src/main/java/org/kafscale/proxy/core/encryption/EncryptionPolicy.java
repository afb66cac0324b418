package org.kafscale.proxy.core.encryption;

import io.netty.util.concurrent.Future;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.message.FetchResponseData;
import org.apache.kafka.common.message.ProduceRequestData;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.security.auth.KafkaPrincipal;
import org.kafscale.proxy.core.codec.RecordRewrites;
import org.kafscale.proxy.core.codec.RecordSets;
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
 * the batches are written again with their own codec and producer fields ({@link RecordRewrites}).
 * A rule with {@code headers} seals the record's headers with its value ({@link SealedHeaders}):
 * the stored record carries the envelope alone, and the headers come back on decrypt.
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
        this.rules = rules.stream().map(r -> new Keyed(r, new DataKeys(r.keks(), r.rotateAfterRecords(),
                r.rotateAfter().toNanos(), System::nanoTime))).toList();
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
            Optional<String> name = nameOf(topic.name(), topic.topicId());
            if (name.isEmpty()) {
                // A topic id the topology does not know yet might be a covered topic's: written
                // unencrypted it would be plaintext at rest, so the producer retries instead.
                return context.now(context.error(Errors.UNKNOWN_TOPIC_ID));
            }
            Optional<Keyed> rule = ruleOf(name.get());
            if (rule.isEmpty()) {
                continue;
            }
            for (ProduceRequestData.PartitionProduceData partition : topic.partitionData()) {
                try {
                    changed |= seal(rule.get().keys(), name.get(), partition, rule.get().rule().headers());
                } catch (RuntimeException e) {
                    // A batch older than magic v2 (no headers to carry the envelope), or one that does not decode.
                    return context.now(context.error(Errors.INVALID_RECORD));
                }
            }
        }
        return context.now(changed ? RequestOutcome.forward(request) : RequestOutcome.FORWARD);
    }

    static boolean seal(DataKeys keys, String topic, ProduceRequestData.PartitionProduceData partition) {
        return seal(keys, topic, partition, false);
    }

    /**
     * Seals every value of {@code partition}'s records in place, with its headers when
     * {@code headers} (the record then carries the envelope alone); tombstones stay as they are.
     * One key for the whole set: counted once, so a rotation never splits a batch.
     *
     * @return whether there were records to seal
     */
    static boolean seal(DataKeys keys, String topic, ProduceRequestData.PartitionProduceData partition,
                        boolean sealHeaders) {
        if (RecordSets.sizeInBytes(partition.records()) == 0) {
            return false;
        }
        DataKeys.Current key = keys.forRecords(topic, RecordSets.countDataRecords(partition.records()));
        partition.setRecords(RecordRewrites.rewrite(partition.records(), (value, headers) -> {
            if (value == null) {
                return new RecordRewrites.Rewritten(null, headers);
            }
            if (sealHeaders) {
                RecordCipher.Sealed sealed = RecordCipher.seal(keys, key, SealedHeaders.join(headers, value), true);
                return new RecordRewrites.Rewritten(sealed.value(),
                        new Header[] {RecordRewrites.header(Envelope.HEADER, sealed.header())});
            }
            RecordCipher.Sealed sealed = RecordCipher.seal(keys, key, value, false);
            Header[] withEnvelope = Arrays.copyOf(headers, headers.length + 1);
            withEnvelope[headers.length] = RecordRewrites.header(Envelope.HEADER, sealed.header());
            return new RecordRewrites.Rewritten(sealed.value(), withEnvelope);
        }, RecordCipher.growth(key)));
        return true;
    }

    private Future<AnswerOutcome> onFetch(FetchResponseData answer, PolicyContext context) {
        KafkaPrincipal principal = context.connection().principal();
        boolean changed = false;
        for (FetchResponseData.FetchableTopicResponse topic : answer.responses()) {
            Optional<String> name = nameOf(topic.topic(), topic.topicId());
            if (name.isEmpty()) {
                // As on Produce: a topic id not known yet might be a covered topic's, whose records
                // are not delivered unchecked; the consumer asks again after its next metadata.
                topic.partitions().forEach(p -> p.setErrorCode(Errors.UNKNOWN_TOPIC_ID.code())
                        .setRecords(RecordSets.empty()));
                changed = true;
                continue;
            }
            Optional<Keyed> rule = ruleOf(name.get());
            if (rule.isEmpty()) {
                continue;
            }
            boolean allowed = rule.get().rule().allowed().contains(principal);
            for (FetchResponseData.PartitionData partition : topic.partitions()) {
                Opened opened = open(rule.get().keys(), partition, allowed);
                if (opened.reason != null) {
                    observer.refusedRecord(opened.reason);
                }
                changed |= opened != Opened.AS_THEY_ARE;
            }
        }
        return context.now(changed ? AnswerOutcome.replace(answer) : AnswerOutcome.keep());
    }

    /** What became of a fetched partition's records. */
    enum Opened {
        AS_THEY_ARE(null), DECRYPTED(null),
        /** A record without the proxy's envelope (written around it), or a batch that cannot carry one. */
        REFUSED_UNENCRYPTED("unencrypted"),
        /** A record that was changed, or whose data key does not unwrap. */
        REFUSED_UNDECRYPTABLE("undecryptable");

        final String reason;

        Opened(String reason) {
            this.reason = reason;
        }
    }

    /**
     * Decrypts {@code partition}'s records in place (when {@code decrypt}), or checks each has an
     * envelope and leaves them as they are; a partition with a record that may not be delivered
     * gets CORRUPT_MESSAGE and no records instead.
     */
    static Opened open(DataKeys keys, FetchResponseData.PartitionData partition, boolean decrypt) {
        if (RecordSets.sizeInBytes(partition.records()) == 0) {
            return Opened.AS_THEY_ARE;
        }
        Opened[] refused = new Opened[1];
        try {
            var opened = RecordRewrites.rewrite(partition.records(), (value, headers) -> {
                if (value == null) {
                    return new RecordRewrites.Rewritten(null, headers);
                }
                int at = envelopeAt(headers);
                if (at < 0) {
                    refused[0] = Opened.REFUSED_UNENCRYPTED;
                    throw new IllegalArgumentException("a record has no envelope");
                }
                if (!decrypt) {
                    return new RecordRewrites.Rewritten(value, headers);
                }
                try {
                    Envelope envelope = Envelope.parse(headers[at].value());
                    ByteBuffer plain = RecordCipher.open(keys, envelope, headers[at].value(), value);
                    if (!envelope.headers()) {
                        return new RecordRewrites.Rewritten(plain, without(headers, at));
                    }
                    // The sealed headers first, as the producer sent them; then any added at rest.
                    SealedHeaders.Split split = SealedHeaders.split(plain);
                    Header[] rest = without(headers, at);
                    Header[] restored = Arrays.copyOf(split.headers(), split.headers().length + rest.length);
                    System.arraycopy(rest, 0, restored, split.headers().length, rest.length);
                    return new RecordRewrites.Rewritten(split.value(), restored);
                } catch (IllegalArgumentException e) {
                    refused[0] = Opened.REFUSED_UNDECRYPTABLE;
                    throw e;
                }
            });
            if (!decrypt) {
                return Opened.AS_THEY_ARE;
            }
            partition.setRecords(opened);
            return Opened.DECRYPTED;
        } catch (RuntimeException e) {
            // Besides the two above: a batch older than magic v2, which no envelope can be on, or
            // one that does not decode (Kafka's CorruptRecordException).
            Opened outcome = refused[0] == null ? Opened.REFUSED_UNENCRYPTED : refused[0];
            partition.setErrorCode(Errors.CORRUPT_MESSAGE.code()).setRecords(RecordSets.empty());
            return outcome;
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

    private Optional<Keyed> ruleOf(String name) {
        return rules.stream().filter(k -> k.rule().covers(name)).findFirst();
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
