package org.kafscale.proxy.lfs.uploads;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.kafscale.proxy.lfs.uploads.UploadsTestbed.MIB;
import static org.kafscale.proxy.lfs.uploads.UploadsTestbed.payload;
import static org.kafscale.proxy.lfs.uploads.UploadsTestbed.sha256;

import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.kafscale.proxy.lfs.LfsModule;
import org.kafscale.proxy.lfs.envelope.Envelope;
import org.kafscale.proxy.lfs.envelope.EnvelopeCodec;
import org.kafscale.proxy.lfs.http.LfsException;
import org.kafscale.proxy.lfs.uploads.UploadsTestbed.StoreKind;
import org.kafscale.proxy.testkit.Eventually;

import software.amazon.awssdk.core.async.AsyncRequestBody;

/**
 * The multipart service without HTTP, on both session stores, with two replicas that share only
 * the store and the bucket: real S3Proxy, real Kafka, real etcd.
 */
class UploadServiceIT {

    private static final String TOPIC = "uploads-core";
    private static final Duration TTL = Duration.ofHours(1);

    private static UploadsTestbed testbed;
    private static LfsModule replicaA;
    private static LfsModule replicaB;

    @BeforeAll
    static void start() throws Exception {
        testbed = UploadsTestbed.start(TOPIC);
        replicaA = testbed.startReplica(TTL, List.of());
        replicaB = testbed.startReplica(TTL, List.of());
    }

    @AfterAll
    static void stop() throws Exception {
        testbed.close();
    }

    @ParameterizedTest
    @EnumSource(StoreKind.class)
    void partsAlternatingBetweenTwoReplicasCompleteWithTheSha256OfTheWholeBody(StoreKind kind) throws Exception {
        // Given two replicas sharing the store
        MultipartUploads a = testbed.uploads(replicaA, kind, Clock.systemUTC());
        MultipartUploads b = testbed.uploads(replicaB, kind, Clock.systemUTC());
        byte[] part1 = payload(5 * MIB, 11);
        byte[] part2 = payload(5 * MIB, 12);
        byte[] part3 = payload(123_457, 13);
        long size = (long) part1.length + part2.length + part3.length;
        InitResponse init = a.init(request(size, null), "req-1", "127.0.0.1", Optional.empty()).join();

        // When the parts go to A, B, A and B completes
        PartReceipt r1 = put(a, init, 1, part1).join();
        PartReceipt r2 = put(b, init, 2, part2).join();
        PartReceipt r3 = put(a, init, 3, part3).join();
        Envelope envelope = complete(b, init, listed(r1), listed(r2), listed(r3)).join();

        // Then the envelope names the whole body, the object is the body, and Kafka has the record
        assertEquals(sha256(part1, part2, part3), envelope.sha256());
        assertEquals(size, envelope.size());
        assertEquals(init.s3Key(), envelope.key());
        assertEquals(sha256(part1, part2, part3), sha256(testbed.object(init.s3Key())));
        assertTrue(testbed.recordValues(TOPIC).stream().map(EnvelopeCodec::decode)
                .anyMatch(e -> e.key().equals(init.s3Key()) && e.sha256().equals(envelope.sha256())));
        assertThrows(LfsException.class, () -> rethrow(a.cancel(init.uploadId())), "the session is gone");
    }

    @ParameterizedTest
    @EnumSource(StoreKind.class)
    void aRetriedPartGetsTheSameEtagAndADifferentBodyIsAConflict(StoreKind kind) throws Exception {
        MultipartUploads a = testbed.uploads(replicaA, kind, Clock.systemUTC());
        MultipartUploads b = testbed.uploads(replicaB, kind, Clock.systemUTC());
        byte[] part1 = payload(5 * MIB, 21);
        InitResponse init = a.init(request(part1.length + 10L, null), "r", "", Optional.empty()).join();
        PartReceipt first = put(a, init, 1, part1).join();

        PartReceipt retried = put(b, init, 1, part1).join();

        assertEquals(first, retried);
        byte[] other = payload(5 * MIB, 22);
        assertError(409, "part_conflict", put(b, init, 1, other));
        a.cancel(init.uploadId()).join();
    }

    @ParameterizedTest
    @EnumSource(StoreKind.class)
    void aPartAheadOfTheNextExpectedOneIsRefusedOutOfOrder(StoreKind kind) {
        MultipartUploads a = testbed.uploads(replicaA, kind, Clock.systemUTC());
        InitResponse init = a.init(request(11L * MIB, null), "r", "", Optional.empty()).join();
        byte[] part2 = payload(5 * MIB, 31);

        assertError(409, "out_of_order", put(a, init, 2, part2));
        a.cancel(init.uploadId()).join();
    }

