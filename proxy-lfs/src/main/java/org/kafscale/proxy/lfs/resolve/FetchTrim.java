package org.kafscale.proxy.lfs.resolve;

import java.util.List;

/**
 * Where each partition of a resolved Fetch answer is cut so the answer stays within the client's
 * limits, as a broker keeps them: a partition holds at most its {@code partition_max_bytes}, the
 * answer at most the request's {@code max_bytes}, and the first record of the first partition
 * with data goes out whatever its size, so a consumer always progresses. What is cut off the
 * consumer fetches next time. Records are counted at the size they will have once resolved.
 * Partitions the proxy does not resize (their topic is not resolved) are counted as the broker
 * sent them and never cut.
 */
final class FetchTrim {
    /** No cut: every record stays. */
    static final long NO_CUT = Long.MAX_VALUE;

    private FetchTrim() {
    }

    /**
     * One partition of the answer, in answer order.
     *
     * @param partitionMax its {@code partition_max_bytes}, or {@link Integer#MAX_VALUE} when unknown
     * @param fixedBytes for a partition not resized, the bytes it holds; else 0
     * @param offsets for a resized partition, its data records' offsets in order
     * @param sizes their sizes once resolved
     */
    record Part(int partitionMax, long fixedBytes, long[] offsets, long[] sizes) {
        static Part fixed(long bytes) {
            return new Part(Integer.MAX_VALUE, bytes, new long[0], new long[0]);
        }
    }

    /**
     * The offset each partition ends before ({@link #NO_CUT} for all of it), in {@code parts}' order.
     *
     * @param responseMax the request's {@code max_bytes}
     */
    static long[] endOffsets(int responseMax, List<Part> parts) {
        long[] ends = new long[parts.size()];
        long remaining = responseMax;
        boolean anyData = false;
        for (int p = 0; p < parts.size(); p++) {
            Part part = parts.get(p);
            ends[p] = NO_CUT;
            if (part.offsets().length == 0) {
                remaining -= part.fixedBytes();
                anyData |= part.fixedBytes() > 0;
                continue;
            }
            long limit = Math.min(part.partitionMax(), Math.max(0, remaining));
            long used = 0;
            for (int i = 0; i < part.offsets().length; i++) {
                boolean firstOfAnswer = !anyData && i == 0;
                if (!firstOfAnswer && used + part.sizes()[i] > limit) {
                    ends[p] = part.offsets()[i];
                    break;
                }
                used += part.sizes()[i];
                anyData = true;
            }
            remaining -= used;
        }
        return ends;
    }
}
