package org.kafscale.proxy.core.codec;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.apache.kafka.common.errors.InvalidRequestException;
import org.junit.jupiter.api.Test;

class CoordinatorKeyTypesTest {

    @Test
    void keyTypesAreTheWireValuesOfFindCoordinator() {
        // Given / When / Then a group is key type 0 and a transactional id key type 1 (KIP-98)
        assertEquals(0, CoordinatorKeyTypes.GROUP);
        assertEquals(1, CoordinatorKeyTypes.TRANSACTION);
    }

    @Test
    void onlyTheTransactionKeyTypeNamesATransactionalId() {
        // Given / When / Then
        assertTrue(CoordinatorKeyTypes.isTransaction(CoordinatorKeyTypes.TRANSACTION));
        assertFalse(CoordinatorKeyTypes.isTransaction(CoordinatorKeyTypes.GROUP));
    }

    @Test
    void aKeyTypeKafkaDoesNotKnowIsAnInvalidRequest() {
        // Given a key type no Kafka version defines
        byte unknown = 42;

        // When / Then asking about it fails as Kafka's broker would answer it
        assertThrows(InvalidRequestException.class, () -> CoordinatorKeyTypes.isTransaction(unknown));
    }
}
