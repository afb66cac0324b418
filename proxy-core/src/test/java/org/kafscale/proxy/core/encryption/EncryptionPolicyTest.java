package org.kafscale.proxy.core.encryption;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.kafka.common.compress.Compression;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.header.internals.RecordHeader;
import org.apache.kafka.common.record.TimestampType;
import org.apache.kafka.common.record.internal.CompressionType;
import org.apache.kafka.common.record.internal.ControlRecordType;
import org.apache.kafka.common.record.internal.EndTransactionMarker;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.MemoryRecordsBuilder;
import org.apache.kafka.common.record.internal.MutableRecordBatch;
import org.apache.kafka.common.record.internal.Record;
import org.apache.kafka.common.record.internal.RecordBatch;
import org.apache.kafka.common.message.FetchResponseData;
import org.apache.kafka.common.message.ProduceRequestData.PartitionProduceData;
import org.apache.kafka.common.protocol.Errors;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.kafscale.proxy.core.codec.RecordRewrites;
import org.kafscale.proxy.testkit.SecretKeyStores;

/** Sealing Produce records and opening fetched ones, with a KEK from a real PKCS#12 file. */
class EncryptionPolicyTest {
    private static final char[] PASSWORD = "changeit".toCharArray();
    private static final long PRODUCER_ID = 4711;
    private static final short EPOCH = 3;
    private static final int BASE_SEQUENCE = 42;

    @TempDir
    static Path dir;
    static Path keystore;

    @BeforeAll
    static void writeKeyStore() throws Exception {
        keystore = SecretKeyStores.aesKey(dir.resolve("kek.p12"), "kek-1", new String(PASSWORD));
    }

    private static DataKeys keys(long rotateAfterRecords, AtomicLong clock) {
        return new DataKeys(KeyStoreKeys.open(keystore, PASSWORD, "kek-1"), rotateAfterRecords,
                TimeUnit.MINUTES.toNanos(10), clock::get);
    }

