package org.kafscale.proxy.core.codec;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.ByteBufOutputStream;
import io.netty.buffer.CompositeByteBuf;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.util.List;
import java.util.Optional;
import org.apache.kafka.common.protocol.Writable;
import org.apache.kafka.common.record.internal.BaseRecords;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.utils.ByteUtils;

/**
 * kafka-clients' {@link Writable} over Netty buffers. Fields go into small buffers; record sets
 * that are views of one of the {@code owners} frames become retained slices of those frames,
 * added as components of the result, so records are never copied.
 */
final class ByteBufWritable implements Writable {
    private static final int FIELD_CHUNK_BYTES = 256;

    private final ByteBufAllocator allocator;
    private final List<ByteBuf> owners;
    private final CompositeByteBuf out;
    private ByteBuf fields;
    private ByteBufOutputStream fieldStream;

    ByteBufWritable(ByteBufAllocator allocator, List<ByteBuf> owners) {
        this.allocator = allocator;
        this.owners = owners;
        this.out = allocator.compositeBuffer(Integer.MAX_VALUE);
    }

    private ByteBuf fields() {
        if (fields == null) {
            fields = allocator.buffer(FIELD_CHUNK_BYTES);
            fieldStream = new ByteBufOutputStream(fields);
        }
        return fields;
    }

    private void flushFields() {
        if (fields != null) {
            out.addComponent(true, fields);
            fields = null;
            fieldStream = null;
        }
    }

    @Override
    public void writeByte(byte val) {
        fields().writeByte(val);
    }

    @Override
    public void writeShort(short val) {
        fields().writeShort(val);
    }

    @Override
    public void writeInt(int val) {
        fields().writeInt(val);
    }

    @Override
    public void writeLong(long val) {
        fields().writeLong(val);
    }

    @Override
    public void writeDouble(double val) {
        fields().writeDouble(val);
    }

    @Override
    public void writeByteArray(byte[] arr) {
        fields().writeBytes(arr);
    }

    @Override
    public void writeByteBuffer(ByteBuffer buf) {
        fields().writeBytes(buf.duplicate());
    }

    @Override
    public void writeUnsignedVarint(int i) {
        fields();
        try {
            ByteUtils.writeUnsignedVarint(i, fieldStream);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    @Override
    public void writeVarint(int i) {
        fields();
        try {
            ByteUtils.writeVarint(i, fieldStream);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    @Override
    public void writeVarlong(long i) {
        fields();
        try {
            ByteUtils.writeVarlong(i, fieldStream);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    @Override
    public void writeRecords(BaseRecords records) {
        if (!(records instanceof MemoryRecords memory)) {
            throw new IllegalArgumentException("cannot write " + records.getClass().getSimpleName());
        }
        ByteBuffer view = memory.buffer();
        if (!view.hasRemaining()) {
            return;
        }
        Optional<ByteBuf> slice = FrameSlices.sliceOf(owners, view);
        if (slice.isPresent()) {
            flushFields();
            out.addComponent(true, slice.get());
        } else {
            writeByteBuffer(view);
        }
    }

    /** The encoded bytes; the caller owns the result. */
    ByteBuf finish() {
        flushFields();
        return out;
    }

    /** Releases what was written so far (encoding failed). */
    void discard() {
        if (fields != null) {
            fields.release();
            fields = null;
        }
        out.release();
    }
}
