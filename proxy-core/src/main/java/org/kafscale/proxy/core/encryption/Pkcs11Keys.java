package org.kafscale.proxy.core.encryption;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.Key;
import java.security.KeyStore;
import java.security.Provider;
import java.security.ProviderException;
import java.security.SecureRandom;
import java.security.Security;
import java.util.Arrays;
import java.util.concurrent.atomic.AtomicInteger;
import javax.crypto.Cipher;
import javax.crypto.SecretKey;
import javax.crypto.spec.GCMParameterSpec;
import javax.crypto.spec.SecretKeySpec;

/**
 * KEKs on a PKCS#11 token (an HSM, or SoftHSM2): the AES secret key with one label on the token
 * wraps data keys, through the JDK's SunPKCS11 provider, configured here from the settings (no
 * configuration file) and never registered globally. The KEK's bytes never leave the token.
 *
 * <p>The JDK 17 SunPKCS11 provider offers no key-wrap cipher (no {@code AES/KW}, {@code AES/KWP}
 * nor {@code AESWrap}, whatever the token supports), so a data key is encrypted on the token with
 * AES-GCM, which tokens (SoftHSM2 2.6 among them) offer through {@code C_Encrypt}: the wrapped form
 * is {@code IV (12) | ciphertext | tag (16)}, with the KEK's label as additional authenticated
 * data, so a wrong KEK or a changed wrapped key fails to unwrap rather than yield a wrong key.
 *
 * <p>Each wrap and unwrap is a call into the token's library on the calling thread (an event loop):
 * fast for a local token such as SoftHSM2; the proxy makes them once per data-key rotation and once
 * per data key it reads, as for every KEK.
 */
public final class Pkcs11Keys implements KeyEncryptionKeys {
    private static final int IV_BYTES = 12;
    private static final int TAG_BITS = 128;
    /** Providers are named apart so that their errors and logs tell the tokens apart. */
    private static final AtomicInteger PROVIDERS = new AtomicInteger();

    private final Provider provider;
    private final String label;
    private final SecretKey kek;
    private final SecureRandom random = new SecureRandom();

    private Pkcs11Keys(Provider provider, String label, SecretKey kek) {
        this.provider = provider;
        this.label = label;
        this.kek = kek;
    }

    /** The setting a token that does not open is wrong in. */
    public enum Setting { LIBRARY, SLOT, PIN, LABEL }

    /** Why a token's KEK could not be opened, and which setting is to blame. */
    public static final class OpenFailure extends IllegalArgumentException {
        private final Setting setting;

        OpenFailure(Setting setting, String message, Throwable cause) {
            super(message, cause);
            this.setting = setting;
        }

        public Setting setting() {
            return setting;
        }
    }

    /**
     * Which token of the library: by its slot id, or by its index in the list of slots that hold a
     * token (SunPKCS11's {@code slot} and {@code slotListIndex}).
     */
    public record Slot(long number, boolean listIndex) {
        public static Slot id(long id) {
            return new Slot(id, false);
        }

        public static Slot index(int index) {
            return new Slot(index, true);
        }

        String configLine() {
            return (listIndex ? "slotListIndex = " : "slot = ") + number;
        }
    }

    /**
     * Logs in to the token in {@code slot} of the PKCS#11 {@code library} with {@code pin} and takes
     * its AES key labelled {@code label}, checked by wrapping and unwrapping a key once.
     *
     * @throws OpenFailure naming the setting that is wrong
     */
    public static Pkcs11Keys open(Path library, Slot slot, char[] pin, String label) {
        if (!Files.isRegularFile(library)) {
            throw new OpenFailure(Setting.LIBRARY, "PKCS#11 library " + library + " is not a file", null);
        }
        Provider provider = provider(library, slot);
        KeyStore store;
        try {
            store = KeyStore.getInstance("PKCS11", provider);
            store.load(null, pin);
        } catch (IOException | GeneralSecurityException | ProviderException e) {
            String why = rootMessage(e);
            throw slotWrong(why) ? new OpenFailure(Setting.SLOT, "no token in " + slot.configLine() + ": " + why, e)
                    : new OpenFailure(Setting.PIN, "login to the token in " + slot.configLine() + " failed: " + why, e);
        }
        Key key;
        try {
            key = store.getKey(label, null);
        } catch (GeneralSecurityException e) {
            throw new OpenFailure(Setting.LABEL, "key '" + label + "' of the token cannot be read: " + rootMessage(e), e);
        }
        if (!(key instanceof SecretKey secret) || !"AES".equalsIgnoreCase(secret.getAlgorithm())) {
            throw new OpenFailure(Setting.LABEL, "the token holds no AES secret key labelled '" + label + "'", null);
        }
        Pkcs11Keys keys = new Pkcs11Keys(provider, label, secret);
        keys.check();
        return keys;
    }

