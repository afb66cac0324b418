package org.kafscale.proxy.core.audit;

import java.io.IOException;
import java.io.PrintStream;
import java.util.List;

/** JSON lines on a stream (stdout), for a log collector that reads the container's output. */
public final class StreamSink implements AuditSink {
    private final PrintStream out;

    public StreamSink(PrintStream out) {
        this.out = out;
    }

    @Override
    public String name() {
        return "stdout";
    }

    @Override
    public void write(List<String> lines) throws IOException {
        // One print per batch: lines of other writers of the stream are never cut into one.
        StringBuilder text = new StringBuilder();
        lines.forEach(line -> text.append(line).append(System.lineSeparator()));
        out.print(text);
        out.flush();
        if (out.checkError()) {
            throw new IOException("writing to the stream failed");
        }
    }
}