    @ParameterizedTest
    @EnumSource(StoreKind.class)
    void completeRefusesAnUnfinishedUploadAndAListThatLeavesAPartOut(StoreKind kind) {
        MultipartUploads a = testbed.uploads(replicaA, kind, Clock.systemUTC());
        byte[] part1 = payload(5 * MIB, 41);
        byte[] part2 = payload(1000, 42);
        InitResponse init = a.init(request(part1.length + part2.length, null), "r", "", Optional.empty()).join();
        PartReceipt r1 = put(a, init, 1, part1).join();

        assertError(400, "incomplete_upload", complete(a, init, listed(r1)));

        PartReceipt r2 = put(a, init, 2, part2).join();
        assertError(400, "invalid_request", a.complete(init.uploadId(), CompleteRequest.parse("{oops".getBytes(
                java.nio.charset.StandardCharsets.UTF_8)), "r", Optional.empty()));
        assertError(400, "invalid_request", complete(a, init));
        assertError(400, "invalid_part", complete(a, init, listed(r2)));
        assertError(400, "invalid_part", complete(a, init, listed(r2), listed(r1)));
        assertFalse(testbed.objectExists(init.s3Key()));
        a.cancel(init.uploadId()).join();
    }

    @ParameterizedTest
    @EnumSource(StoreKind.class)
    void aChecksumMismatchLeavesNoObjectAndNoOpenUpload(StoreKind kind) {
        MultipartUploads a = testbed.uploads(replicaA, kind, Clock.systemUTC());
        byte[] body = payload(2000, 51);
        InitResponse init = a.init(request(body.length, "0".repeat(64)), "r", "", Optional.empty()).join();
        PartReceipt r1 = put(a, init, 1, body).join();

        assertError(400, "checksum_mismatch", complete(a, init, listed(r1)));

        assertFalse(testbed.objectExists(init.s3Key()));
        assertEquals(List.of(), testbed.openUploads(init.s3Key()));
        assertError(404, "upload_not_found", complete(a, init, listed(r1)));
    }

    @ParameterizedTest
    @EnumSource(StoreKind.class)
    void cancelAbortsTheS3Upload(StoreKind kind) {
        MultipartUploads a = testbed.uploads(replicaA, kind, Clock.systemUTC());
        MultipartUploads b = testbed.uploads(replicaB, kind, Clock.systemUTC());
        InitResponse init = a.init(request(10, null), "r", "", Optional.empty()).join();
        assertEquals(1, testbed.openUploads(init.s3Key()).size());

        b.cancel(init.uploadId()).join();

        assertEquals(List.of(), testbed.openUploads(init.s3Key()));
        assertError(404, "upload_not_found", a.cancel(init.uploadId()));
    }

    @ParameterizedTest
    @EnumSource(StoreKind.class)
    void aPartForAnExpiredSessionGets410AndEndsIt(StoreKind kind) {
        MutableClock clock = new MutableClock();
        MultipartUploads a = testbed.uploads(replicaA, kind, clock);
        InitResponse init = a.init(request(10, null), "r", "", Optional.empty()).join();

        clock.advance(TTL.plusSeconds(1));

        byte[] body = payload(10, 61);
        assertError(410, "upload_expired", put(a, init, 1, body));
        assertEquals(List.of(), testbed.openUploads(init.s3Key()));
        assertError(404, "upload_not_found", a.cancel(init.uploadId()));
    }

    @ParameterizedTest
    @EnumSource(StoreKind.class)
    void twoReplicasSweepingTheSameExpiredSessionAtOnceAbortItOnceWithoutErrors(StoreKind kind) {
        MutableClock clock = new MutableClock();
        MultipartUploads a = testbed.uploads(replicaA, kind, clock);
        MultipartUploads b = testbed.uploads(replicaB, kind, clock);
        InitResponse init = a.init(request(10, null), "r", "", Optional.empty()).join();
        double orphansBefore = replicaA.context().metrics().orphanCount() + replicaB.context().metrics().orphanCount();
        clock.advance(TTL.plusSeconds(1));

        CompletableFuture<Integer> sweepA = a.sweepExpired();
        CompletableFuture<Integer> sweepB = b.sweepExpired();
        CompletableFuture.allOf(sweepA, sweepB).join();

        assertEquals(List.of(), testbed.openUploads(init.s3Key()));
        assertError(404, "upload_not_found", a.cancel(init.uploadId()));
        assertEquals(orphansBefore,
                replicaA.context().metrics().orphanCount() + replicaB.context().metrics().orphanCount());
    }

