package org.kafscale.proxy.core.security.tls;

import java.nio.file.Path;

/**
 * A file of the listener's TLS material cannot be read or is not what it should be. Says which
 * part failed, so configuration can name the setting that points at it.
 */
public final class TlsMaterialException extends RuntimeException {
    private final Part part;
    private final Path file;

    TlsMaterialException(Part part, Path file, Throwable cause) {
        super("cannot use " + part.description + " " + file + ": " + describe(cause), cause);
        this.part = part;
        this.file = file;
    }

    /** Which file was bad. */
    public Part part() {
        return part;
    }

    public Path file() {
        return file;
    }

    private static String describe(Throwable cause) {
        String message = cause.getMessage();
        return message == null || message.isBlank() ? cause.getClass().getSimpleName() : message;
    }

    /** The parts of the TLS material, each read from its own file. */
    public enum Part {
        CERTIFICATE("the certificate chain"),
        PRIVATE_KEY("the private key (or the pair of certificate and key)"),
        KEY_STORE("the key store"),
        CLIENT_CA("the client CA");

        private final String description;

        Part(String description) {
            this.description = description;
        }
    }
}
