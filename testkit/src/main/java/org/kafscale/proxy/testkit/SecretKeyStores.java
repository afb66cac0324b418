package org.kafscale.proxy.testkit;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyStore;
import javax.crypto.KeyGenerator;

/** PKCS#12 key stores holding an AES key, as {@code keytool -genseckey} writes them, for record encryption's KEKs. */
public final class SecretKeyStores {
    private SecretKeyStores() {
    }

    /** Writes a PKCS#12 file at {@code file} with one fresh AES-256 key at {@code alias}, under {@code password}. */
    public static Path aesKey(Path file, String alias, String password) throws IOException, GeneralSecurityException {
        KeyGenerator generator = KeyGenerator.getInstance("AES");
        generator.init(256);
        KeyStore store = KeyStore.getInstance("PKCS12");
        store.load(null, password.toCharArray());
        store.setEntry(alias, new KeyStore.SecretKeyEntry(generator.generateKey()),
                new KeyStore.PasswordProtection(password.toCharArray()));
        try (OutputStream out = Files.newOutputStream(file)) {
            store.store(out, password.toCharArray());
        }
        return file;
    }
}
