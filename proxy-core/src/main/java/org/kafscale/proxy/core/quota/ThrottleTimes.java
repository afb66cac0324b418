package org.kafscale.proxy.core.quota;

import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import org.apache.kafka.common.protocol.ApiMessage;

/**
 * Sets {@code throttle_time_ms} in an answer of any API that has the field (nearly all do; the
 * generated classes have no common interface for it), found once per answer class.
 */
final class ThrottleTimes {
    /** An answer class's getter and setter of the field, or null when it has none. */
    private static final ClassValue<MethodHandle[]> ACCESSORS = new ClassValue<>() {
        @Override
        protected MethodHandle[] computeValue(Class<?> type) {
            try {
                MethodHandles.Lookup lookup = MethodHandles.publicLookup();
                return new MethodHandle[] {
                        lookup.findVirtual(type, "throttleTimeMs", MethodType.methodType(int.class)),
                        lookup.findVirtual(type, "setThrottleTimeMs", MethodType.methodType(type, int.class))};
            } catch (NoSuchMethodException | IllegalAccessException e) {
                return null;
            }
        }
    };

    private ThrottleTimes() {
    }

    /**
     * Raises the answer's throttle time to {@code millis} when it is shorter (a broker's own
     * longer throttle stays); true when the answer changed.
     */
    static boolean raise(ApiMessage answer, int millis) {
        MethodHandle[] accessors = ACCESSORS.get(answer.getClass());
        if (accessors == null) {
            return false;
        }
        try {
            if ((int) accessors[0].invoke(answer) >= millis) {
                return false;
            }
            accessors[1].invoke(answer, millis);
            return true;
        } catch (Throwable e) {
            throw new IllegalStateException("cannot set the throttle time of " + answer.getClass().getSimpleName(), e);
        }
    }
}
