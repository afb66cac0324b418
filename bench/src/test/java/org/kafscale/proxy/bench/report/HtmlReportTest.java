package org.kafscale.proxy.bench.report;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The report page carries its charts' data and its charting library in itself. */
class HtmlReportTest {

    @Test
    void seriesRecordedAtDifferentTimesShareOneTimeAxisWithGapsAsNull() {
        Timeline timeline = new Timeline();
        timeline.record("Throughput", "MiB/s", "direct", 100);
        timeline.record("Throughput", "MiB/s", "proxy", 95);
        timeline.event("broker 1 killed");

        JsonNode chart = HtmlReport.data(timeline).get("charts").get(0);

        assertEquals(List.of("direct", "proxy"), List.of(chart.get("series").get(0).asText(),
                chart.get("series").get(1).asText()));
        JsonNode data = chart.get("data");
        assertEquals(2, data.get(0).size(), "two distinct times");
        assertEquals(100, data.get(1).get(0).asDouble());
        assertTrue(data.get(1).get(1).isNull(), "direct has no value at the proxy's time");
        assertTrue(data.get(2).get(0).isNull(), "the proxy has no value at direct's time");
        assertEquals(95, data.get(2).get(1).asDouble());
        assertEquals("broker 1 killed", HtmlReport.data(timeline).get("events").get(0).get("label").asText());
    }

    @Test
    void thePageIsSelfContainedAndItsDataSurvivesAClosingTagInALabel() throws Exception {
        Timeline timeline = new Timeline();
        timeline.record("Latency", "ms", "a </script> series", 1.5);

        String html = HtmlReport.render("Run", List.of(Map.entry("no loss", "PASS")), timeline);

        assertTrue(html.contains("uPlot"), "uPlot is inlined");
        assertFalse(html.contains("<script src"), "nothing is loaded from elsewhere");
        assertTrue(html.contains("<td class=\"pass\">PASS</td>"));
        String json = html.substring(html.indexOf("application/json\">") + "application/json\">".length());
        json = json.substring(0, json.indexOf("</script>"));
        JsonNode data = new ObjectMapper().readTree(json);
        assertEquals("a </script> series", data.get("charts").get(0).get("series").get(0).asText());
    }
}
