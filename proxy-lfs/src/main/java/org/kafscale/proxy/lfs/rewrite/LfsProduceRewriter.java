package org.kafscale.proxy.lfs.rewrite;

import io.netty.util.concurrent.Future;
import io.netty.util.concurrent.Promise;
import java.nio.ByteBuffer;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import org.apache.kafka.common.message.ProduceRequestData.PartitionProduceData;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.MutableRecordBatch;
import org.apache.kafka.common.record.internal.Record;
import org.apache.kafka.common.record.internal.RecordBatch;
import org.apache.kafka.common.utils.ByteBufferOutputStream;
import org.kafscale.proxy.core.server.ConnectionContext;
import org.kafscale.proxy.core.hooks.ProduceRewriter;
import org.kafscale.proxy.core.topology.PartitionRef;
import org.kafscale.proxy.lfs.Async;
import org.kafscale.proxy.lfs.LfsContext;
import org.kafscale.proxy.lfs.checksum.ChecksumAlg;
import org.kafscale.proxy.lfs.checksum.PayloadDigests;
import org.kafscale.proxy.lfs.envelope.Envelope;
import org.kafscale.proxy.lfs.envelope.EnvelopeCodec;
import org.kafscale.proxy.lfs.publish.ObjectJanitor;
import software.amazon.awssdk.core.async.AsyncRequestBody;

/**
 * The Kafka-side LFS rewrite (spec §4.10): in a Produce through the Kafka listener, each record
 * with an {@code LFS_BLOB} header, on a topic the operator enabled, has its value uploaded to S3
 * and replaced by the envelope; {@code LFS_BLOB} is removed, every other header stays. Only the
 * batches that hold such records are re-encoded ({@link BatchReencoder}); batches of topics not
 * enabled are never opened.
 *
 * <p>A partition is refused, unsent and with no object left behind, when one of its blobs fails:
 * a checksum mismatch or an unknown {@code LFS_BLOB_ALG} ({@code INVALID_RECORD}, not retriable:
 * the same bytes fail again), a value over the max blob size ({@code MESSAGE_TOO_LARGE}), or an
 * S3 failure ({@code KAFKA_STORAGE_ERROR}, retriable). Checksums are verified before the upload.
 * Objects of a sent partition whose produce did not succeed are counted as orphans (§4.12).
 *
 * <p>Hashing, uploads and re-encoding run on the LFS blocking executor; the records are replaced
 * on the connection's event loop.
 */
public final class LfsProduceRewriter implements ProduceRewriter {
    private static final org.slf4j.Logger LOGGER = org.slf4j.LoggerFactory.getLogger(LfsProduceRewriter.class);

    private final LfsContext lfs;
    private final Set<String> topics;
    private final boolean allTopics;

    /**
     * @param lfs the LFS services
     * @param topics the topics to rewrite; {@code *} for all
     */
    public LfsProduceRewriter(LfsContext lfs, Set<String> topics) {
        this.lfs = lfs;
        this.topics = Set.copyOf(topics);
        this.allTopics = topics.contains("*");
    }

    @Override
    public Future<Outcome> rewrite(ConnectionContext context, Map<PartitionRef, PartitionProduceData> partitions) {
        Map<PartitionRef, List<MarkedBatch>> marked = new LinkedHashMap<>();
        partitions.forEach((ref, data) -> {
            if (enabled(ref.routingName()) && data.records() instanceof MemoryRecords records) {
                List<MarkedBatch> batches = scan(records);
                if (!batches.isEmpty()) {
                    marked.put(ref, batches);
                }
            }
        });
        if (marked.isEmpty()) {
            return null;
        }
        Promise<Outcome> outcome = context.loop().newPromise();
        Map<PartitionRef, CompletableFuture<PartitionResult>> work = new LinkedHashMap<>();
        marked.forEach((ref, batches) -> work.put(ref, CompletableFuture
                .supplyAsync(() -> check(ref, batches), lfs.blocking())
                .thenComposeAsync(refusal -> refusal != null ? CompletableFuture.completedFuture(refusal)
                        : upload(ref, partitions.get(ref), batches), lfs.blocking())));
        CompletableFuture.allOf(work.values().toArray(CompletableFuture[]::new)).whenComplete((ok, e) ->
                Async.onLoop(context.loop(), () -> {
                    try {
                        outcome.setSuccess(apply(partitions, work));
                    } catch (RuntimeException failure) {
                        outcome.setFailure(failure);
                    }
                }));
        return outcome;
    }

    private boolean enabled(String topic) {
        return topic != null && (allTopics || topics.contains(topic));
    }

