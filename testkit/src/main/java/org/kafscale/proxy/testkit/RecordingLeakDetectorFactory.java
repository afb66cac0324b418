package org.kafscale.proxy.testkit;

import java.lang.reflect.Field;

import io.netty.util.ResourceLeakDetector;
import io.netty.util.ResourceLeakDetectorFactory;

/**
 * Makes every Netty leak detector report to a {@link LeakRecorder}.
 *
 * <p>netty-common 4.2.18 has no global leak listener: {@link ResourceLeakDetector#setLeakListener}
 * works per detector instance, and each detector is created once, in a static initialiser (for
 * buffers: {@code AbstractByteBuf.leakDetector}). So this factory wraps Netty's own factory for
 * detectors created from now on, and {@link #install} also attaches the recorder to the buffer
 * detector in case {@code AbstractByteBuf} was initialised before the factory was installed.
 */
final class RecordingLeakDetectorFactory extends ResourceLeakDetectorFactory {

    private final ResourceLeakDetectorFactory delegate;
    private final LeakRecorder recorder;

    private RecordingLeakDetectorFactory(ResourceLeakDetectorFactory delegate, LeakRecorder recorder) {
        this.delegate = delegate;
        this.recorder = recorder;
    }

    /** Installs the factory and hooks the already existing ByteBuf detector. */
    static void install(LeakRecorder recorder) {
        ResourceLeakDetectorFactory current = ResourceLeakDetectorFactory.instance();
        if (!(current instanceof RecordingLeakDetectorFactory)) {
            ResourceLeakDetectorFactory.setResourceLeakDetectorFactory(new RecordingLeakDetectorFactory(current, recorder));
        }
        recorder.attachTo(byteBufDetector());
    }

    @Override
    public <T> ResourceLeakDetector<T> newResourceLeakDetector(Class<T> resource, int samplingInterval) {
        return attach(delegate.newResourceLeakDetector(resource, samplingInterval));
    }

    /** Deprecated in Netty but still abstract, so it must be implemented; delegates like the rest. */
    @Override
    @SuppressWarnings("deprecation")
    public <T> ResourceLeakDetector<T> newResourceLeakDetector(Class<T> resource, int samplingInterval, long maxActive) {
        return attach(delegate.newResourceLeakDetector(resource, samplingInterval, maxActive));
    }

    private <T> ResourceLeakDetector<T> attach(ResourceLeakDetector<T> detector) {
        recorder.attachTo(detector);
        return detector;
    }

    /**
     * The detector all ByteBufs share. It is a package-private static field, reachable only by
     * reflection; loading the class here also creates it through this factory if it did not exist.
     */
    static ResourceLeakDetector<?> byteBufDetector() {
        try {
            Field field = Class.forName("io.netty.buffer.AbstractByteBuf").getDeclaredField("leakDetector");
            field.setAccessible(true);
            return (ResourceLeakDetector<?>) field.get(null);
        } catch (ReflectiveOperationException | RuntimeException e) {
            throw new IllegalStateException("cannot reach Netty's ByteBuf leak detector (AbstractByteBuf.leakDetector); "
                    + "did the Netty version change?", e);
        }
    }
}
