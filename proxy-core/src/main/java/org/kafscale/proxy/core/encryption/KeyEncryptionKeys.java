package org.kafscale.proxy.core.encryption;

import javax.crypto.SecretKey;

/**
 * A key management plugin: wraps the proxy's data keys with a key-encryption key (KEK) that never
 * leaves it, and unwraps them again. The key-store file is one ({@link KeyStoreKeys}); a KMS, Vault
 * or PKCS#11 token is another behind the same two calls. Calls are made on event loops, so an
 * implementation answers from memory or a local device; a remote one caches (the proxy already
 * caches every data key it unwrapped, and wraps once per rotation).
 */
public interface KeyEncryptionKeys {

    /** The id of the KEK new data keys are wrapped with; written next to each wrapped key. */
    String keyId();

    /** {@code dataKey} wrapped by the KEK {@link #keyId()}. */
    byte[] wrap(SecretKey dataKey);

    /**
     * The data key {@code wrapped} holds, wrapped by the KEK {@code keyId}.
     *
     * @throws IllegalArgumentException when the KEK is unknown or the wrapped key does not unwrap
     */
    SecretKey unwrap(String keyId, byte[] wrapped);
}