    /** The batches of one partition that hold marked records; a batch that does not decode is left to the broker. */
    private List<MarkedBatch> scan(MemoryRecords records) {
        List<MarkedBatch> marked = new ArrayList<>();
        String defaultAlg = lfs.settings().defaultChecksum().wireName();
        try {
            int index = 0;
            for (MutableRecordBatch batch : records.batches()) {
                if (batch.magic() >= RecordBatch.MAGIC_VALUE_V2 && !batch.isControlBatch()) {
                    List<LfsBlob> blobs = new ArrayList<>();
                    for (Record record : batch) {
                        LfsBlob.of(record, defaultAlg).ifPresent(blobs::add);
                    }
                    if (!blobs.isEmpty()) {
                        marked.add(new MarkedBatch(index, blobs));
                    }
                }
                index++;
            }
        } catch (RuntimeException e) {
            LOGGER.debug("lfs rewrite skips records that do not decode: {}", e.toString());
            return List.of();
        }
        return marked;
    }

    /** Validates every blob of a partition before anything is uploaded; a refusal, or null when all pass. */
    private PartitionResult check(PartitionRef ref, List<MarkedBatch> batches) {
        for (MarkedBatch batch : batches) {
            for (LfsBlob blob : batch.blobs()) {
                String problem = problem(blob);
                if (problem != null) {
                    LOGGER.warn("lfs rewrite refuses topic={} partition={}: {}", ref.routingName(), ref.partition(),
                            problem);
                    lfs.metrics().request(ref.routingName(), false);
                    return PartitionResult.refused(problem.startsWith("blob size")
                            ? Errors.MESSAGE_TOO_LARGE : Errors.INVALID_RECORD);
                }
            }
        }
        return null;
    }

    private String problem(LfsBlob blob) {
        long max = lfs.settings().maxBlobSize();
        if (blob.value().length > max) {
            return "blob size " + blob.value().length + " exceeds max " + max;
        }
        ChecksumAlg alg = blob.checksumAlg().orElse(null);
        if (alg == null) {
            return "unsupported checksum algorithm " + blob.alg();
        }
        if (alg == ChecksumAlg.NONE && !blob.expected().isEmpty()) {
            return "a checksum was given with checksum algorithm none";
        }
        PayloadDigests.Result digest = digest(blob, alg);
        if (!blob.expected().isEmpty() && !blob.expected().equals(digest.checksum())) {
            return "checksum mismatch: expected " + blob.expected() + " got " + digest.checksum();
        }
        return null;
    }

    private static PayloadDigests.Result digest(LfsBlob blob, ChecksumAlg alg) {
        PayloadDigests digests = new PayloadDigests(alg);
        digests.update(blob.value(), 0, blob.value().length);
        return digests.finish();
    }

    /** Uploads every blob of a partition, then re-encodes its changed batches; on a failure deletes what was stored. */
    private CompletableFuture<PartitionResult> upload(PartitionRef ref, PartitionProduceData data,
                                                      List<MarkedBatch> batches) {
        String topic = ref.routingName();
        long started = System.nanoTime();
        Map<LfsBlob, Envelope> envelopes = new LinkedHashMap<>();
        List<CompletableFuture<Void>> uploads = new ArrayList<>();
        for (MarkedBatch batch : batches) {
            for (LfsBlob blob : batch.blobs()) {
                String key = lfs.keys().newKey(topic);
                PayloadDigests.Result digest = digest(blob, blob.checksumAlg().orElseThrow());
                Envelope envelope = new Envelope(Envelope.VERSION, lfs.settings().s3().bucket(), key,
                        blob.value().length, digest.sha256(), digest.checksum(), digest.alg().wireName(),
                        blob.contentType(), blob.originalHeaders(),
                        Instant.now().truncatedTo(ChronoUnit.SECONDS).toString(), lfs.settings().proxyId());
                uploads.add(lfs.s3().putObject(b -> b.bucket(envelope.bucket()).key(key)
                                .contentLength((long) blob.value().length), AsyncRequestBody.fromBytes(blob.value()))
                        .thenAccept(r -> {
                            synchronized (envelopes) {
                                envelopes.put(blob, envelope);
                            }
                        }));
            }
        }
        return CompletableFuture.allOf(uploads.toArray(CompletableFuture[]::new)).handleAsync((ok, error) -> {
            List<String> keys;
            synchronized (envelopes) {
                keys = envelopes.values().stream().map(Envelope::key).toList();
            }
            if (error != null) {
                lfs.metrics().s3Error();
                lfs.metrics().request(topic, false);
                LOGGER.warn("lfs rewrite upload failed topic={} partition={}: {}", topic, ref.partition(),
                        Async.unwrap(error).toString());
                keys.forEach(key -> lfs.janitor().deleteUnsent(topic, key, "", "upload of a sibling record failed"));
                return PartitionResult.refused(Errors.KAFKA_STORAGE_ERROR);
            }
            MemoryRecords rewritten;
            try {
                rewritten = reencode((MemoryRecords) data.records(), batches, envelopes);
            } catch (RuntimeException e) {
                LOGGER.warn("lfs rewrite cannot re-encode topic={} partition={}: {}", topic, ref.partition(),
                        e.toString());
                keys.forEach(key -> lfs.janitor().deleteUnsent(topic, key, "", "re-encoding failed"));
                return PartitionResult.refused(Errors.CORRUPT_MESSAGE);
            }
            lfs.metrics().observeUpload(System.nanoTime() - started);
            envelopes.values().forEach(e -> lfs.metrics().addUploadBytes(e.size()));
            lfs.metrics().request(topic, true);
            return PartitionResult.rewritten(rewritten, keys);
        }, lfs.blocking());
    }

