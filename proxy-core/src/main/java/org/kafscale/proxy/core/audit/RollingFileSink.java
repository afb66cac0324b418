package org.kafscale.proxy.core.audit;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.List;

/**
 * JSON lines appended to a file that rolls by size: when the next batch would take the file past
 * {@code maxFileBytes}, it becomes {@code <file>.1} (the older ones move up by one, the oldest past
 * {@code maxFiles} is deleted) and a new file starts. Each batch is forced to the disk before it
 * counts as written. The file is opened at the first write and again after a failure, so a
 * missing directory or a full disk makes the sink down, not the proxy.
 */
public final class RollingFileSink implements AuditSink {
    private final Path file;
    private final long maxFileBytes;
    private final int maxFiles;
    private FileChannel channel;
    private long size;

    /**
     * @param maxFileBytes the size a file is rolled at (a single batch larger than this still goes in whole)
     * @param maxFiles how many files are kept, the one written included (1: the file is truncated on roll)
     */
    public RollingFileSink(Path file, long maxFileBytes, int maxFiles) {
        if (maxFileBytes < 1 || maxFiles < 1) {
            throw new IllegalArgumentException("maxFileBytes and maxFiles must be at least 1");
        }
        this.file = file;
        this.maxFileBytes = maxFileBytes;
        this.maxFiles = maxFiles;
    }

    @Override
    public String name() {
        return "file";
    }

    @Override
    public void write(List<String> lines) throws IOException {
        try {
            open();
            if (lines.isEmpty()) {
                return;
            }
            StringBuilder text = new StringBuilder();
            lines.forEach(line -> text.append(line).append('\n'));
            ByteBuffer bytes = ByteBuffer.wrap(text.toString().getBytes(StandardCharsets.UTF_8));
            if (size > 0 && size + bytes.remaining() > maxFileBytes) {
                roll();
            }
            while (bytes.hasRemaining()) {
                size += channel.write(bytes);
            }
            channel.force(false);
        } catch (IOException | RuntimeException e) {
            closeChannel();
            throw e;
        }
    }

    private void open() throws IOException {
        if (channel == null) {
            channel = FileChannel.open(file, StandardOpenOption.CREATE, StandardOpenOption.WRITE,
                    StandardOpenOption.APPEND);
            size = channel.size();
        }
    }

    private void roll() throws IOException {
        closeChannel();
        if (maxFiles == 1) {
            Files.deleteIfExists(file);
        } else {
            Files.deleteIfExists(rolled(maxFiles - 1));
            for (int i = maxFiles - 2; i >= 1; i--) {
                if (Files.exists(rolled(i))) {
                    Files.move(rolled(i), rolled(i + 1), StandardCopyOption.REPLACE_EXISTING);
                }
            }
            Files.move(file, rolled(1), StandardCopyOption.REPLACE_EXISTING);
        }
        open();
    }

    /** The {@code index}-th older file: {@code audit.jsonl.1} is the newest of them. */
    Path rolled(int index) {
        return file.resolveSibling(file.getFileName() + "." + index);
    }

    private void closeChannel() {
        if (channel != null) {
            try {
                channel.close();
            } catch (IOException ignored) {
                // Closing after a failure: the failure is what is reported.
            }
            channel = null;
        }
    }

    @Override
    public void close() {
        closeChannel();
    }
}
