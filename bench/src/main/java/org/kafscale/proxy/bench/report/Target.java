package org.kafscale.proxy.bench.report;

/** What a row must show (issue 7's targets). */
public sealed interface Target {
    boolean metBy(Row row);

    String describe();

    /** proxy / direct ≥ {@code min} (throughput). */
    record RatioAtLeast(double min) implements Target {
        @Override
        public boolean metBy(Row row) {
            return row.ratio() != null && row.ratio() >= min;
        }

        @Override
        public String describe() {
            return "ratio ≥ " + min;
        }
    }

    /** proxy − direct ≤ {@code max} (added latency, in the row's unit). */
    record AddedAtMost(double max) implements Target {
        @Override
        public boolean metBy(Row row) {
            return row.added() != null && row.added() <= max;
        }

        @Override
        public String describe() {
            return "added ≤ " + Format.number(max);
        }
    }

    /** proxy ≤ {@code max} (the proxy's own cost). */
    record AtMost(double max) implements Target {
        @Override
        public boolean metBy(Row row) {
            return row.proxyMedian() != null && row.proxyMedian() <= max;
        }

        @Override
        public String describe() {
            return "≤ " + Format.number(max);
        }
    }
}
