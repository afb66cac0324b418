package org.kafscale.proxy.core.encryption;

import java.nio.ByteBuffer;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.common.compress.Compression;
import org.apache.kafka.common.message.FetchResponseData;
import org.apache.kafka.common.message.ProduceRequestData;
import org.apache.kafka.common.record.TimestampType;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.MemoryRecordsBuilder;
import org.apache.kafka.common.record.internal.RecordBatch;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.kafscale.proxy.testkit.SecretKeyStores;

/**
 * What record encryption costs per MiB of records, without the network: {@link EncryptionPolicy}'s
 * seal of one Produce partition and open of one fetched partition, 1 MiB of records of
 * {@code recordBytes} each, in batches of 16 KiB as a producer with its defaults makes them. Run
 * with {@code -prof gc} for the allocation per operation (per MiB), the cost the end-to-end bench
 * (scripts/bench-encryption.sh) sees as GC. Lives in the encryption package of the bench module
 * because seal and open are package-private.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
public class RecordEncryptionBenchmark {
    private static final int SET_BYTES = 1 << 20;
    private static final int BATCH_BYTES = 16 << 10;

    @Param({"1024", "65536"})
    public int recordBytes;

    @Param({"none", "lz4"})
    public String codec;

    private DataKeys keys;
    private MemoryRecords plain;
    private MemoryRecords sealed;

    @Setup
    public void setUp() throws IOException, GeneralSecurityException {
        // A real PKCS#12 KEK; it is asked once per data key, so it costs the records nothing.
        Path dir = Files.createTempDirectory("bench-kek");
        Path store = SecretKeyStores.aesKey(dir.resolve("kek.p12"), "kek-1", "changeit");
        keys = new DataKeys(KeyStoreKeys.open(store, "changeit".toCharArray(), "kek-1"), Long.MAX_VALUE,
                Long.MAX_VALUE, System::nanoTime);
        plain = records();
        ProduceRequestData.PartitionProduceData partition = new ProduceRequestData.PartitionProduceData()
                .setIndex(0).setRecords(plain);
        EncryptionPolicy.seal(keys, "bench", partition);
        sealed = (MemoryRecords) partition.records();
    }

    @Benchmark
    public int seal() {
        ProduceRequestData.PartitionProduceData partition = new ProduceRequestData.PartitionProduceData()
                .setIndex(0).setRecords(MemoryRecords.readableRecords(plain.buffer()));
        EncryptionPolicy.seal(keys, "bench", partition);
        return ((MemoryRecords) partition.records()).sizeInBytes();
    }

    @Benchmark
    public int open() {
        FetchResponseData.PartitionData partition = new FetchResponseData.PartitionData().setPartitionIndex(0)
                .setRecords(MemoryRecords.readableRecords(sealed.buffer()));
        if (EncryptionPolicy.open(keys, partition, true) != EncryptionPolicy.Opened.DECRYPTED) {
            throw new IllegalStateException("the sealed records did not open");
        }
        return ((MemoryRecords) partition.records()).sizeInBytes();
    }

    /** 1 MiB of random values (they do not compress, as encrypted ones would not either) in 16 KiB batches. */
    private MemoryRecords records() {
        Random random = new Random(42);
        ByteBuffer all = ByteBuffer.allocate(SET_BYTES + (SET_BYTES / BATCH_BYTES + 2) * 1024);
        int perBatch = Math.max(1, BATCH_BYTES / recordBytes);
        long offset = 0;
        for (int written = 0; written < SET_BYTES; ) {
            MemoryRecordsBuilder builder = MemoryRecords.builder(ByteBuffer.allocate(perBatch * (recordBytes + 64) + 128),
                    RecordBatch.CURRENT_MAGIC_VALUE, Compression.of(codec).build(), TimestampType.CREATE_TIME, offset);
            for (int i = 0; i < perBatch && written < SET_BYTES; i++, written += recordBytes) {
                byte[] value = new byte[recordBytes];
                random.nextBytes(value);
                builder.append(System.currentTimeMillis(), ("key-" + offset).getBytes(), value);
                offset++;
            }
            MemoryRecords batch = builder.build();
            if (all.remaining() < batch.sizeInBytes()) {
                ByteBuffer bigger = ByteBuffer.allocate(all.capacity() * 2);
                all.flip();
                all = bigger.put(all);
            }
            all.put(batch.buffer());
        }
        all.flip();
        return MemoryRecords.readableRecords(all);
    }
}
