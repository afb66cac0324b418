package org.kafscale.proxy.lfs.resolve;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.message.FetchResponseData;
import org.apache.kafka.common.protocol.Errors;
import org.kafscale.proxy.core.codec.RecordCuts;
import org.kafscale.proxy.core.codec.RecordRewrites;
import org.kafscale.proxy.core.codec.RecordSets;
import org.kafscale.proxy.core.logging.LogFields;
import org.kafscale.proxy.core.logging.RateLimitedLog;
import org.kafscale.proxy.lfs.Async;
import org.kafscale.proxy.lfs.envelope.Envelope;
import org.kafscale.proxy.lfs.envelope.EnvelopeCodec;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Resolves one Fetch answer, in steps: on the event loop, which partitions are of resolved topics
 * ({@link #plan}); then on the blocking executor, their records read and their envelopes found,
 * the cuts the limits need ({@link FetchTrim}), the budget reserved, every kept envelope's payload
 * read and checked ({@link PayloadReads}) and the partition's record set written again
 * ({@link RecordCuts}); and back on the loop, the answer changed ({@link Results#apply}).
 */
final class AnswerResolution {
    /** The header a resolved record carries: the payload's SHA-256, as the envelope gave it. */
    static final String RESOLVED_HEADER = "kafscale-lfs-resolved";
    private static final Logger LOGGER = LoggerFactory.getLogger(AnswerResolution.class);
    private static final RateLimitedLog REFUSED = RateLimitedLog.every10Seconds(LOGGER);
    /** A value shorter than this is no envelope; longer ones are tested on their first bytes only. */
    private static final int DETECTION_BYTES = 50;

    private final PayloadReads reads;
    private final ResolutionBudget budget;
    private final ResolutionMetrics metrics;
    private final Executor blocking;
    private final String bucket;
    private final String namespace;

    AnswerResolution(PayloadReads reads, ResolutionBudget budget, ResolutionMetrics metrics, Executor blocking,
                     String bucket, String namespace) {
        this.reads = reads;
        this.budget = budget;
        this.metrics = metrics;
        this.blocking = blocking;
        this.bucket = bucket;
        this.namespace = namespace;
    }

    /** Which topics are resolved for the client: the topic's real name when it is, else null. */
    @FunctionalInterface
    interface Coverage {
        String coveredName(String name, Uuid id);
    }

    /** A partition of the answer: resolved ({@code topic} set) or only counted against the limits. */
    record Slot(FetchResponseData.PartitionData data, String topic, int partitionMax) {
    }

    /** The answer's partitions in order; empty when none is of a resolved topic. */
    record Plan(List<Slot> slots, int maxBytes) {
        boolean isEmpty() {
            return slots.stream().noneMatch(s -> s.topic() != null);
        }
    }

    /** Called on the event loop: looks only at names and sizes, decodes nothing. */
    Plan plan(FetchResponseData answer, FetchLimits limits, Coverage coverage) {
        List<Slot> slots = new ArrayList<>();
        for (FetchResponseData.FetchableTopicResponse topic : answer.responses()) {
            String name = coverage.coveredName(topic.topic(), topic.topicId());
            for (FetchResponseData.PartitionData partition : topic.partitions()) {
                boolean resolved = name != null && partition.errorCode() == Errors.NONE.code()
                        && RecordSets.sizeInBytes(partition.records()) > 0;
                slots.add(new Slot(partition, resolved ? name : null,
                        limits.partitionMax(topic.topic(), topic.topicId(), partition.partitionIndex())));
            }
        }
        return new Plan(slots, limits.maxBytes());
    }

    /** The answer's new record sets and errors, to {@link Results#apply} on the loop. */
    CompletableFuture<Results> resolve(Plan plan, LogFields connection) {
        CompletableFuture<List<Found>> read;
        try {
            read = CompletableFuture.supplyAsync(() -> read(plan), blocking);
        } catch (RejectedExecutionException busy) {
            // No thread to read the records with: every resolved partition asks again later.
            metrics.failed(ResolveFailure.Reason.BUSY);
            return CompletableFuture.completedFuture(new Results(plan.slots().stream().filter(s -> s.topic() != null)
                    .map(s -> Result.refused(s.data(), ResolveFailure.Reason.BUSY.error)).toList()));
        }
        return read.thenCompose(found -> {
            long payload = found.stream().mapToLong(Found::payloadBytes).sum();
            if (payload == 0 && found.stream().allMatch(f -> f.end() == FetchTrim.NO_CUT && f.refused() == null)) {
                return CompletableFuture.completedFuture(new Results(List.of()));
            }
            // Twice the payload: the bytes read, and the record set written from them. Held until
            // the answer is encoded (Results#release), not only until it is rebuilt: the rebuilt
            // set lives until then, and the next Fetch's payloads must not come on top of it.
            return budget.reserve(2 * payload).thenCompose(reservation -> fetchAll(found, connection)
                    .whenComplete((results, error) -> {
                        if (error != null) {
                            reservation.close();
                        }
                    })
                    .thenApply(results -> results.holding(reservation)));
        });
    }

    /** What was found in one resolved partition. */
    private record Found(Slot slot, long end, Map<Long, Envelope> envelopes, ResolveFailure refused) {
        long payloadBytes() {
            return refused != null ? 0 : envelopes.values().stream().mapToLong(Envelope::size).sum();
        }
    }

    /** On the blocking executor: the envelopes of every resolved partition, and where the limits cut it. */
    private List<Found> read(Plan plan) {
        List<FetchTrim.Part> parts = new ArrayList<>();
        List<Map<Long, Envelope>> envelopes = new ArrayList<>();
        for (Slot slot : plan.slots()) {
            Map<Long, Envelope> found = new HashMap<>();
            FetchTrim.Part part = slot.topic() == null ? null : part(slot, found);
            if (part == null) {
                part = FetchTrim.Part.fixed(RecordSets.sizeInBytes(slot.data().records()));
                found = null;
            }
            parts.add(part);
            envelopes.add(found);
        }
        long[] ends = FetchTrim.endOffsets(plan.maxBytes(), parts);
        List<Found> result = new ArrayList<>();
        for (int i = 0; i < plan.slots().size(); i++) {
            if (envelopes.get(i) != null) {
                result.add(found(plan.slots().get(i), envelopes.get(i), ends[i]));
            }
        }
        return result;
    }

    /** The envelopes of one partition before its cut, and whether one of them is refused. */
    private Found found(Slot slot, Map<Long, Envelope> envelopes, long end) {
        Map<Long, Envelope> kept = new HashMap<>();
        envelopes.forEach((offset, envelope) -> {
            if (offset < end) {
                kept.put(offset, envelope);
            }
        });
        ResolveFailure refused = kept.values().stream().map(e -> foreign(slot.topic(), e))
                .filter(f -> f != null).findFirst().orElse(null);
        return new Found(slot, end, kept, refused);
    }

    /**
     * The partition's records at their resolved sizes, its envelopes into {@code found}; null for
     * a partition not to touch (no data records, or records that do not decode: the consumer
     * meets them as the broker sent them).
     */
    private FetchTrim.Part part(Slot slot, Map<Long, Envelope> found) {
        List<RecordCuts.Seen> seen;
        try {
            seen = RecordCuts.read(slot.data().records(), AnswerResolution::mayBeEnvelope);
        } catch (RuntimeException e) {
            LOGGER.debug("lfs resolution leaves records that do not decode: {}", e.toString());
            return null;
        }
        if (seen.isEmpty()) {
            return null;
        }
        long[] offsets = new long[seen.size()];
        long[] sizes = new long[seen.size()];
        for (int i = 0; i < seen.size(); i++) {
            RecordCuts.Seen record = seen.get(i);
            offsets[i] = record.offset();
            sizes[i] = record.sizeInBytes();
            Envelope envelope = envelope(record.value());
            if (envelope != null) {
                found.put(record.offset(), envelope);
                sizes[i] += envelope.size() - record.value().length;
            }
        }
        return new FetchTrim.Part(slot.partitionMax(), 0, offsets, sizes);
    }

    private static boolean mayBeEnvelope(ByteBuffer value) {
        byte[] head = new byte[Math.min(value.remaining(), DETECTION_BYTES)];
        value.duplicate().get(head);
        return EnvelopeCodec.looksLikeEnvelope(head);
    }

    /** The envelope in {@code value}, or null when it only looked like one (it passes as it is). */
    private static Envelope envelope(byte[] value) {
        if (value == null) {
            return null;
        }
        try {
            return EnvelopeCodec.decode(value);
        } catch (IllegalArgumentException notAnEnvelope) {
            return null;
        }
    }

    /**
     * An envelope may only name this proxy's bucket and a key of its topic: a producer must not
     * get another topic's (another tenant's) object delivered through an envelope it wrote.
     */
    private ResolveFailure foreign(String topic, Envelope envelope) {
        String prefix = namespace + "/" + topic + "/lfs/";
        if (bucket.equals(envelope.bucket()) && envelope.key().startsWith(prefix) && !envelope.key().contains("..")) {
            return null;
        }
        return new ResolveFailure(ResolveFailure.Reason.FOREIGN, "envelope names " + envelope.bucket() + "/"
                + envelope.key() + ", outside " + bucket + "/" + prefix);
    }

    /** Every kept payload read and checked, and each partition's records written again. */
    private CompletableFuture<Results> fetchAll(List<Found> found, LogFields connection) {
        List<CompletableFuture<Result>> partitions = new ArrayList<>();
        for (Found f : found) {
            partitions.add(fetch(f).handle((result, error) -> {
                if (error == null) {
                    return result;
                }
                Throwable cause = Async.unwrap(error);
                ResolveFailure failure = cause instanceof ResolveFailure known ? known
                        : new ResolveFailure(ResolveFailure.Reason.S3_UNAVAILABLE, String.valueOf(cause));
                metrics.failed(failure.reason);
                REFUSED.warn(connection, "lfs fetch resolution refuses topic={} partition={} error={} reason={}: {}",
                        f.slot().topic(), f.slot().data().partitionIndex(), failure.error(), failure.reason.label,
                        failure.getMessage());
                return Result.refused(f.slot().data(), failure.error());
            }));
        }
        return CompletableFuture.allOf(partitions.toArray(CompletableFuture[]::new))
                .thenApply(done -> new Results(partitions.stream().map(CompletableFuture::join).toList()));
    }

    private CompletableFuture<Result> fetch(Found f) {
        if (f.refused() != null) {
            return CompletableFuture.failedFuture(f.refused());
        }
        if (f.envelopes().isEmpty() && f.end() == FetchTrim.NO_CUT) {
            return CompletableFuture.completedFuture(null);
        }
        Map<Long, CompletableFuture<byte[]>> payloads = new HashMap<>();
        f.envelopes().forEach((offset, envelope) -> payloads.put(offset, reads.read(envelope)));
        return CompletableFuture.allOf(payloads.values().toArray(CompletableFuture[]::new))
                .thenApplyAsync(done -> rebuild(f, payloads), blocking);
    }

    /** The partition's records with each payload in place of its envelope, cut where the limits say. */
    private Result rebuild(Found f, Map<Long, CompletableFuture<byte[]>> payloads) {
        RecordCuts.Cut records = RecordCuts.cut(f.slot().data().records(), (offset, value, headers) -> {
            CompletableFuture<byte[]> payload = payloads.get(offset);
            if (payload == null) {
                return null;
            }
            Header[] marked = Arrays.copyOf(headers, headers.length + 1);
            marked[headers.length] = RecordRewrites.header(RESOLVED_HEADER,
                    f.envelopes().get(offset).sha256().getBytes(StandardCharsets.US_ASCII));
            return new RecordRewrites.Rewritten(ByteBuffer.wrap(payload.join()), marked);
        }, f.end());
        f.envelopes().values().forEach(e -> metrics.resolved(e.size()));
        return new Result(f.slot().data(), records, null);
    }

    /** One partition's new records, or its error (no records). */
    private record Result(FetchResponseData.PartitionData data, RecordCuts.Cut records, Errors error) {
        static Result refused(FetchResponseData.PartitionData data, Errors error) {
            return new Result(data, null, error);
        }
    }

    /** What becomes of the answer's resolved partitions. */
    static final class Results {
        private final List<Result> results;
        private ResolutionBudget.Reservation reservation;

        private Results(List<Result> results) {
            this.results = results;
        }

        private Results holding(ResolutionBudget.Reservation held) {
            this.reservation = held;
            return this;
        }

        /** Gives the budget back, once the answer holding these records is encoded (or dropped). */
        void release() {
            if (reservation != null) {
                reservation.close();
            }
        }

        /** Changes the answer; on the connection's event loop. */
        void apply() {
            for (Result result : results) {
                if (result == null) {
                    continue;
                }
                if (result.error() != null) {
                    result.data().setErrorCode(result.error().code()).setRecords(RecordSets.empty());
                } else {
                    result.records().applyTo(result.data());
                }
            }
        }
    }
}
