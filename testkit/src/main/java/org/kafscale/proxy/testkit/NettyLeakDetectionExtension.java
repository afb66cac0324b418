package org.kafscale.proxy.testkit;

import java.util.List;

import io.netty.util.ResourceLeakDetector;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Fails a test class in which a Netty buffer (or other tracked Netty resource) leaked.
 *
 * <p>Registered for every test of every module that depends on the testkit, through
 * {@code META-INF/services/org.junit.jupiter.api.extension.Extension} and
 * {@code junit.jupiter.extensions.autodetection.enabled=true} in the testkit's
 * {@code junit-platform.properties}. It runs Netty's detector at PARANOID level (every buffer is
 * tracked, with access records) and routes its reports to a {@link LeakRecorder}. After each test
 * class it flushes pending reports and fails the class with the leak records as the message.
 *
 * <p>Granularity is the class, not the method: a leak is seen only after a GC, and forcing several
 * GCs after every method would make the suite much slower.
 */
public final class NettyLeakDetectionExtension implements AfterAllCallback {

    private static final Logger LOGGER = LoggerFactory.getLogger(NettyLeakDetectionExtension.class);

    /** One recorder per JVM: Netty's detectors are JVM-wide singletons. */
    static final LeakRecorder GLOBAL_RECORDER = new LeakRecorder();

    static {
        ResourceLeakDetector.setLevel(ResourceLeakDetector.Level.PARANOID);
        RecordingLeakDetectorFactory.install(GLOBAL_RECORDER);
    }

    private final LeakRecorder recorder;

    /** Used by JUnit's ServiceLoader. */
    public NettyLeakDetectionExtension() {
        this(GLOBAL_RECORDER);
    }

    NettyLeakDetectionExtension(LeakRecorder recorder) {
        this.recorder = recorder;
    }

    @Override
    public void afterAll(ExtensionContext context) {
        LeakReportFlusher.flushByteBufLeaks();
        verifyNoLeaks(context.getRequiredTestClass().getName());
    }

    /** Throws if the recorder holds reports, and forgets them so the next class starts clean. */
    void verifyNoLeaks(String testClass) {
        List<String> leaks = recorder.drain();
        if (leaks.isEmpty()) {
            return;
        }
        String message = leaks.size() + " Netty resource leak(s) reported while running " + testClass
                + " (the leak happened in this class or just before it):\n\n" + String.join("\n\n", leaks);
        LOGGER.error(message);
        throw new AssertionError(message);
    }
}
