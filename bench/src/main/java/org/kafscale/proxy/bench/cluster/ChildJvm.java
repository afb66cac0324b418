package org.kafscale.proxy.bench.cluster;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;

/**
 * A JVM started by the benchmark with the benchmark's own classpath. Its output goes to a log
 * file; {@link #awaitLine} waits for the line that says it is ready. Closing it closes its
 * standard input (which {@link ClusterMain} waits on) and then ends the process.
 */
public final class ChildJvm implements AutoCloseable {
    private final String name;
    private final Process process;
    private final CompletableFuture<String> readyLine = new CompletableFuture<>();
    private final Predicate<String> isReadyLine;
    private final boolean endsOnEndOfInput;

    private ChildJvm(String name, Process process, Predicate<String> isReadyLine, boolean endsOnEndOfInput) {
        this.name = name;
        this.process = process;
        this.isReadyLine = isReadyLine;
        this.endsOnEndOfInput = endsOnEndOfInput;
    }

    /**
     * @param jvmOptions options before the main class (heap, JFR, ...)
     * @param env variables added to this JVM's environment
     * @param log file that receives the child's standard output and error (appended to)
     * @param endsOnEndOfInput the child ends by itself when its standard input closes; otherwise
     *                         closing sends it SIGTERM (the proxy's shutdown hook)
     */
    public static ChildJvm start(String name, List<String> jvmOptions, String mainClass, List<String> args,
                                 Map<String, String> env, Path log, Predicate<String> isReadyLine,
                                 boolean endsOnEndOfInput) throws IOException {
        return start(name, jvmOptions, System.getProperty("java.class.path"), mainClass, args, env, log, isReadyLine,
                endsOnEndOfInput);
    }

    /**
     * As {@link #start(String, List, String, List, Map, Path, Predicate, boolean)}, with a
     * classpath of its own instead of the benchmark's (the peer proxy, whose Netty and
     * kafka-clients versions differ from ours).
     */
    public static ChildJvm start(String name, List<String> jvmOptions, String classpath, String mainClass,
                                 List<String> args, Map<String, String> env, Path log, Predicate<String> isReadyLine,
                                 boolean endsOnEndOfInput) throws IOException {
        List<String> command = new ArrayList<>();
        command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        command.addAll(jvmOptions);
        command.add("-cp");
        command.add(classpath);
        command.add(mainClass);
        command.addAll(args);
        ProcessBuilder builder = new ProcessBuilder(command).redirectErrorStream(true);
        builder.environment().putAll(env);
        Files.createDirectories(log.toAbsolutePath().getParent());
        ChildJvm child = new ChildJvm(name, builder.start(), isReadyLine, endsOnEndOfInput);
        child.copyOutputTo(log);
        // A JVM does not end its children: if the benchmark is interrupted (Ctrl-C), end them too.
        Runtime.getRuntime().addShutdownHook(new Thread(child.process::destroy, name + "-stop-on-exit"));
        return child;
    }

    public long pid() {
        return process.pid();
    }

    /** The first output line the ready predicate accepts; fails if the process ends first. */
    public String awaitLine(Duration deadline) {
        try {
            return readyLine.get(deadline.toMillis(), TimeUnit.MILLISECONDS);
        } catch (Exception e) {
            close();
            throw new IllegalStateException(name + " did not become ready within " + deadline + ": " + e, e);
        }
    }

    private void copyOutputTo(Path log) {
        Thread copier = new Thread(() -> {
            try (BufferedReader reader = new BufferedReader(new InputStreamReader(process.getInputStream(),
                    StandardCharsets.UTF_8));
                 PrintWriter writer = new PrintWriter(Files.newBufferedWriter(log, StandardCharsets.UTF_8,
                         StandardOpenOption.CREATE, StandardOpenOption.APPEND), true)) {
                String line;
                while ((line = reader.readLine()) != null) {
                    writer.println(line);
                    if (!readyLine.isDone() && isReadyLine.test(line)) {
                        readyLine.complete(line);
                    }
                }
            } catch (IOException e) {
                readyLine.completeExceptionally(e);
            }
            readyLine.completeExceptionally(new IllegalStateException(name + " ended (see " + log + ")"));
        }, name + "-output");
        copier.setDaemon(true);
        copier.start();
    }

    @Override
    public void close() {
        try {
            process.getOutputStream().close();
        } catch (IOException e) {
            // the process already went away
        }
        if (!endsOnEndOfInput) {
            process.destroy();
        }
        try {
            if (!process.waitFor(20, TimeUnit.SECONDS)) {
                process.destroy();
                if (!process.waitFor(10, TimeUnit.SECONDS)) {
                    process.destroyForcibly().waitFor();
                }
            }
        } catch (InterruptedException e) {
            process.destroyForcibly();
            Thread.currentThread().interrupt();
        }
    }
}
