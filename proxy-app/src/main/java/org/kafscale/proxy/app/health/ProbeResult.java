package org.kafscale.proxy.app.health;

/**
 * What one read-path probe found, in words an operator can act on.
 *
 * @param verdict whether a real read went through the proxy
 * @param detail what was read, or what failed
 * @param finishedAtNanos when the probe finished ({@link System#nanoTime()})
 */
public record ProbeResult(Verdict verdict, String detail, long finishedAtNanos) {

    /** How much the probe proved. */
    public enum Verdict {
        /** A Fetch through the proxy's own listener returned records: the whole read path works. */
        PROVEN,
        /**
         * No partition has data yet, so no Fetch can prove anything; metadata and a broker round
         * trip through the proxy succeeded, which is all that can be shown.
         */
        UNPROVEN,
        /** The probe failed: the proxy cannot show it serves reads. */
        FAILED
    }

    static ProbeResult proven(String detail) {
        return new ProbeResult(Verdict.PROVEN, detail, System.nanoTime());
    }

    static ProbeResult unproven(String detail) {
        return new ProbeResult(Verdict.UNPROVEN, detail, System.nanoTime());
    }

    static ProbeResult failed(String detail) {
        return new ProbeResult(Verdict.FAILED, detail, System.nanoTime());
    }

    public boolean passed() {
        return verdict != Verdict.FAILED;
    }
}
