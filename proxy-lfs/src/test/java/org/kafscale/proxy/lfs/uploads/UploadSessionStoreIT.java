package org.kafscale.proxy.lfs.uploads;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.URI;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.UUID;

import io.etcd.jetcd.Client;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.kafscale.proxy.lfs.s3.S3Clients;
import org.kafscale.proxy.lfs.s3.S3Settings;
import org.kafscale.proxy.lfs.uploads.UploadsTestbed.StoreKind;
import org.kafscale.proxy.testkit.EtcdProcess;
import org.kafscale.proxy.testkit.S3Server;

import software.amazon.awssdk.services.s3.S3AsyncClient;

/** Both session stores against the real thing: etcd, and S3Proxy with conditional writes. */
class UploadSessionStoreIT {

    private static S3Server s3;
    private static EtcdProcess etcd;
    private static Client etcdClient;
    private static S3AsyncClient s3Client;

    @BeforeAll
    static void start() {
        s3 = S3Server.start();
        s3.createBucket(UploadsTestbed.BUCKET);
        etcd = EtcdProcess.startNew();
        etcdClient = Client.builder().endpoints(etcd.endpoint()).build();
        s3Client = S3Clients.asyncClient(new S3Settings(UploadsTestbed.BUCKET, "us-east-1", Optional.of(s3.endpoint()),
                Optional.<URI>empty(), s3.accessKey(), s3.secretKey(), "", true, false, Duration.ofSeconds(30)));
    }

    @AfterAll
    static void stop() {
        s3Client.close();
        etcdClient.close();
        etcd.close();
        s3.close();
    }

    private static UploadSessionStore store(StoreKind kind) {
        return kind == StoreKind.ETCD
                ? new EtcdUploadSessionStore(etcdClient, Duration.ofMinutes(10), Clock.systemUTC())
                : new S3UploadSessionStore(s3Client, UploadsTestbed.BUCKET, UploadsTestbed.NAMESPACE);
    }

    @ParameterizedTest
    @EnumSource(StoreKind.class)
    void aCreatedSessionIsFoundWithItsFieldsIntact(StoreKind kind) {
        UploadSessionStore store = store(kind);
        UploadSession session = session();

        assertTrue(store.create(session).join());

        UploadSession found = store.find(session.id()).join().orElseThrow().session();
        assertEquals(session.objectKey(), found.objectKey());
        assertEquals(session.expiresAt(), found.expiresAt());
        assertEquals(List.of(new UploadedPart(1, 5, "ab", "\"e1\"")), found.parts());
    }

    @ParameterizedTest
    @EnumSource(StoreKind.class)
    void aSecondCreateWithTheSameIdIsRefused(StoreKind kind) {
        UploadSessionStore store = store(kind);
        UploadSession session = session();
        assertTrue(store.create(session).join());

        assertFalse(store.create(session).join());
    }

    @ParameterizedTest
    @EnumSource(StoreKind.class)
    void aReplaceBasedOnAStaleReadLosesToTheOneThatWroteFirst(StoreKind kind) {
        // Given two replicas that read the same version
        UploadSessionStore store = store(kind);
        UploadSession session = session();
        store.create(session).join();
        StoredSession readByA = store.find(session.id()).join().orElseThrow();
        StoredSession readByB = store.find(session.id()).join().orElseThrow();

        // When A writes first
        assertTrue(store.replace(readByA, session.withCompleting(true)).join());

        // Then B's write, based on what it read, is refused and A's stays
        assertFalse(store.replace(readByB, session.withEndingClaim("b")).join());
        UploadSession stored = store.find(session.id()).join().orElseThrow().session();
        assertTrue(stored.completing());
        assertEquals(null, stored.endingClaim());
    }

    @ParameterizedTest
    @EnumSource(StoreKind.class)
    void deleteIsIdempotentAndAllListsWhatIsLeft(StoreKind kind) {
        UploadSessionStore store = store(kind);
        UploadSession kept = session();
        UploadSession deleted = session();
        store.create(kept).join();
        store.create(deleted).join();
        StoredSession toDelete = store.find(deleted.id()).join().orElseThrow();

        store.delete(toDelete).join();
        store.delete(toDelete).join();

        assertTrue(store.find(deleted.id()).join().isEmpty());
        List<String> ids = store.all().join().stream().map(s -> s.session().id()).toList();
        assertTrue(ids.contains(kept.id()), ids.toString());
        assertFalse(ids.contains(deleted.id()), ids.toString());
    }

    private static UploadSession session() {
        Instant now = Instant.now();
        return new UploadSession(UUID.randomUUID().toString(), UploadsTestbed.BUCKET, "default/t/lfs/obj-x", "s3-id",
                "t", 0, null, null, "application/octet-stream", 10, 5, "sha256", null, now.toString(),
                now.plus(Duration.ofHours(1)).toString(), List.of(new UploadedPart(1, 5, "ab", "\"e1\"")), 5,
                SessionDigests.start(org.kafscale.proxy.lfs.checksum.ChecksumAlg.SHA256).state().sha256(), null,
                false, null);
    }
}