    @ParameterizedTest
    @EnumSource(StoreKind.class)
    void thePeriodicSweepAbortsTheUploadOfAnExpiredSession(StoreKind kind) throws Exception {
        // Given a replica whose sessions live one second, with its sweeper running
        Duration shortTtl = Duration.ofSeconds(2);
        LfsModule shortLived = testbed.startReplica(shortTtl, List.of());
        MultipartUploads uploads = testbed.uploads(shortLived, kind, Clock.systemUTC());
        try (ExpiredUploadSweeper sweeper = new ExpiredUploadSweeper(uploads)) {
            java.util.concurrent.ScheduledExecutorService scheduler =
                    java.util.concurrent.Executors.newSingleThreadScheduledExecutor();
            try {
                sweeper.start(scheduler, ExpiredUploadSweeper.intervalFor(shortTtl));
                InitResponse init = uploads.init(request(10, null), "r", "", Optional.empty()).join();
                assertEquals(1, testbed.openUploads(init.s3Key()).size());

                // Then the sweep aborts its S3 upload once it has expired, and forgets it
                UploadSessionStore store = testbed.store(kind, shortLived);
                Eventually.await(Duration.ofSeconds(30), "the expired upload to be aborted and its session deleted",
                        () -> testbed.openUploads(init.s3Key()).isEmpty()
                                && store.find(init.uploadId()).join().isEmpty());
            } finally {
                scheduler.shutdownNow();
            }
        }
    }

    @ParameterizedTest
    @EnumSource(StoreKind.class)
    void theSamePartSentToTwoReplicasAtOnceIsRecordedOnceAndBothGetItsEtag(StoreKind kind) {
        MultipartUploads a = testbed.uploads(replicaA, kind, Clock.systemUTC());
        MultipartUploads b = testbed.uploads(replicaB, kind, Clock.systemUTC());
        byte[] part1 = payload(5 * MIB, 71);
        byte[] part2 = payload(10, 72);
        InitResponse init = a.init(request(part1.length + part2.length, null), "r", "", Optional.empty()).join();

        // Whichever records first, the other recognises the same bytes (before or after its own upload)
        CompletableFuture<PartReceipt> viaA = put(a, init, 1, part1);
        CompletableFuture<PartReceipt> viaB = put(b, init, 1, part1);

        assertEquals(viaA.join(), viaB.join());
        PartReceipt r2 = put(b, init, 2, part2).join();
        Envelope envelope = complete(a, init, listed(viaA.join()), listed(r2)).join();
        assertEquals(sha(part1, part2), envelope.sha256());
    }

    /**
     * etcd only: the bucket store's compare-and-set is only as atomic as the store's conditional
     * writes. AWS S3's are; S3Proxy checks the ETag and then writes, so two completes at the same
     * moment both win there (seen in 5 of 25 runs) and two records are produced.
     */
    @org.junit.jupiter.api.Test
    void twoCompletesAtOnceOnTwoReplicasProduceOneRecord() {
        MultipartUploads a = testbed.uploads(replicaA, StoreKind.ETCD, Clock.systemUTC());
        MultipartUploads b = testbed.uploads(replicaB, StoreKind.ETCD, Clock.systemUTC());
        byte[] body = payload(3000, 91);
        InitResponse init = a.init(request(body.length, null), "r", "", Optional.empty()).join();
        PartReceipt r1 = put(a, init, 1, body).join();

        CompletableFuture<Envelope> viaA = complete(a, init, listed(r1));
        CompletableFuture<Envelope> viaB = complete(b, init, listed(r1));

        // One of them completes; the other finds it completing (409) or already gone (404)
        List<CompletableFuture<Envelope>> both = List.of(viaA, viaB);
        CompletableFuture.allOf(viaA, viaB).handle((v, e) -> null).join();
        assertEquals(1, both.stream().filter(f -> !f.isCompletedExceptionally()).count());
        for (CompletableFuture<Envelope> loser : both.stream().filter(CompletableFuture::isCompletedExceptionally)
                .toList()) {
            LfsException error = assertThrows(LfsException.class, () -> rethrow(loser));
            assertTrue(List.of("upload_completing", "upload_not_found").contains(error.code()), error.code());
        }
        assertEquals(1, testbed.recordValues(TOPIC).stream().map(EnvelopeCodec::decode)
                .filter(e -> e.key().equals(init.s3Key())).count());
    }

