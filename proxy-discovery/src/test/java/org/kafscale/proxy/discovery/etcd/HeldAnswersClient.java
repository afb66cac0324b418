package org.kafscale.proxy.discovery.etcd;

import io.etcd.jetcd.ByteSequence;
import io.etcd.jetcd.Client;
import io.etcd.jetcd.KV;
import io.etcd.jetcd.Txn;
import io.etcd.jetcd.kv.CompactResponse;
import io.etcd.jetcd.kv.DeleteResponse;
import io.etcd.jetcd.kv.GetResponse;
import io.etcd.jetcd.kv.PutResponse;
import io.etcd.jetcd.kv.TxnResponse;
import io.etcd.jetcd.op.Cmp;
import io.etcd.jetcd.op.Op;
import io.etcd.jetcd.options.CompactOption;
import io.etcd.jetcd.options.DeleteOption;
import io.etcd.jetcd.options.GetOption;
import io.etcd.jetcd.options.PutOption;
import io.etcd.jetcd.options.TxnOption;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Supplier;

/**
 * A real jetcd client to a real etcd whose answers to reads ({@code get}, and transactions, as
 * the topology reads in one) can be held back: a slow read, on demand, which a healthy etcd on
 * loopback cannot show. Reads reach etcd at once and etcd answers them; only the delivery of the
 * answer to the caller waits for {@link #release()}. Everything else (watches, writes) goes
 * through untouched.
 */
final class HeldAnswersClient extends ForwardingClient {
    private final KV kv;
    private final AtomicInteger reads = new AtomicInteger();
    private final AtomicInteger answered = new AtomicInteger();
    private final AtomicReference<CompletableFuture<Void>> gate = new AtomicReference<>(CompletableFuture.completedFuture(null));

    HeldAnswersClient(Client etcd) {
        super(etcd);
        this.kv = new HeldKv(etcd.getKVClient());
    }

    /** From now on, answers wait for {@link #release()}. */
    void hold() {
        gate.set(new CompletableFuture<>());
    }

    /** Delivers the held answers, and later ones at once. */
    void release() {
        gate.get().complete(null);
    }

    /** Reads (gets and transactions) sent to etcd so far. */
    int reads() {
        return reads.get();
    }

    /** Reads etcd has answered so far (held or delivered). */
    int answered() {
        return answered.get();
    }

    @Override
    public KV getKVClient() {
        return kv;
    }

    @Override
    public void close() {
        release();
        super.close();
    }

    private final class HeldKv implements KV {
        private final KV real;

        HeldKv(KV real) {
            this.real = real;
        }

        @Override
        public CompletableFuture<GetResponse> get(ByteSequence key) {
            return get(key, GetOption.DEFAULT);
        }

        @Override
        public CompletableFuture<GetResponse> get(ByteSequence key, GetOption option) {
            return held(() -> real.get(key, option));
        }

        @Override
        public CompletableFuture<PutResponse> put(ByteSequence key, ByteSequence value) {
            return real.put(key, value);
        }

        @Override
        public CompletableFuture<PutResponse> put(ByteSequence key, ByteSequence value, PutOption option) {
            return real.put(key, value, option);
        }

        @Override
        public CompletableFuture<DeleteResponse> delete(ByteSequence key) {
            return real.delete(key);
        }

        @Override
        public CompletableFuture<DeleteResponse> delete(ByteSequence key, DeleteOption option) {
            return real.delete(key, option);
        }

        @Override
        public CompletableFuture<CompactResponse> compact(long revision) {
            return real.compact(revision);
        }

        @Override
        public CompletableFuture<CompactResponse> compact(long revision, CompactOption option) {
            return real.compact(revision, option);
        }

        @Override
        public Txn txn() {
            return new HeldTxn(real.txn());
        }

        @Override
        public Txn txn(TxnOption option) {
            return new HeldTxn(real.txn(option));
        }

        @Override
        public void close() {
            real.close();
        }
    }

    /** Sends a read now; its answer reaches the caller once the gate that was open when it was sent opens. */
    private <T> CompletableFuture<T> held(Supplier<CompletableFuture<T>> send) {
        CompletableFuture<Void> release = gate.get();
        reads.incrementAndGet();
        CompletableFuture<T> answer = send.get();
        answer.whenComplete((response, error) -> answered.incrementAndGet());
        return answer.thenCombine(release, (response, released) -> response);
    }

    private final class HeldTxn implements Txn {
        private final Txn real;

        HeldTxn(Txn real) {
            this.real = real;
        }

        @Override
        public Txn If(Cmp... cmps) {
            real.If(cmps);
            return this;
        }

        @Override
        public Txn Then(Op... ops) {
            real.Then(ops);
            return this;
        }

        @Override
        public Txn Else(Op... ops) {
            real.Else(ops);
            return this;
        }

        @Override
        public CompletableFuture<TxnResponse> commit() {
            return held(real::commit);
        }
    }
}
