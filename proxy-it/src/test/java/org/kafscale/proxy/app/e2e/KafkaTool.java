package org.kafscale.proxy.app.e2e;

import java.io.ByteArrayOutputStream;
import java.io.OutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.kafka.common.utils.Exit;

/**
 * One of Kafka's command-line tools, run in the test JVM as {@code bin/kafka-*.sh} would run it:
 * its public {@code main} with the arguments a user types, its stdout and stderr captured.
 *
 * <p>Every Kafka tool ends through {@link Exit} (never {@code System.exit} directly), whose
 * procedure Kafka's own tool tests replace; here it throws, so a tool's exit code is returned and
 * the JVM keeps running. Output is captured only from the thread that runs the tool: brokers and
 * the proxy log to the same {@code System.out} from their own threads at the same time.
 */
enum KafkaTool {
    TOPICS("kafka-topics", org.apache.kafka.tools.TopicCommand::main),
    CONSUMER_GROUPS("kafka-consumer-groups", org.apache.kafka.tools.consumer.group.ConsumerGroupCommand::main),
    CONFIGS("kafka-configs", kafka.admin.ConfigCommand::main),
    TRANSACTIONS("kafka-transactions", org.apache.kafka.tools.TransactionsCommand::main),
    FEATURES("kafka-features", org.apache.kafka.tools.FeatureCommand::main),
    LEADER_ELECTION("kafka-leader-election", org.apache.kafka.tools.LeaderElectionCommand::main),
    DELETE_RECORDS("kafka-delete-records", org.apache.kafka.tools.DeleteRecordsCommand::main),
    GET_OFFSETS("kafka-get-offsets", org.apache.kafka.tools.GetOffsetShell::main);

    /** What a tool printed and how it ended; {@code exitCode} 0 for a tool that returned without exiting. */
    record Output(String command, int exitCode, String stdout, String stderr) {
        @Override
        public String toString() {
            return "$ " + command + "\nexit " + exitCode + "\n--- stdout\n" + stdout + "--- stderr\n" + stderr;
        }
    }

    private final String script;
    private final Main main;

    KafkaTool(String script, Main main) {
        this.script = script;
        this.main = main;
    }

    /** A tool's {@code public static void main}. */
    @FunctionalInterface
    private interface Main {
        void run(String[] args) throws Exception;
    }

    /** Thrown by the replaced exit procedure to unwind the tool instead of ending the JVM. */
    private static final class ToolExited extends RuntimeException {
        ToolExited(int code) {
            super("exit " + code, null, false, false);
        }
    }

    /**
     * Runs the tool; synchronized because the exit procedure and the standard streams are JVM-wide.
     *
     * <p>The first exit is where a real JVM would have ended: its code is the tool's exit code, and
     * what the tool prints after it (some tools catch {@code Throwable} around their own exit and
     * report the unwinding) is dropped.
     */
    Output run(String... args) {
        synchronized (KafkaTool.class) {
            Capture out = new Capture(Thread.currentThread(), System.out);
            Capture err = new Capture(Thread.currentThread(), System.err);
            AtomicInteger firstExit = new AtomicInteger(NOT_EXITED);
            Exit.Procedure exit = (code, message) -> {
                if (firstExit.compareAndSet(NOT_EXITED, code)) {
                    out.end();
                    err.end();
                }
                throw new ToolExited(code);
            };
            System.setOut(out.stream());
            System.setErr(err.stream());
            Exit.setExitProcedure(exit);
            Exit.setHaltProcedure(exit);
            int uncaught = 0;
            try {
                main.run(args);
            } catch (ToolExited e) {
                // the code is in firstExit
            } catch (Exception e) {
                // what the JVM does with an exception out of main: the trace on stderr, exit 1
                e.printStackTrace();
                uncaught = 1;
            } finally {
                Exit.resetExitProcedure();
                Exit.resetHaltProcedure();
                System.setOut(out.others);
                System.setErr(err.others);
            }
            int exitCode = firstExit.get() == NOT_EXITED ? uncaught : firstExit.get();
            return new Output(script + " " + String.join(" ", args), exitCode, out.text(), err.text());
        }
    }

    private static final int NOT_EXITED = Integer.MIN_VALUE;

    /**
     * A standard stream that keeps what the tool's thread writes until the tool exits and passes
     * every other thread's bytes on.
     */
    private static final class Capture {
        private final Thread tool;
        private final PrintStream others;
        private final ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        private final PrintStream kept = new PrintStream(bytes, true, StandardCharsets.UTF_8);
        private final PrintStream dropped = new PrintStream(OutputStream.nullOutputStream());
        private volatile boolean ended;

        Capture(Thread tool, PrintStream others) {
            this.tool = tool;
            this.others = others;
        }

        void end() {
            kept.flush();
            ended = true;
        }

        String text() {
            kept.flush();
            return bytes.toString(StandardCharsets.UTF_8);
        }

        PrintStream stream() {
            return new PrintStream(new OutputStream() {
                @Override
                public void write(int b) {
                    target().write(b);
                }

                @Override
                public void write(byte[] b, int off, int len) {
                    target().write(b, off, len);
                }

                @Override
                public void flush() {
                    target().flush();
                }
            }, true, StandardCharsets.UTF_8);
        }

        private PrintStream target() {
            if (Thread.currentThread() != tool) {
                return others;
            }
            return ended ? dropped : kept;
        }
    }
}