    private static byte[] utf8(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    private static String text(ByteBuffer buffer) {
        byte[] out = new byte[buffer.remaining()];
        buffer.duplicate().get(out);
        return new String(out, StandardCharsets.UTF_8);
    }

    private static MemoryRecords batch(CompressionType type, boolean transactional, String... values) {
        MemoryRecordsBuilder builder = MemoryRecords.builder(ByteBuffer.allocate(4096), RecordBatch.MAGIC_VALUE_V2,
                Compression.of(type).build(), TimestampType.CREATE_TIME, 0, RecordBatch.NO_TIMESTAMP, PRODUCER_ID,
                EPOCH, BASE_SEQUENCE, transactional, false, RecordBatch.NO_PARTITION_LEADER_EPOCH);
        for (int i = 0; i < values.length; i++) {
            builder.appendWithOffset(i, 1_000 + i, utf8("k" + i), values[i] == null ? null : utf8(values[i]),
                    new Header[] {new RecordHeader("trace", utf8("t" + i))});
        }
        return builder.build();
    }

    private static List<Record> records(MemoryRecords records) {
        List<Record> out = new ArrayList<>();
        records.records().forEach(out::add);
        return out;
    }

    private static byte[] envelope(Record record) {
        return Arrays.stream(record.headers()).filter(h -> h.key().equals(Envelope.HEADER)).findFirst()
                .map(Header::value).orElse(null);
    }

    @ParameterizedTest
    @EnumSource(CompressionType.class)
    void aSealedBatchKeepsItsCodecAndProducerFieldsAndOpensToThePlaintext(CompressionType type) {
        // Given a transactional producer's batch, compressed with each codec
        DataKeys keys = keys(1_000, new AtomicLong());
        MemoryRecords plain = batch(type, true, "secret-0", "secret-1", null);

        // When it is sealed for a covered topic
        MemoryRecords sealed = seal(keys, "secret.orders", plain);

        // Then the batch keeps its codec, producer id, epoch, sequence, transactional flag and offsets
        MutableRecordBatch batch = sealed.batches().iterator().next();
        assertEquals(type, batch.compressionType());
        assertEquals(PRODUCER_ID, batch.producerId());
        assertEquals(EPOCH, batch.producerEpoch());
        assertEquals(BASE_SEQUENCE, batch.baseSequence());
        assertTrue(batch.isTransactional());
        batch.ensureValid();
        List<Record> stored = records(sealed);
        assertEquals(3, stored.size());
        // and the values are ciphertext with an envelope, the tombstone left as it is
        for (int i = 0; i < 2; i++) {
            assertEquals(i, stored.get(i).offset());
            assertEquals("k" + i, text(stored.get(i).key()));
            assertFalse(text(stored.get(i).value()).contains("secret"));
            assertTrue(envelope(stored.get(i)) != null);
        }
        assertFalse(stored.get(2).hasValue());
        assertNull(envelope(stored.get(2)));

        // When an allowed principal fetches it
        Read opened = open(keys, sealed, true);

        // Then it reads the plaintext, its own headers without the envelope, and the same codec
        assertNull(opened.refusal());
        List<Record> read = records(opened.records());
        assertEquals("secret-0", text(read.get(0).value()));
        assertEquals("secret-1", text(read.get(1).value()));
        assertEquals(1, read.get(1).headers().length);
        assertEquals("trace", read.get(1).headers()[0].key());
        assertEquals(1_001, read.get(1).timestamp());
        assertEquals(type, opened.records().batches().iterator().next().compressionType());
    }

    @Test
    void anotherPrincipalGetsTheCiphertextAsStored() {
        DataKeys keys = keys(1_000, new AtomicLong());
        MemoryRecords sealed = seal(keys, "secret.orders", batch(CompressionType.NONE, false, "v"));

        Read opened = open(keys, sealed, false);

        assertNull(opened.refusal());
        assertSame(sealed, opened.records());
    }

    @Test
    void aDataKeyIsRotatedAfterItsRecordCountAndAfterItsAge() {
        AtomicLong clock = new AtomicLong();
        DataKeys keys = keys(2, clock);

        // Given a key rotated after 2 records: the first two sets share a key, the third gets a new one
        byte[] first = wrappedKeyOf(seal(keys, "t", batch(CompressionType.NONE, false, "a")));
        byte[] second = wrappedKeyOf(seal(keys, "t", batch(CompressionType.NONE, false, "b")));
        byte[] third = wrappedKeyOf(seal(keys, "t", batch(CompressionType.NONE, false, "c")));
        assertArrayEquals(first, second);
        assertFalse(Arrays.equals(second, third));
        // and another topic has a key of its own
        byte[] other = wrappedKeyOf(seal(keys, "u", batch(CompressionType.NONE, false, "d")));
        assertFalse(Arrays.equals(third, other));

        // When the key's age passes 10 minutes, the next set gets a new key
        clock.addAndGet(TimeUnit.MINUTES.toNanos(10));
        byte[] aged = wrappedKeyOf(seal(keys, "u", batch(CompressionType.NONE, false, "e")));
        assertFalse(Arrays.equals(other, aged));

        // and records under the old keys still open
        assertNull(open(keys, seal(keys, "t",
                batch(CompressionType.NONE, false, "f")), true).refusal());
    }

    @Test
    void anotherProxyWithTheSameKekOpensTheRecords() {
        MemoryRecords sealed = seal(keys(1_000, new AtomicLong()), "t",
                batch(CompressionType.ZSTD, false, "shared"));

        Read opened = open(keys(1_000, new AtomicLong()), sealed, true);

        assertEquals("shared", text(records(opened.records()).get(0).value()));
    }

    @Test
    void aTamperedCiphertextIsRefused() {
        DataKeys keys = keys(1_000, new AtomicLong());
        MemoryRecords sealed = seal(keys, "t", batch(CompressionType.NONE, false, "value"));
        Record record = records(sealed).get(0);
        ByteBuffer changed = ByteBuffer.allocate(record.valueSize());
        changed.put(record.value()).flip();
        changed.put(0, (byte) (changed.get(0) ^ 1));
        MemoryRecords tampered = (MemoryRecords) RecordRewrites.rewrite(sealed,
                (value, headers) -> new RecordRewrites.Rewritten(changed, headers));

        Read opened = open(keys, tampered, true);

        assertEquals("undecryptable", opened.refusal());
        assertEquals(Errors.CORRUPT_MESSAGE.code(), opened.errorCode());
        assertEquals(0, opened.records().sizeInBytes());
    }

    @Test
    void withHeadersTheRecordsHeadersAreSealedIntoTheEnvelopeAndRestoredInOrder() {
        // Given records with headers, one of them with no value, and a tombstone
        DataKeys keys = keys(1_000, new AtomicLong());
        MemoryRecordsBuilder builder = MemoryRecords.builder(ByteBuffer.allocate(4096), RecordBatch.MAGIC_VALUE_V2,
                Compression.of(CompressionType.LZ4).build(), TimestampType.CREATE_TIME, 0);
        Header[] sent = {new RecordHeader("trace", utf8("trace-id-1")), new RecordHeader("empty", null),
                new RecordHeader("tenant", utf8("acme"))};
        builder.appendWithOffset(0, 1_000, utf8("k0"), utf8("secret-0"), sent);
        builder.appendWithOffset(1, 1_001, utf8("k1"), null, new Header[] {new RecordHeader("trace", utf8("t"))});
        MemoryRecords plain = builder.build();

        // When they are sealed with their headers
        PartitionProduceData partition = new PartitionProduceData().setRecords(plain);
        assertTrue(EncryptionPolicy.seal(keys, "secret.orders", partition, true));
        MemoryRecords sealed = (MemoryRecords) partition.records();

        // Then the stored record carries the envelope alone (version 2), no header value in clear
        Record stored = records(sealed).get(0);
        assertEquals(1, stored.headers().length);
        assertEquals(Envelope.HEADER, stored.headers()[0].key());
        assertTrue(Envelope.parse(envelope(stored)).headers());
        assertFalse(text(stored.value()).contains("trace-id-1") || text(stored.value()).contains("acme"));
        // and the tombstone keeps its headers in clear, with no envelope (nothing to seal them into)
        assertEquals("trace", records(sealed).get(1).headers()[0].key());
        assertNull(envelope(records(sealed).get(1)));

        // When an allowed principal fetches them
        Read opened = open(keys, sealed, true);

        // Then the value and the headers come back as sent, in order, the empty one still empty
        assertNull(opened.refusal());
        Record read = records(opened.records()).get(0);
        assertEquals("secret-0", text(read.value()));
        assertEquals(3, read.headers().length);
        for (int i = 0; i < sent.length; i++) {
            assertEquals(sent[i].key(), read.headers()[i].key());
            assertArrayEquals(sent[i].value(), read.headers()[i].value());
        }
        // and another principal gets the ciphertext with the envelope alone
        assertSame(sealed, open(keys, sealed, false).records());
    }

    @Test
    void anEnvelopeWhoseVersionWasChangedIsRefused() {
        DataKeys keys = keys(1_000, new AtomicLong());
        PartitionProduceData partition = new PartitionProduceData().setRecords(batch(CompressionType.NONE, false, "v"));
        EncryptionPolicy.seal(keys, "t", partition, true);
        // The version is authenticated with the value: a version 2 envelope passed off as 1 does not decrypt.
        MemoryRecords downgraded = (MemoryRecords) RecordRewrites.rewrite(partition.records(), (value, headers) -> {
            byte[] envelope = headers[0].value().clone();
            envelope[0] = Envelope.VERSION;
            return new RecordRewrites.Rewritten(value, new Header[] {RecordRewrites.header(Envelope.HEADER, envelope)});
        });

        assertEquals("undecryptable", open(keys, downgraded, true).refusal());
    }

    @Test
    void aRecordWithoutEnvelopeIsRefusedForEveryPrincipal() {
        DataKeys keys = keys(1_000, new AtomicLong());
        MemoryRecords around = batch(CompressionType.GZIP, false, "written around the proxy");

        assertEquals("unencrypted", open(keys, around, true).refusal());
        assertEquals("unencrypted", open(keys, around, false).refusal());
        assertEquals(Errors.CORRUPT_MESSAGE.code(), open(keys, around, false).errorCode());
    }

    @Test
    void aKeyStoreWithoutTheAliasOrWithAWrongPasswordDoesNotOpen() {
        IllegalArgumentException alias = assertThrows(IllegalArgumentException.class,
                () -> KeyStoreKeys.open(keystore, PASSWORD, "kek-2"));
        assertTrue(alias.getMessage().contains("kek-2"), alias.getMessage());
        assertThrows(IllegalArgumentException.class,
                () -> KeyStoreKeys.open(keystore, "wrong".toCharArray(), "kek-1"));
        KeyStoreKeys keks = KeyStoreKeys.open(keystore, PASSWORD, "kek-1");
        assertThrows(IllegalArgumentException.class, () -> keks.unwrap("kek-2", new byte[40]));
        assertNotEquals(0, keks.wrap(new javax.crypto.spec.SecretKeySpec(new byte[32], "AES")).length);
    }

    @Test
    void aSetOfManyBatchesOfDifferentCodecsIsSealedBatchByBatchAndOpensWhole() {
        // Given a fetched-like set of batches, one per codec, at their own offsets, with a
        // transaction marker between them, as a broker returns them
        DataKeys keys = keys(1_000_000, new AtomicLong());
        ByteArrayOutputStream set = new ByteArrayOutputStream();
        long offset = 0;
        List<String> values = new ArrayList<>();
        for (CompressionType type : CompressionType.values()) {
            MemoryRecordsBuilder builder = MemoryRecords.builder(ByteBuffer.allocate(64 << 10),
                    RecordBatch.MAGIC_VALUE_V2, Compression.of(type).build(), TimestampType.CREATE_TIME, offset);
            for (int i = 0; i < 40; i++, offset++) {
                String value = type + "-value-" + offset + "-" + "x".repeat((int) offset * 7);
                values.add(value);
                builder.appendWithOffset(offset, 1_000 + offset, utf8("k" + offset), utf8(value),
                        new Header[0]);
            }
            set.writeBytes(bytes(builder.build().buffer()));
            set.writeBytes(bytes(MemoryRecords.withEndTransactionMarker(offset++, 1_000, 0, PRODUCER_ID, EPOCH,
                    new EndTransactionMarker(ControlRecordType.COMMIT, 0)).buffer()));
        }
        MemoryRecords plain = MemoryRecords.readableRecords(ByteBuffer.wrap(set.toByteArray()));

        // When it is sealed and opened again
        MemoryRecords sealed = seal(keys, "t", plain);
        Read opened = open(keys, sealed, true);

        // Then every batch is valid, keeps its codec and base offset, the markers are where they
        // were, and every value reads back in order
        assertNull(opened.refusal());
        List<MutableRecordBatch> before = new ArrayList<>();
        plain.batches().forEach(before::add);
        List<MutableRecordBatch> after = new ArrayList<>();
        opened.records().batches().forEach(after::add);
        assertEquals(before.size(), after.size());
        for (int i = 0; i < before.size(); i++) {
            after.get(i).ensureValid();
            assertEquals(before.get(i).compressionType(), after.get(i).compressionType());
            assertEquals(before.get(i).baseOffset(), after.get(i).baseOffset());
            assertEquals(before.get(i).isControlBatch(), after.get(i).isControlBatch());
        }
        List<String> read = new ArrayList<>();
        for (MutableRecordBatch batch : after) {
            if (!batch.isControlBatch()) {
                batch.forEach(r -> read.add(text(r.value())));
            }
        }
        assertEquals(values, read);
    }

    @Test
    void noTwoRecordsUnderOneDataKeyShareAnIvWhateverThreadSealsThem() throws Exception {
        // Given one data key taken by two threads at once, as two event loops take a topic's key
        DataKeys keys = keys(Long.MAX_VALUE, new AtomicLong());
        DataKeys.Current key = keys.forRecords("t", 1);
        Set<ByteBuffer> ivs = ConcurrentHashMap.newKeySet();
        Runnable seal = () -> {
            for (int i = 0; i < 20_000; i++) {
                ivs.add(ByteBuffer.wrap(key.nextIv()));
            }
        };

        // When each seals 20,000 records
        Thread other = new Thread(seal);
        other.start();
        seal.run();
        other.join();

        // Then 40,000 IVs were given, each once, all with the key's own fixed field
        assertEquals(40_000, ivs.size());
        assertEquals(1, ivs.stream().map(iv -> iv.getInt(0)).distinct().count());
    }

    private static byte[] bytes(ByteBuffer buffer) {
        byte[] out = new byte[buffer.remaining()];
        buffer.duplicate().get(out);
        return out;
    }

    private static MemoryRecords seal(DataKeys keys, String topic, MemoryRecords records) {
        PartitionProduceData partition = new PartitionProduceData().setRecords(records);
        assertTrue(EncryptionPolicy.seal(keys, topic, partition));
        return (MemoryRecords) partition.records();
    }

    /** A fetched partition after the policy: its records, why they were refused (or null), its error. */
    private record Read(MemoryRecords records, String refusal, short errorCode) {
    }

    private static Read open(DataKeys keys, MemoryRecords records, boolean decrypt) {
        FetchResponseData.PartitionData partition = new FetchResponseData.PartitionData().setRecords(records);
        EncryptionPolicy.Opened opened = EncryptionPolicy.open(keys, partition, decrypt);
        return new Read((MemoryRecords) partition.records(), opened.reason, partition.errorCode());
    }

    private static byte[] wrappedKeyOf(MemoryRecords sealed) {
        return Envelope.parse(envelope(records(sealed).get(0))).wrappedKey();
    }
}