    private static Provider provider(Path library, Slot slot) {
        // "--" tells SunPKCS11 the argument is the configuration itself rather than a file's name.
        String config = "--name = kafscale-kek-" + PROVIDERS.incrementAndGet() + "\n"
                + "library = \"" + library + "\"\n" + slot.configLine() + "\n";
        Provider base = Security.getProvider("SunPKCS11");
        if (base == null) {
            throw new OpenFailure(Setting.LIBRARY, "this JVM has no SunPKCS11 provider (module jdk.crypto.cryptoki)", null);
        }
        try {
            return base.configure(config);
        } catch (RuntimeException e) {
            String why = rootMessage(e);
            boolean slotWrong = slotWrong(why);
            throw new OpenFailure(slotWrong ? Setting.SLOT : Setting.LIBRARY, "PKCS#11 library " + library
                    + (slotWrong ? " has no token in " + slot.configLine() : " does not load") + ": " + why, e);
        }
    }

    /** Whether the token's (or SunPKCS11's) reason says the slot holds no token. */
    private static boolean slotWrong(String why) {
        return why.contains("SLOT_ID_INVALID") || why.contains("TOKEN_NOT_PRESENT") || why.contains("slotListIndex");
    }

    /** A key the token can wrap but not unwrap (or not at all) is found at start-up, not at the first record. */
    private void check() {
        byte[] probe = new byte[32];
        random.nextBytes(probe);
        try {
            byte[] back = unwrap(label, wrap(new SecretKeySpec(probe, "AES"))).getEncoded();
            if (!Arrays.equals(probe, back)) {
                throw new IllegalStateException("a wrapped key came back changed");
            }
        } catch (RuntimeException e) {
            throw new OpenFailure(Setting.LABEL, "key '" + label + "' of the token does not encrypt and decrypt"
                    + " with AES-GCM: " + rootMessage(e), e);
        }
    }

    @Override
    public String keyId() {
        return label;
    }

    @Override
    public byte[] wrap(SecretKey dataKey) {
        byte[] iv = new byte[IV_BYTES];
        random.nextBytes(iv);
        try {
            Cipher cipher = cipher(Cipher.ENCRYPT_MODE, iv);
            byte[] sealed = cipher.doFinal(dataKey.getEncoded());
            return ByteBuffer.allocate(IV_BYTES + sealed.length).put(iv).put(sealed).array();
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("wrapping a data key with token key '" + label + "' failed: " + e, e);
        }
    }

    @Override
    public SecretKey unwrap(String keyId, byte[] wrapped) {
        if (!label.equals(keyId)) {
            throw new IllegalArgumentException("unknown key-encryption key '" + keyId + "'");
        }
        if (wrapped.length <= IV_BYTES + TAG_BITS / 8) {
            throw new IllegalArgumentException("a wrapped key of " + wrapped.length + " bytes is cut short");
        }
        try {
            Cipher cipher = cipher(Cipher.DECRYPT_MODE, Arrays.copyOf(wrapped, IV_BYTES));
            byte[] key = cipher.doFinal(wrapped, IV_BYTES, wrapped.length - IV_BYTES);
            return new SecretKeySpec(key, "AES");
        } catch (GeneralSecurityException e) {
            throw new IllegalArgumentException("the data key does not unwrap with token key '" + label + "': " + e, e);
        }
    }

    private Cipher cipher(int mode, byte[] iv) throws GeneralSecurityException {
        Cipher cipher = Cipher.getInstance("AES/GCM/NoPadding", provider);
        cipher.init(mode, kek, new GCMParameterSpec(TAG_BITS, iv));
        cipher.updateAAD(label.getBytes(StandardCharsets.UTF_8));
        return cipher;
    }

    /** The innermost message: SunPKCS11 wraps the token's own reason (CKR_PIN_INCORRECT) in layers. */
    private static String rootMessage(Throwable e) {
        Throwable root = e;
        while (root.getCause() != null && root.getCause() != root) {
            root = root.getCause();
        }
        String message = root.getMessage();
        return message == null ? root.getClass().getSimpleName() : message;
    }
}
