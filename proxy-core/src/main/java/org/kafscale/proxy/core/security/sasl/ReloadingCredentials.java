package org.kafscale.proxy.core.security.sasl;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;
import java.nio.file.attribute.FileTime;
import java.util.Objects;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The credentials file as it is now: read at start-up (a bad file stops it), and read again when
 * its modification time or size changes, so a rotated Kubernetes secret takes effect without a
 * restart. A file that turns bad keeps the last good users, with a warning, rather than locking
 * every client out. Looked at from the authentication threads only, never from an event loop.
 */
public final class ReloadingCredentials {
    private static final Logger LOGGER = LoggerFactory.getLogger(ReloadingCredentials.class);

    private final Path file;
    private volatile Loaded loaded;

    private record Loaded(CredentialsFile users, FileTime modified, long size, Object fileKey) {
    }

    /** @throws IllegalArgumentException or {@link java.io.UncheckedIOException} when the file is bad */
    public ReloadingCredentials(Path file) {
        this.file = file;
        this.loaded = load();
        LOGGER.info("SASL credentials: {} users from {}", loaded.users().userCount(), file);
    }

    /** The users, re-read first when the file changed. */
    public CredentialsFile current() {
        Loaded last = loaded;
        BasicFileAttributes now;
        try {
            now = Files.readAttributes(file, BasicFileAttributes.class);
        } catch (IOException e) {
            return last.users();
        }
        if (now.lastModifiedTime().equals(last.modified()) && now.size() == last.size()
                && Objects.equals(now.fileKey(), last.fileKey())) {
            return last.users();
        }
        synchronized (this) {
            if (loaded == last) {
                try {
                    loaded = load();
                    LOGGER.info("SASL credentials reloaded: {} users from {}", loaded.users().userCount(), file);
                } catch (RuntimeException e) {
                    // Remember this version of the file, so it is reported once, not at every authentication.
                    loaded = new Loaded(last.users(), now.lastModifiedTime(), now.size(), now.fileKey());
                    LOGGER.warn("SASL credentials file {} could not be reloaded ({}); keeping the {} users read "
                            + "before", file, e.getMessage(), last.users().userCount());
                }
            }
            return loaded.users();
        }
    }

    private Loaded load() {
        try {
            // Attributes first: a change between the two reads is then seen at the next look.
            BasicFileAttributes attributes = Files.readAttributes(file, BasicFileAttributes.class);
            return new Loaded(CredentialsFile.read(file), attributes.lastModifiedTime(), attributes.size(),
                    attributes.fileKey());
        } catch (IOException e) {
            throw new java.io.UncheckedIOException("cannot read " + file + ": " + e.getMessage(), e);
        }
    }
}
