package org.kafscale.proxy.core.encryption;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.Key;
import java.security.KeyStore;
import javax.crypto.Cipher;
import javax.crypto.SecretKey;

/**
 * KEKs from a PKCS#12 key-store file: the AES secret key at one alias wraps data keys with AES Key
 * Wrap (RFC 3394, the JDK's {@code AESWrap}), which authenticates what it wraps, so a wrong KEK or a
 * tampered wrapped key fails to unwrap rather than yield a wrong key.
 */
public final class KeyStoreKeys implements KeyEncryptionKeys {
    private final String alias;
    private final SecretKey kek;

    private KeyStoreKeys(String alias, SecretKey kek) {
        this.alias = alias;
        this.kek = kek;
    }

    /**
     * The AES key at {@code alias} in the PKCS#12 file {@code file}.
     *
     * @throws IllegalArgumentException when the file does not open with {@code password}, or holds
     *         no AES secret key at {@code alias}
     */
    public static KeyStoreKeys open(Path file, char[] password, String alias) {
        KeyStore store;
        try (InputStream in = Files.newInputStream(file)) {
            store = KeyStore.getInstance("PKCS12");
            store.load(in, password);
        } catch (IOException | GeneralSecurityException e) {
            throw new IllegalArgumentException("key store " + file + " does not open: " + e.getMessage(), e);
        }
        Key key;
        try {
            key = store.getKey(alias, password);
        } catch (GeneralSecurityException e) {
            throw new IllegalArgumentException("key '" + alias + "' of " + file + " cannot be read: " + e.getMessage(), e);
        }
        if (!(key instanceof SecretKey secret) || !"AES".equalsIgnoreCase(secret.getAlgorithm())) {
            throw new IllegalArgumentException(file + " holds no AES secret key at alias '" + alias + "'");
        }
        return new KeyStoreKeys(alias, secret);
    }

    @Override
    public String keyId() {
        return alias;
    }

    @Override
    public byte[] wrap(SecretKey dataKey) {
        try {
            Cipher cipher = Cipher.getInstance("AESWrap");
            cipher.init(Cipher.WRAP_MODE, kek);
            return cipher.wrap(dataKey);
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("wrapping a data key with '" + alias + "' failed: " + e, e);
        }
    }

    @Override
    public SecretKey unwrap(String keyId, byte[] wrapped) {
        if (!alias.equals(keyId)) {
            throw new IllegalArgumentException("unknown key-encryption key '" + keyId + "'");
        }
        try {
            Cipher cipher = Cipher.getInstance("AESWrap");
            cipher.init(Cipher.UNWRAP_MODE, kek);
            return (SecretKey) cipher.unwrap(wrapped, "AES", Cipher.SECRET_KEY);
        } catch (GeneralSecurityException e) {
            throw new IllegalArgumentException("the data key does not unwrap with '" + alias + "': " + e, e);
        }
    }
}