    @ParameterizedTest
    @EnumSource(StoreKind.class)
    void theRequestedCrc32CoversPartsTakenByDifferentReplicas(StoreKind kind) {
        MultipartUploads a = testbed.uploads(replicaA, kind, Clock.systemUTC());
        MultipartUploads b = testbed.uploads(replicaB, kind, Clock.systemUTC());
        byte[] part1 = payload(5 * MIB, 81);
        byte[] part2 = payload(999, 82);
        java.util.zip.CRC32 crc = new java.util.zip.CRC32();
        crc.update(part1);
        crc.update(part2);
        String expected = String.format("%08x", crc.getValue());
        InitResponse init = a.init(new InitRequest(TOPIC, null, java.util.OptionalInt.empty(), "text/plain",
                part1.length + part2.length, expected, org.kafscale.proxy.lfs.checksum.ChecksumAlg.CRC32), "r", "",
                Optional.empty()).join();

        PartReceipt r1 = put(a, init, 1, part1).join();
        PartReceipt r2 = put(b, init, 2, part2).join();
        Envelope envelope = complete(a, init, listed(r1), listed(r2)).join();

        assertEquals("crc32", envelope.checksumAlg());
        assertEquals(expected, envelope.checksum());
        assertEquals(sha(part1, part2), envelope.sha256());
    }

    @ParameterizedTest
    @EnumSource(StoreKind.class)
    void initForATopicThatDoesNotExistStartsNoS3Upload(StoreKind kind) {
        MultipartUploads a = testbed.uploads(replicaA, kind, Clock.systemUTC());

        assertError(400, "invalid_topic", a.init(new InitRequest("no-such-topic", null, java.util.OptionalInt.empty(),
                "a/b", 10, null, org.kafscale.proxy.lfs.checksum.ChecksumAlg.SHA256), "r", "", Optional.empty()));

        assertEquals(List.of(), testbed.openUploads(UploadsTestbed.NAMESPACE + "/no-such-topic/"));
    }

    @org.junit.jupiter.api.Test
    void withEtcdDownInitAnswers503AndLeavesNoS3UploadBehind() {
        MultipartUploads a = testbed.uploads(replicaA, StoreKind.ETCD, Clock.systemUTC());
        String topicPrefix = UploadsTestbed.NAMESPACE + "/" + TOPIC + "/";
        List<String> openBefore = testbed.openUploads(topicPrefix);
        testbed.etcd.stop();
        try {
            assertError(503, "session_store_unavailable", a.init(request(10, null), "r", "", Optional.empty()));
            assertEquals(openBefore, testbed.openUploads(topicPrefix));
        } finally {
            testbed.etcd.start();
        }
    }

    private static InitRequest request(long size, String checksum) {
        return new InitRequest(TOPIC, "a2V5", java.util.OptionalInt.of(0), "application/octet-stream", size,
                checksum, org.kafscale.proxy.lfs.checksum.ChecksumAlg.SHA256);
    }

    private static String sha(byte[]... pieces) {
        try {
            return sha256(pieces);
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }

    private static CompletableFuture<PartReceipt> put(MultipartUploads uploads, InitResponse init, int n, byte[] body) {
        return uploads.putPart(init.uploadId(), n, body.length, AsyncRequestBody.fromBytes(body), "test",
                Optional.empty());
    }

    private static CompletableFuture<Envelope> complete(MultipartUploads uploads, InitResponse init,
                                                        ListedPart... parts) {
        return uploads.complete(init.uploadId(), CompleteRequest.of(List.of(parts)), "test", Optional.empty());
    }

    private static ListedPart listed(PartReceipt receipt) {
        return new ListedPart(receipt.partNumber(), receipt.etag());
    }

    private static void assertError(int status, String code, CompletableFuture<?> outcome) {
        LfsException error = assertThrows(LfsException.class, () -> rethrow(outcome));
        assertEquals(code, error.code(), error.getMessage());
        assertEquals(status, error.status(), error.getMessage());
    }

    private static void rethrow(CompletableFuture<?> outcome) throws Throwable {
        try {
            outcome.join();
        } catch (CompletionException e) {
            throw MultipartUploads.answerFor(e);
        }
    }
}
