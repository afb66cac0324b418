package org.kafscale.proxy.lfs.uploads;

import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import io.etcd.jetcd.ByteSequence;
import io.etcd.jetcd.Client;
import io.etcd.jetcd.KeyValue;
import io.etcd.jetcd.op.Cmp;
import io.etcd.jetcd.op.CmpTarget;
import io.etcd.jetcd.op.Op;
import io.etcd.jetcd.options.GetOption;
import io.etcd.jetcd.options.PutOption;
import org.kafscale.proxy.lfs.Async;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Sessions as keys {@code /kafscale/lfs/uploads/<id>} in the etcd the proxy already reads.
 *
 * <p>The prefix is outside every prefix the proxy reads or watches ({@code /kafscale/metadata/},
 * the lease prefixes), so a session write never wakes the topology watch. Updates are
 * compare-and-set on the key's mod revision. Each key holds a lease that outlives the session's
 * expiry by {@code leaseGrace}: until then a late part gets 410 and the sweeper (which aborts the
 * S3 upload, something etcd cannot do) ends the session; the lease only makes sure etcd is
 * cleaned up when no proxy is left to sweep.
 */
public final class EtcdUploadSessionStore implements UploadSessionStore {

    public static final String PREFIX = "/kafscale/lfs/uploads/";

    private static final Logger LOGGER = LoggerFactory.getLogger(EtcdUploadSessionStore.class);
    private static final Duration CALL_DEADLINE = Duration.ofSeconds(5);

    private final Client etcd;
    private final Duration leaseGrace;
    private final Clock clock;

    /** {@code etcd} stays owned by the caller (the proxy shares one client). */
    public EtcdUploadSessionStore(Client etcd, Duration leaseGrace, Clock clock) {
        this.etcd = etcd;
        this.leaseGrace = leaseGrace;
        this.clock = clock;
    }

    @Override
    public CompletableFuture<Boolean> create(UploadSession session) {
        long ttlSeconds = Math.max(1, Duration.between(clock.instant(), session.expiry()).plus(leaseGrace).toSeconds());
        ByteSequence key = key(session.id());
        return call(etcd.getLeaseClient().grant(ttlSeconds), "grant a lease for upload " + session.id())
                .thenCompose(lease -> call(etcd.getKVClient().txn()
                        .If(new Cmp(key, Cmp.Op.EQUAL, CmpTarget.version(0)))
                        .Then(Op.put(key, ByteSequence.from(UploadSessionCodec.encode(session)), leased(lease.getID())))
                        .commit(), "create upload " + session.id())
                        .thenApply(txn -> {
                            if (!txn.isSucceeded()) {
                                revokeQuietly(lease.getID());
                            }
                            return txn.isSucceeded();
                        }));
    }

    @Override
    public CompletableFuture<Optional<StoredSession>> find(String id) {
        return call(etcd.getKVClient().get(key(id)), "read upload " + id)
                .thenApply(response -> response.getKvs().stream().findFirst().map(EtcdUploadSessionStore::stored));
    }

    @Override
    public CompletableFuture<Boolean> replace(StoredSession current, UploadSession next) {
        Version version = Version.parse(current.version());
        ByteSequence key = key(next.id());
        return call(etcd.getKVClient().txn()
                .If(new Cmp(key, Cmp.Op.EQUAL, CmpTarget.modRevision(version.modRevision())))
                .Then(Op.put(key, ByteSequence.from(UploadSessionCodec.encode(next)), leased(version.lease())))
                .commit(), "update upload " + next.id())
                .thenApply(txn -> txn.isSucceeded());
    }

    @Override
    public CompletableFuture<Void> delete(StoredSession stored) {
        return call(etcd.getKVClient().delete(key(stored.session().id())), "delete upload " + stored.session().id())
                .thenRun(() -> revokeQuietly(Version.parse(stored.version()).lease()));
    }

    @Override
    public CompletableFuture<List<StoredSession>> all() {
        return call(etcd.getKVClient().get(bytes(PREFIX), GetOption.builder().isPrefix(true).build()), "list uploads")
                .thenApply(response -> response.getKvs().stream().map(EtcdUploadSessionStore::stored).toList());
    }

    @Override
    public String describe() {
        return "etcd " + PREFIX;
    }

    private static StoredSession stored(KeyValue kv) {
        return new StoredSession(UploadSessionCodec.decode(kv.getValue().getBytes()),
                new Version(kv.getModRevision(), kv.getLease()).toString());
    }

    private static PutOption leased(long lease) {
        return PutOption.builder().withLeaseId(lease).build();
    }

    private void revokeQuietly(long lease) {
        if (lease == 0) {
            return;
        }
        // A lease left behind expires on its own; revoking only frees it sooner.
        etcd.getLeaseClient().revoke(lease).whenComplete((ok, error) -> {
            if (error != null) {
                LOGGER.debug("cannot revoke upload session lease {}: {}", lease, error.toString());
            }
        });
    }

    private static ByteSequence key(String id) {
        return bytes(PREFIX + id);
    }

    private static ByteSequence bytes(String text) {
        return ByteSequence.from(text, StandardCharsets.UTF_8);
    }

    /** An etcd call with a deadline, its failure turned into {@link SessionStoreException}. */
    private static <T> CompletableFuture<T> call(CompletableFuture<T> call, String what) {
        return call.orTimeout(CALL_DEADLINE.toMillis(), TimeUnit.MILLISECONDS).exceptionally(error -> {
            Throwable cause = Async.unwrap(error);
            throw new SessionStoreException("cannot " + what + " in etcd: " + cause, cause);
        });
    }

    /** What a conditional update needs: the revision it saw, and the lease to keep. */
    private record Version(long modRevision, long lease) {

        static Version parse(String text) {
            int slash = text.indexOf('/');
            return new Version(Long.parseLong(text.substring(0, slash)), Long.parseLong(text.substring(slash + 1)));
        }

        @Override
        public String toString() {
            return modRevision + "/" + lease;
        }
    }
}
