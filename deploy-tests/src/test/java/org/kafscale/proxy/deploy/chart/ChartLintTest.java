package org.kafscale.proxy.deploy.chart;

import static org.junit.jupiter.api.Assertions.assertFalse;

import com.marcnuri.helm.Helm;
import com.marcnuri.helm.LintResult;
import org.junit.jupiter.api.Test;
import org.kafscale.proxy.deploy.RepoPaths;

class ChartLintTest {

    @Test
    void chartPassesStrictLint() {
        // When: `helm lint --strict`, where a warning (a missing recommended field, a schema
        // violation of values.yaml, a template that does not render) fails
        LintResult result = new Helm(RepoPaths.chart()).lint().strict().call();

        // Then
        assertFalse(result.isFailed(), () -> String.join("\n", result.getMessages()));
    }
}
