package org.kafscale.proxy.routing.produce;

import io.netty.buffer.ByteBuf;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import org.apache.kafka.common.Uuid;
import org.kafscale.proxy.core.codec.RequestFrame;
import org.kafscale.proxy.core.topology.PartitionRef;
import org.kafscale.proxy.core.topology.TopologySnapshot;

/**
 * What routing needs of a Produce to forward it whole, read from the client's bytes without the
 * decode: its acks and every partition as it names it, in request order.
 *
 * <p>Why a partial read and not kafka-clients' {@code ProduceRequestData}: decoding a Produce makes
 * an object per topic and per partition and a {@code MemoryRecords} view per record set, and the
 * exchange around it its maps, all to send the client's bytes on unchanged when one broker leads
 * every partition (the common case: clients route by leader). This walks the structure of
 * ProduceRequest in place, by version (3-13, flexible from 9), and steps over each record set by
 * its length: one string per topic by name (its id from v13) and one ref per partition. It reads
 * the same fields at the same offsets as the generated reader, and gives up (null) at the first
 * thing it does not expect; the decoded path, which then takes the request, says what was wrong.
 * Whatever it reads, the decode reads alike ({@code ProduceOutlineFuzzTest} holds it to that), so a
 * body forwarded unread is one the broker parses as routing read it.
 */
record ProduceOutline(short acks, List<PartitionRef> partitions) {
    private static final short FIRST_VERSION = 3;
    private static final short LAST_VERSION = 13;
    private static final short FIRST_FLEXIBLE = 9;
    private static final short FIRST_BY_ID = 13;

    /** The outline of {@code request}'s body, names resolved against {@code snapshot}; null when it cannot be read. */
    static ProduceOutline read(RequestFrame request, TopologySnapshot snapshot) {
        short version = request.apiVersion();
        if (version < FIRST_VERSION || version > LAST_VERSION) {
            return null;
        }
        ByteBuf frame = request.frame();
        Cursor in = new Cursor(frame, frame.readerIndex() + request.headerLength(), frame.writerIndex(),
                version >= FIRST_FLEXIBLE);
        try {
            int transactionalId = in.stringLength(true);
            if (transactionalId > Short.MAX_VALUE) {
                return null;
            }
            in.skip(transactionalId);
            short acks = in.int16();
            in.skip(4); // timeout
            int topics = in.length(false);
            List<PartitionRef> partitions = new ArrayList<>(Math.min(topics, 16));
            for (int t = 0; t < topics; t++) {
                String name = version < FIRST_BY_ID ? in.string() : null;
                Uuid id = version >= FIRST_BY_ID ? new Uuid(in.int64(), in.int64()) : null;
                int count = in.length(false);
                for (int p = 0; p < count; p++) {
                    int index = in.int32();
                    in.skip(in.length(true)); // the records, stepped over
                    in.skipTaggedFields();
                    partitions.add(PartitionRef.of(name, id, index, snapshot));
                }
                in.skipTaggedFields();
            }
            in.skipTaggedFields();
            return new ProduceOutline(acks, partitions);
        } catch (Unreadable e) {
            return null;
        }
    }

    /** The body did not read as a Produce of its version. */
    private static final class Unreadable extends Exception {
        Unreadable() {
            super(null, null, false, false); // a control-flow signal: no stack trace to fill
        }
    }

    /** Reads forward through one body, by absolute index: the frame's own indexes are left as they are. */
    private static final class Cursor {
        private final ByteBuf buf;
        private final int end;
        private final boolean flexible;
        private int at;

        Cursor(ByteBuf buf, int at, int end, boolean flexible) {
            this.buf = buf;
            this.at = at;
            this.end = end;
            this.flexible = flexible;
        }

        short int16() throws Unreadable {
            need(2);
            short value = buf.getShort(at);
            at += 2;
            return value;
        }

        int int32() throws Unreadable {
            need(4);
            int value = buf.getInt(at);
            at += 4;
            return value;
        }

        long int64() throws Unreadable {
            need(8);
            long value = buf.getLong(at);
            at += 8;
            return value;
        }

        void skip(int bytes) throws Unreadable {
            need(bytes);
            at += bytes;
        }

        /**
         * The length of bytes or count of an array: int32 before v9, an unsigned varint holding
         * length + 1 from v9. Null (-1) is 0 bytes to skip where {@code nullable}, else unreadable.
         */
        int length(boolean nullable) throws Unreadable {
            return length(nullable, false);
        }

        /** The length of a string: as {@link #length}, but int16 before v9. */
        int stringLength(boolean nullable) throws Unreadable {
            return length(nullable, true);
        }

        /** A topic name (never null; at most 32767 bytes, as Kafka's reader holds it). */
        String string() throws Unreadable {
            int length = stringLength(false);
            if (length > Short.MAX_VALUE) {
                throw new Unreadable();
            }
            need(length);
            String value = buf.toString(at, length, StandardCharsets.UTF_8);
            at += length;
            return value;
        }

        private int length(boolean nullable, boolean shortLength) throws Unreadable {
            int length = flexible ? varint() - 1 : shortLength ? int16() : int32();
            if (length < 0) {
                if (length == -1 && nullable) {
                    return 0;
                }
                throw new Unreadable();
            }
            return length;
        }

        /** Tagged fields (v9+): a count, then each a tag and a length-prefixed value; none are read. */
        void skipTaggedFields() throws Unreadable {
            if (!flexible) {
                return;
            }
            int fields = varint();
            for (int i = 0; i < fields; i++) {
                varint(); // tag
                skip(varint());
            }
        }

        /** An unsigned varint of at most five bytes, as Kafka writes lengths. */
        private int varint() throws Unreadable {
            int value = 0;
            for (int shift = 0; shift < 35; shift += 7) {
                need(1);
                byte b = buf.getByte(at++);
                value |= (b & 0x7f) << shift;
                if (b >= 0) {
                    if (value < 0) {
                        throw new Unreadable(); // longer than an int may be
                    }
                    return value;
                }
            }
            throw new Unreadable();
        }

        private void need(int bytes) throws Unreadable {
            if (bytes < 0 || end - at < bytes) {
                throw new Unreadable();
            }
        }
    }
}