    /** The partition's records with each marked batch re-encoded and every other batch copied as it is. */
    private static MemoryRecords reencode(MemoryRecords records, List<MarkedBatch> marked,
                                          Map<LfsBlob, Envelope> envelopes) {
        Map<Integer, MarkedBatch> byIndex = new HashMap<>();
        marked.forEach(m -> byIndex.put(m.index(), m));
        ByteBufferOutputStream out = new ByteBufferOutputStream(records.sizeInBytes());
        int index = 0;
        for (MutableRecordBatch batch : records.batches()) {
            MarkedBatch m = byIndex.get(index++);
            if (m == null) {
                batch.writeTo(out);
                continue;
            }
            Map<Long, BatchReencoder.Edit> edits = new HashMap<>();
            for (LfsBlob blob : m.blobs()) {
                edits.put(blob.offset(), new BatchReencoder.Edit(
                        ByteBuffer.wrap(EnvelopeCodec.encode(envelopes.get(blob))), blob.keptHeaders()));
            }
            out.write(BatchReencoder.reencode(batch, edits).buffer());
        }
        ByteBuffer buffer = out.buffer();
        buffer.flip();
        return MemoryRecords.readableRecords(buffer);
    }

    /** Replaces the records of the rewritten partitions, on the event loop, and builds the outcome. */
    private Outcome apply(Map<PartitionRef, PartitionProduceData> partitions,
                          Map<PartitionRef, CompletableFuture<PartitionResult>> work) {
        Map<PartitionRef, Errors> refused = new HashMap<>();
        Map<PartitionRef, List<String>> stored = new HashMap<>();
        work.forEach((ref, future) -> {
            PartitionResult result = future.handle((r, e) -> {
                if (e == null) {
                    return r;
                }
                LOGGER.warn("lfs rewrite failed topic={} partition={}: {}", ref.routingName(), ref.partition(),
                        Async.unwrap(e).toString());
                return PartitionResult.refused(Errors.UNKNOWN_SERVER_ERROR);
            }).join();
            if (result.error() != null) {
                refused.put(ref, result.error());
            } else {
                partitions.get(ref).setRecords(result.records());
                stored.put(ref, result.keys());
            }
        });
        return new RewriteOutcome(refused, stored);
    }

    /** Counts the objects of every rewritten partition that was not stored as orphans. */
    private final class RewriteOutcome implements Outcome {
        private final Map<PartitionRef, Errors> refused;
        private final Map<PartitionRef, List<String>> stored;

        RewriteOutcome(Map<PartitionRef, Errors> refused, Map<PartitionRef, List<String>> stored) {
            this.refused = refused;
            this.stored = stored;
        }

        @Override
        public Map<PartitionRef, Errors> refused() {
            return refused;
        }

        @Override
        public void settled(Map<PartitionRef, Errors> results) {
            stored.forEach((ref, keys) -> {
                Errors result = results.getOrDefault(ref, Errors.UNKNOWN_SERVER_ERROR);
                if (result != Errors.NONE) {
                    keys.forEach(key -> lfs.janitor().keepOrphan(ref.routingName(), key, "",
                            ObjectJanitor.REASON_PRODUCE_FAILED));
                }
            });
        }
    }

    /** A batch, by its position in the partition's records, and its marked records. */
    private record MarkedBatch(int index, List<LfsBlob> blobs) {
    }

    /** A partition rewritten (its new records and object keys) or refused (its error). */
    private record PartitionResult(MemoryRecords records, List<String> keys, Errors error) {
        static PartitionResult refused(Errors error) {
            return new PartitionResult(null, List.of(), error);
        }

        static PartitionResult rewritten(MemoryRecords records, List<String> keys) {
            return new PartitionResult(records, keys, null);
        }
    }
}
