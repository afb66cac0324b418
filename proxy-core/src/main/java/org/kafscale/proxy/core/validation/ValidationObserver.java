package org.kafscale.proxy.core.validation;

/** Hears each refused partition, for metrics: the rule that refused it (a bounded set: the gateway file's). */
@FunctionalInterface
public interface ValidationObserver {
    ValidationObserver NONE = (rule, records) -> { };

    /** A Produce partition was refused under {@code rule}, {@code records} of its records invalid. */
    void refused(ValidationRule rule, int records);
}
