package org.kafscale.proxy.testkit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import org.junit.jupiter.api.Test;

class ExecutablesTest {

    @Test
    void missingToolFailsWithHowToInstallIt() {
        IllegalStateException e = assertThrows(IllegalStateException.class,
                () -> Executables.require("no-such-tool-for-testkit", "apt-get install no-such-tool"));

        assertEquals("no-such-tool-for-testkit not found: apt-get install no-such-tool", e.getMessage());
    }
}
