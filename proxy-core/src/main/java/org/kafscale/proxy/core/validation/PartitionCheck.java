package org.kafscale.proxy.core.validation;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletionStage;
import org.apache.kafka.common.message.ProduceRequestData.PartitionProduceData;
import org.apache.kafka.common.message.ProduceResponseData.BatchIndexAndErrorMessage;
import org.kafscale.proxy.core.codec.RecordSets;
import org.kafscale.proxy.core.validation.RecordFormat.Check;

/**
 * Checks every record of one Produce partition against its rule: the records are decoded here
 * (decompressed, for a compressed batch) and nowhere else; the batch bytes are not changed.
 * A record's index counts the partition's records from 0, as Kafka's {@code batch_index} does
 * (a Produce partition holds one batch from version 3 on).
 */
final class PartitionCheck {
    /**
     * The most record errors one partition's answer lists: a batch of thousands of bad records
     * should not make an answer of thousands of messages; the producer fails the whole batch anyway.
     */
    static final int MAX_RECORD_ERRORS = 100;

    /** What one pass over a partition found. */
    record Outcome(List<BatchIndexAndErrorMessage> errors, int invalid, Set<CompletionStage<?>> pending,
                   String undecodable) {
        boolean valid() {
            return invalid == 0 && pending.isEmpty();
        }

        /** The partition's {@code error_message}: how many records failed and the first reason. */
        String message() {
            if (undecodable != null) {
                return "records do not decode: " + undecodable;
            }
            return invalid + (invalid == 1 ? " record fails" : " records fail") + " validation"
                    + (errors.isEmpty() ? "" : "; record " + errors.get(0).batchIndex() + ": "
                    + errors.get(0).batchIndexErrorMessage());
        }
    }

    private PartitionCheck() {
    }

    /**
     * @param last whether this is the last pass: a check still pending then makes its record invalid
     */
    static Outcome run(PartitionProduceData partition, ValidationRule rule, boolean last) {
        List<BatchIndexAndErrorMessage> errors = new ArrayList<>();
        // A set: every record of a batch waiting on one schema waits on the same lookup.
        Set<CompletionStage<?>> pending = new HashSet<>();
        int[] invalid = {0};
        try {
            RecordSets.visitDataRecords(partition.records(), (index, key, value) -> {
                String reason = reason(rule.key(), key, "key", last, pending);
                if (reason == null) {
                    reason = reason(rule.value(), value, "value", last, pending);
                }
                if (reason != null) {
                    invalid[0]++;
                    if (errors.size() < MAX_RECORD_ERRORS) {
                        errors.add(new BatchIndexAndErrorMessage().setBatchIndex(index)
                                .setBatchIndexErrorMessage(reason));
                    }
                }
            });
        } catch (RuntimeException e) {
            // A batch that does not decode (corrupt, or a codec this JVM lacks) cannot be shown valid.
            return new Outcome(List.of(), 1, Set.of(), String.valueOf(e.getMessage()));
        }
        return new Outcome(errors, invalid[0], pending, null);
    }

    /** Why {@code bytes} is not of {@code format}; null when it is, when undecided yet, or when nothing is checked. */
    private static String reason(RecordFormat format, ByteBuffer bytes, String side, boolean last,
                                 Set<CompletionStage<?>> pending) {
        if (format == null || bytes == null) {
            return null;
        }
        Check check = format.check(bytes);
        if (check instanceof Check.Invalid invalid) {
            return side + ": " + invalid.reason();
        }
        if (check instanceof Check.Pending waiting) {
            if (last) {
                return side + ": its schema could not be had in time";
            }
            pending.add(waiting.ready());
        }
        return null;
    }
}
