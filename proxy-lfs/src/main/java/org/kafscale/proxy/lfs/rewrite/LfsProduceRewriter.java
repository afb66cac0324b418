package org.kafscale.proxy.lfs.rewrite;

import io.netty.util.concurrent.Future;
import io.netty.util.concurrent.Promise;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.nio.ByteBuffer;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.function.Supplier;
import org.apache.kafka.common.message.ProduceRequestData.PartitionProduceData;
import org.apache.kafka.common.protocol.Errors;
import org.kafscale.proxy.core.codec.RecordEdits;
import org.kafscale.proxy.core.codec.RecordSets;
import org.kafscale.proxy.core.server.ConnectionContext;
import org.kafscale.proxy.core.hooks.ProduceRewriter;
import org.kafscale.proxy.core.topology.PartitionRef;
import org.kafscale.proxy.lfs.Async;
import org.kafscale.proxy.lfs.LfsContext;
import org.kafscale.proxy.lfs.checksum.ChecksumAlg;
import org.kafscale.proxy.lfs.checksum.PayloadDigests;
import org.kafscale.proxy.lfs.envelope.Envelope;
import org.kafscale.proxy.lfs.envelope.EnvelopeCodec;
import org.kafscale.proxy.lfs.limits.ConcurrencyGate;
import org.kafscale.proxy.lfs.publish.ObjectJanitor;
import software.amazon.awssdk.core.async.AsyncRequestBody;

