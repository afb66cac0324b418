package org.kafscale.proxy.core.audit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class RollingFileSinkTest {
    @TempDir
    Path dir;

    @Test
    void rollsBySizeAndKeepsOnlyMaxFiles() throws IOException {
        Path file = dir.resolve("audit.jsonl");
        // 10-byte lines (9 characters and the line break): three to a 30-byte file
        try (RollingFileSink sink = new RollingFileSink(file, 30, 3)) {
            for (int i = 0; i < 12; i++) {
                sink.write(List.of("line-" + String.format("%04d", i)));
            }
        }

        assertEquals(List.of("line-0009", "line-0010", "line-0011"), Files.readAllLines(file));
        assertEquals(List.of("line-0006", "line-0007", "line-0008"), Files.readAllLines(dir.resolve("audit.jsonl.1")));
        assertEquals(List.of("line-0003", "line-0004", "line-0005"), Files.readAllLines(dir.resolve("audit.jsonl.2")));
        assertFalse(Files.exists(dir.resolve("audit.jsonl.3")), "the oldest file past maxFiles is deleted");
    }

    @Test
    void appendsToTheFileItFindsAndCountsItsSize() throws IOException {
        Path file = Files.writeString(dir.resolve("audit.jsonl"), "old-line\n");
        try (RollingFileSink sink = new RollingFileSink(file, 20, 2)) {
            sink.write(List.of("new-line"));
            sink.write(List.of("rolls-it"));
        }

        assertEquals(List.of("old-line", "new-line"), Files.readAllLines(dir.resolve("audit.jsonl.1")));
        assertEquals(List.of("rolls-it"), Files.readAllLines(file));
    }

    @Test
    void oneFileIsStartedAgainOnRoll() throws IOException {
        Path file = dir.resolve("audit.jsonl");
        try (RollingFileSink sink = new RollingFileSink(file, 10, 1)) {
            sink.write(List.of("aaaaaaaa"));
            sink.write(List.of("bbbbbbbb"));
        }

        assertEquals(List.of("bbbbbbbb"), Files.readAllLines(file));
        assertFalse(Files.exists(dir.resolve("audit.jsonl.1")));
    }

    @Test
    void aPathThatCannotBeWrittenFailsTheWriteAndWorksOnceItCan() throws IOException {
        Path file = dir.resolve("audit.jsonl");
        Files.createDirectory(file);
        try (RollingFileSink sink = new RollingFileSink(file, 1000, 2)) {
            assertThrows(IOException.class, sink::probe);

            Files.delete(file);

            sink.probe();
            sink.write(List.of("written"));
        }
        assertTrue(Files.readString(file).contains("written"));
    }
}
