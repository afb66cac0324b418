package org.kafscale.proxy.testkit;

import static org.junit.jupiter.api.Assertions.assertDoesNotThrow;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.PooledByteBufAllocator;
import io.netty.buffer.UnpooledByteBufAllocator;
import io.netty.buffer.UnpooledHeapByteBuf;
import io.netty.util.ResourceLeakDetector;
import io.netty.util.ResourceLeakTracker;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ConditionEvaluationResult;
import org.junit.jupiter.api.extension.ExecutionCondition;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.platform.engine.TestExecutionResult;
import org.junit.platform.engine.TestSource;
import org.junit.platform.engine.support.descriptor.ClassSource;
import org.junit.platform.engine.support.descriptor.MethodSource;
import org.junit.platform.engine.discovery.DiscoverySelectors;
import org.junit.platform.launcher.LauncherDiscoveryRequest;
import org.junit.platform.launcher.TestExecutionListener;
import org.junit.platform.launcher.TestIdentifier;
import org.junit.platform.launcher.core.LauncherDiscoveryRequestBuilder;
import org.junit.platform.launcher.core.LauncherFactory;

class NettyLeakDetectionExtensionTest {

    @Test
    void leakedByteBufIsCapturedWithItsAccessRecords() {
        // Given a private detector (its leak must not reach the recorder that fails this class)
        LeakRecorder recorder = new LeakRecorder();
        ResourceLeakDetector<ByteBuf> detector = new ResourceLeakDetector<>(ByteBuf.class, 1);
        recorder.attachTo(detector);
        String marker = "deliberate-leak-" + UUID.randomUUID();

        // When a tracked buffer becomes garbage without release()
        leakOneBuffer(detector, marker);

        // Then the next tracking after a GC hands the report, with the hint, to the recorder
        Eventually.await(Duration.ofSeconds(10), "the deliberate leak to be reported", () -> {
            LeakReportFlusher.flush(() -> trackAndRelease(detector));
            return !recorder.reports().isEmpty();
        });
        String report = recorder.reports().get(0);
        assertTrue(report.contains("LEAK of ByteBuf"), report);
        assertTrue(report.contains(marker), report);
        assertTrue(report.contains("leakOneBuffer"), "creation stack trace expected:\n" + report);
    }

    @Test
    void classWithReportedLeaksFailsWithTheRecordsInTheMessage() {
        // Given
        LeakRecorder recorder = new LeakRecorder();
        NettyLeakDetectionExtension extension = new NettyLeakDetectionExtension(recorder);
        recorder.onLeak("ByteBuf", "#1:\n\tat com.example.Handler.channelRead(Handler.java:42)");

        // When
        AssertionError failure = assertThrows(AssertionError.class, () -> extension.verifyNoLeaks("com.example.HandlerTest"));

        // Then
        assertTrue(failure.getMessage().contains("com.example.HandlerTest"), failure.getMessage());
        assertTrue(failure.getMessage().contains("Handler.channelRead(Handler.java:42)"), failure.getMessage());
        assertEquals(List.of(), recorder.reports(), "reports are consumed so the next class starts clean");
        assertDoesNotThrow(() -> extension.verifyNoLeaks("com.example.NextTest"));
    }

    @Test
    void testClassThatLeaksAnAllocatorBufferFailsWhenRunByJUnit() {
        // Given a test class that leaks a pooled buffer, run through the JUnit launcher as surefire
        // runs it (so junit-platform.properties and the ServiceLoader registration apply)
        LauncherDiscoveryRequest request = LauncherDiscoveryRequestBuilder.request()
                .selectors(DiscoverySelectors.selectClass(LeakingSample.class))
                .configurationParameter(LeakingSample.RUN_PARAMETER, "true")
                .build();
        Map<String, TestExecutionResult> results = new ConcurrentHashMap<>();

        // When
        LauncherFactory.create().execute(request, new TestExecutionListener() {
            @Override
            public void executionFinished(TestIdentifier id, TestExecutionResult result) {
                id.getSource().ifPresent(source -> results.put(nameOf(source), result));
            }
        });

        // Then the test method passed but its class failed, naming the leaking method
        assertEquals(TestExecutionResult.Status.SUCCESSFUL, results.get("leaksAPooledBuffer").getStatus(), results::toString);
        TestExecutionResult classResult = results.get(LeakingSample.class.getName());
        assertEquals(TestExecutionResult.Status.FAILED, classResult.getStatus());
        Throwable failure = classResult.getThrowable().orElseThrow();
        assertInstanceOf(AssertionError.class, failure);
        assertTrue(failure.getMessage().contains("LEAK of ByteBuf"), failure.getMessage());
        assertTrue(failure.getMessage().contains("LeakingSample.leakPooledBuffer"), failure.getMessage());
    }

    private static String nameOf(TestSource source) {
        if (source instanceof MethodSource method) {
            return method.getMethodName();
        }
        return source instanceof ClassSource type ? type.getClassName() : source.toString();
    }

    /** A separate method, so that nothing on the test's stack keeps the buffer reachable. */
    private static void leakOneBuffer(ResourceLeakDetector<ByteBuf> detector, String marker) {
        ByteBuf buffer = untrackedBuffer();
        ResourceLeakTracker<ByteBuf> tracker = detector.track(buffer);
        tracker.record(marker);
    }

    private static void trackAndRelease(ResourceLeakDetector<ByteBuf> detector) {
        ByteBuf buffer = untrackedBuffer();
        detector.track(buffer).close(buffer);
    }

    /** Built directly, not through an allocator, so the JVM-wide buffer detector does not track it. */
    private static ByteBuf untrackedBuffer() {
        return new UnpooledHeapByteBuf(UnpooledByteBufAllocator.DEFAULT, 16, 16);
    }

    /**
     * Leaks on purpose. Runs only when the test above launches it: surefire skips nested classes,
     * and the condition disables it when an IDE runs it directly.
     */
    @ExtendWith(LeakingSample.OnlyWhenLaunchedByTheTest.class)
    static class LeakingSample {

        static final String RUN_PARAMETER = "testkit.runLeakingSample";

        @Test
        void leaksAPooledBuffer() {
            leakPooledBuffer();
        }

        private static void leakPooledBuffer() {
            PooledByteBufAllocator.DEFAULT.directBuffer(32).writeInt(7);
        }

        static final class OnlyWhenLaunchedByTheTest implements ExecutionCondition {
            @Override
            public ConditionEvaluationResult evaluateExecutionCondition(ExtensionContext context) {
                return context.getConfigurationParameter(RUN_PARAMETER).isPresent()
                        ? ConditionEvaluationResult.enabled("launched by NettyLeakDetectionExtensionTest")
                        : ConditionEvaluationResult.disabled("leaks on purpose; only for NettyLeakDetectionExtensionTest");
            }
        }
    }
}
