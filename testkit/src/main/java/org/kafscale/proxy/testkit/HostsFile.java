package org.kafscale.proxy.testkit;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;

/**
 * Host names mapped to 127.0.0.1 in {@code /etc/hosts} for one test, and removed again on close:
 * what a test of routing by name (SNI) needs so that every real client (the JVM, librdkafka)
 * resolves the names the proxy advertises through the system's own resolver. Each line carries a
 * mark unique to this instance, so closing removes exactly its own lines, whatever else changed
 * the file meanwhile. Writing the file needs root (the CI machines run as root); {@link #isWritable}
 * tells a test to skip otherwise.
 */
public final class HostsFile implements AutoCloseable {
    private static final Path FILE = Path.of("/etc/hosts");

    private final String mark = "# kafscale-proxy-test " + UUID.randomUUID();

    private HostsFile(List<String> names) {
        List<String> lines = new ArrayList<>();
        names.forEach(name -> lines.add("127.0.0.1 " + name + " " + mark));
        edit(current -> {
            List<String> next = new ArrayList<>(current);
            next.addAll(lines);
            return next;
        });
    }

    /** Whether this process may change the file. */
    public static boolean isWritable() {
        return Files.isWritable(FILE);
    }

    /** Maps each of {@code names} to 127.0.0.1 until {@link #close}. */
    public static HostsFile mapToLoopback(List<String> names) {
        return new HostsFile(names);
    }

    @Override
    public void close() {
        edit(current -> current.stream().filter(line -> !line.endsWith(mark)).toList());
    }

    private static synchronized void edit(java.util.function.UnaryOperator<List<String>> change) {
        try {
            List<String> next = change.apply(Files.readAllLines(FILE, StandardCharsets.UTF_8));
            // Written in place, not replaced: /etc/hosts may be a bind mount, which a rename cannot replace.
            Files.write(FILE, next, StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot change " + FILE, e);
        }
    }
}
