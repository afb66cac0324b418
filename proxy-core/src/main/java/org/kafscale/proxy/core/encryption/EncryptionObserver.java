package org.kafscale.proxy.core.encryption;

/** Hears each record the encryption policy refused to deliver, for metrics, by a bounded reason. */
@FunctionalInterface
public interface EncryptionObserver {
    EncryptionObserver NONE = reason -> { };

    /** Reasons: {@code unencrypted} (no envelope header), {@code undecryptable} (changed, or a key that does not unwrap). */
    void refusedRecord(String reason);
}
