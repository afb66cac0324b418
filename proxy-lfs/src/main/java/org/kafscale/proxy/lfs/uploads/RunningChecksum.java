package org.kafscale.proxy.lfs.uploads;

/**
 * A digest that can be saved between two parts and resumed on another replica.
 *
 * <p>Multipart parts may land on any proxy replica, so the hash of everything received so far
 * travels inside the shared session as an opaque state, not in one process's memory.
 */
interface RunningChecksum {

    void update(byte[] bytes, int offset, int length);

    /** The state after the bytes seen so far; {@code resume} of the same algorithm continues from it. */
    byte[] state();

    /** Lowercase hex of the digest of the bytes seen so far; the running state is left untouched. */
    String hex();
}
