package org.kafscale.proxy.app.config;

import java.nio.file.Path;
import java.util.Optional;

/**
 * The gateway file's {@code audit} section: where the audit trail goes and what happens when it
 * cannot be written (docs/governance.md).
 *
 * @param file the rolling file's path, if any
 * @param maxFileBytes the size a file is rolled at
 * @param maxFiles how many files are kept, the one written included
 * @param stdout whether events go to standard output too
 * @param topic the backend cluster's topic the proxy's own producer writes events to, if any
 * @param queueCapacity events each sink's queue holds before new ones are dropped
 * @param failClosed whether mutating calls are refused while a sink is down or full
 */
public record AuditSettings(Optional<Path> file, long maxFileBytes, int maxFiles, boolean stdout,
                            Optional<String> topic, int queueCapacity, boolean failClosed) {
    public static final long DEFAULT_MAX_FILE_BYTES = 100L * 1024 * 1024;
    public static final int DEFAULT_MAX_FILES = 10;
    public static final int DEFAULT_QUEUE_CAPACITY = 10_000;
}