/**
 * The Kafka-side LFS rewrite (spec §4.10): in a Produce through the Kafka listener, each record
 * with an {@code LFS_BLOB} header, on a topic the operator enabled, has its value uploaded to S3
 * and replaced by the envelope; {@code LFS_BLOB} is removed, every other header stays. Only the
 * batches that hold such records are re-encoded ({@link RecordEdits}); batches of topics not
 * enabled are never opened.
 *
 * <p>On an offload topic ({@link OffloadSettings}) a record qualifies by size instead: a value
 * over the threshold takes the same path with no header needed, so any Kafka client can produce
 * it; smaller records and tombstones pass unchanged, and a partition that cannot hold one over
 * the threshold (read from its batch headers, {@link RecordSets#mayHoldValueOver}) is not decoded at all.
 *
 * <p>A partition is refused, unsent and with no object left behind, when one of its blobs fails:
 * a checksum mismatch or an unknown {@code LFS_BLOB_ALG} ({@code INVALID_RECORD}, not retriable:
 * the same bytes fail again), a value over the max blob size ({@code MESSAGE_TOO_LARGE}), or an
 * S3 failure or the LFS upload bound reached ({@code KAFKA_STORAGE_ERROR}, retriable). Checksums
 * are verified before the upload.
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
    private final OffloadSettings offload;

    /**
     * @param lfs the LFS services
     * @param topics the topics to rewrite; {@code *} for all
     */
    public LfsProduceRewriter(LfsContext lfs, Set<String> topics) {
        this(lfs, topics, OffloadSettings.OFF);
    }

    /**
     * @param lfs the LFS services
     * @param topics the topics whose {@code LFS_BLOB} records are rewritten; {@code *} for all
     * @param offload the topics whose records over a size are rewritten, header or not
     */
    public LfsProduceRewriter(LfsContext lfs, Set<String> topics, OffloadSettings offload) {
        this.lfs = lfs;
        this.topics = Set.copyOf(topics);
        this.allTopics = topics.contains("*");
        this.offload = offload;
    }

    @Override
    public Future<Outcome> rewrite(ConnectionContext context, Map<PartitionRef, PartitionProduceData> partitions) {
        Map<PartitionRef, List<LfsBlob>> marked = new LinkedHashMap<>();
        partitions.forEach((ref, data) -> {
            boolean byMarker = enabled(ref.routingName());
            OffloadSettings bySize = offload.appliesTo(ref.routingName())
                    && RecordSets.mayHoldValueOver(data.records(), offload.thresholdBytes())
                    ? offload : OffloadSettings.OFF;
            if (byMarker || bySize.isOn()) {
                List<LfsBlob> blobs = scan(data, byMarker, bySize);
                if (!blobs.isEmpty()) {
                    marked.put(ref, blobs);
                }
            }
        });
        if (marked.isEmpty()) {
            return null;
        }
        Promise<Outcome> outcome = context.loop().newPromise();
        Map<PartitionRef, CompletableFuture<PartitionResult>> work = new LinkedHashMap<>();
        String client = clientHost(context.clientAddress());
        marked.forEach((ref, blobs) -> work.put(ref, admitted(ref, client, () -> CompletableFuture
                .supplyAsync(() -> check(ref, blobs), lfs.blocking())
                .thenComposeAsync(refusal -> refusal != null ? CompletableFuture.completedFuture(refusal)
                        : upload(ref, partitions.get(ref), blobs), lfs.blocking()))));
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

    /**
     * {@code rewrite} under one permit of the LFS upload bound ({@code KAFSCALE_LFS_PROXY_MAX_UPLOADS},
     * per client too), held until its uploads are done: the partition's payload copies and S3 calls
     * are what the bound limits. Past the bound the partition is refused, retriably and with nothing
     * stored, so the producer sends it again later instead of the proxy holding it meanwhile.
     */
    private CompletableFuture<PartitionResult> admitted(PartitionRef ref, String client,
                                                        Supplier<CompletableFuture<PartitionResult>> rewrite) {
        Optional<ConcurrencyGate.Permit> permit = lfs.limits().uploads().tryAcquire(client);
        if (permit.isEmpty()) {
            LOGGER.debug("lfs rewrite refuses topic={} partition={}: too many uploads at once", ref.routingName(),
                    ref.partition());
            return CompletableFuture.completedFuture(PartitionResult.refused(Errors.KAFKA_STORAGE_ERROR));
        }
        return rewrite.get().whenComplete((result, error) -> permit.get().close());
    }

    /** The address a client's uploads are counted under: its host, as the LFS listener counts it. */
    private static String clientHost(SocketAddress address) {
        return address instanceof InetSocketAddress inet && inet.getAddress() != null
                ? inet.getAddress().getHostAddress() : String.valueOf(address);
    }

    private boolean enabled(String topic) {
        return topic != null && (allTopics || topics.contains(topic));
    }

    /**
     * The records of one partition to rewrite: marked ones when {@code byMarker}, those over the
     * threshold when {@code bySize} is on; records that do not decode are left to the broker.
     */
    private List<LfsBlob> scan(PartitionProduceData data, boolean byMarker, OffloadSettings bySize) {
        List<LfsBlob> blobs = new ArrayList<>();
        String defaultAlg = lfs.settings().defaultChecksum().wireName();
        try {
            RecordEdits.forEachEditable(data.records(), record -> LfsBlob.of(record, defaultAlg, byMarker, bySize)
                    .ifPresent(blobs::add));
        } catch (RuntimeException e) {
            LOGGER.debug("lfs rewrite skips records that do not decode: {}", e.toString());
            return List.of();
        }
        return blobs;
    }

    /** Validates every blob of a partition before anything is uploaded; a refusal, or null when all pass. */
    private PartitionResult check(PartitionRef ref, List<LfsBlob> blobs) {
        for (LfsBlob blob : blobs) {
            String problem = problem(blob);
            if (problem != null) {
                LOGGER.warn("lfs rewrite refuses topic={} partition={}: {}", ref.routingName(), ref.partition(),
                        problem);
                lfs.metrics().request(ref.routingName(), false);
                return PartitionResult.refused(problem.startsWith("blob size")
                        ? Errors.MESSAGE_TOO_LARGE : Errors.INVALID_RECORD);
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
                                                      List<LfsBlob> blobs) {
        String topic = ref.routingName();
        long started = System.nanoTime();
        Map<LfsBlob, Envelope> envelopes = new LinkedHashMap<>();
        List<CompletableFuture<Void>> uploads = new ArrayList<>();
        for (LfsBlob blob : blobs) {
            String key = lfs.keys().newKey(topic);
            PayloadDigests.Result digest = digest(blob, blob.checksumAlg().orElseThrow());
            Envelope envelope = new Envelope(Envelope.VERSION, lfs.settings().s3().bucket(), key,
                    blob.value().length, digest.sha256(), digest.checksum(), digest.alg().wireName(),
                    blob.contentType(), blob.originalHeaders(),
                    Instant.now().truncatedTo(ChronoUnit.SECONDS).toString(), lfs.settings().proxyId());
            uploads.add(lfs.s3().putObject(b -> b.bucket(envelope.bucket()).key(key)
                            .contentLength((long) blob.value().length),
                            // The copy is ours and never changes: no second copy of a payload of many MiB.
                            AsyncRequestBody.fromBytesUnsafe(blob.value()))
                    .thenAccept(r -> {
                        synchronized (envelopes) {
                            envelopes.put(blob, envelope);
                        }
                    }));
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
            PartitionProduceData rewritten;
            try {
                rewritten = RecordEdits.apply(data, edits(blobs, envelopes));
            } catch (RuntimeException e) {
                LOGGER.warn("lfs rewrite cannot re-encode topic={} partition={}: {}", topic, ref.partition(),
                        e.toString());
                keys.forEach(key -> lfs.janitor().deleteUnsent(topic, key, "", "re-encoding failed"));
                return PartitionResult.refused(Errors.CORRUPT_MESSAGE);
            }
            lfs.metrics().observeUpload(System.nanoTime() - started);
            envelopes.values().forEach(e -> lfs.metrics().addUploadBytes(e.size()));
            blobs.stream().filter(LfsBlob::bySize).forEach(b -> lfs.metrics().offloaded(b.value().length));
            lfs.metrics().request(topic, true);
            return PartitionResult.rewritten(rewritten, keys);
        }, lfs.blocking());
    }

    /** Each blob's value replaced by its envelope, its headers by all but {@code LFS_BLOB}. */
    private static Map<RecordEdits.Position, RecordEdits.Edit> edits(List<LfsBlob> blobs,
                                                                     Map<LfsBlob, Envelope> envelopes) {
        Map<RecordEdits.Position, RecordEdits.Edit> edits = new HashMap<>();
        for (LfsBlob blob : blobs) {
            edits.put(blob.position(), new RecordEdits.Edit(
                    ByteBuffer.wrap(EnvelopeCodec.encode(envelopes.get(blob))), blob.keptHeaders()));
        }
        return edits;
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
                partitions.get(ref).setRecords(result.rewritten().records());
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

    /** A partition rewritten (its data with the new records, and object keys) or refused (its error). */
    private record PartitionResult(PartitionProduceData rewritten, List<String> keys, Errors error) {
        static PartitionResult refused(Errors error) {
            return new PartitionResult(null, List.of(), error);
        }

        static PartitionResult rewritten(PartitionProduceData rewritten, List<String> keys) {
            return new PartitionResult(rewritten, keys, null);
        }
    }
}
