package org.kafscale.proxy.routing.admin;

import java.util.OptionalInt;
import org.kafscale.proxy.core.codec.ConfigResourceTypes;

/** A config resource as a request names it and its result repeats it: type and name. */
record ConfigResourceKey(byte type, String name) {

    /** Whether only one broker, the one its name gives, can answer for this resource. */
    boolean namesOneBroker() {
        return ConfigResourceTypes.namesOneBroker(type, name);
    }

    /** The broker id the name gives, or empty when the name is not a broker id. */
    OptionalInt brokerId() {
        try {
            return OptionalInt.of(Integer.parseInt(name.trim()));
        } catch (NumberFormatException e) {
            return OptionalInt.empty();
        }
    }
}
