package org.kafscale.proxy.bench.report;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;

/**
 * A run's report as one self-contained HTML file: a summary table, then one chart per
 * {@link Timeline} chart (every series over time, events as labelled vertical lines), drawn by
 * uPlot, whose script and stylesheet are inlined from its webjar so the file opens anywhere
 * without a network. The data is embedded as JSON; nothing is drawn by hand but the event lines.
 */
public final class HtmlReport {
    private static final String UPLOT = "META-INF/resources/webjars/uplot/" + uplotVersion() + "/dist/";
    private static final ObjectMapper JSON = new ObjectMapper();

    private HtmlReport() {
    }

    /**
     * @param title the page's heading
     * @param summary rows of (name, value), shown first (the verdicts: PASS/FAIL, ratios)
     */
    public static void write(Path file, String title, List<Map.Entry<String, String>> summary, Timeline timeline)
            throws IOException {
        Files.writeString(file, render(title, summary, timeline), StandardCharsets.UTF_8);
    }

    static String render(String title, List<Map.Entry<String, String>> summary, Timeline timeline) {
        StringBuilder html = new StringBuilder(256 * 1024);
        html.append("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>").append(escape(title))
                .append("</title>\n<style>").append(resource(UPLOT + "uPlot.min.css")).append("\n")
                .append("body{font-family:sans-serif;margin:2em;max-width:1100px}table{border-collapse:collapse}"
                        + "td,th{border:1px solid #ccc;padding:4px 8px;text-align:left}.chart{margin:2em 0}"
                        + ".fail{color:#b00;font-weight:bold}.pass{color:#070}</style>\n")
                .append("<script>").append(resource(UPLOT + "uPlot.iife.min.js")).append("</script>\n</head><body>\n")
                .append("<h1>").append(escape(title)).append("</h1>\n<table id=\"summary\">\n");
        for (Map.Entry<String, String> row : summary) {
            String css = row.getValue().startsWith("FAIL") ? " class=\"fail\""
                    : row.getValue().startsWith("PASS") ? " class=\"pass\"" : "";
            html.append("<tr><th>").append(escape(row.getKey())).append("</th><td").append(css).append(">")
                    .append(escape(row.getValue())).append("</td></tr>\n");
        }
        html.append("</table>\n<div id=\"charts\"></div>\n<script id=\"data\" type=\"application/json\">")
                // script text is not entity-decoded: only "</" must not appear, and "<\/" is the same JSON
                .append(data(timeline).toString().replace("</", "<\\/")).append("</script>\n<script>").append(DRAW)
                .append("</script>\n</body></html>\n");
        return html.toString();
    }

    /**
     * uPlot's data shape per chart: one x array (seconds, the union of every series' times) and one
     * y array per series aligned to it, null where the series has no value at that time.
     */
    static ObjectNode data(Timeline timeline) {
        ObjectNode root = JSON.createObjectNode();
        ArrayNode charts = root.putArray("charts");
        for (Timeline.Chart chart : timeline.charts()) {
            TreeSet<Double> times = new TreeSet<>();
            chart.series().values().forEach(points -> points.forEach(p -> times.add(p.seconds())));
            List<Double> xs = List.copyOf(times);
            ObjectNode node = charts.addObject().put("title", chart.title()).put("unit", chart.unit());
            ArrayNode names = node.putArray("series");
            ArrayNode data = node.putArray("data");
            ArrayNode x = data.addArray();
            xs.forEach(x::add);
            chart.series().forEach((name, points) -> {
                names.add(name);
                ArrayNode y = data.addArray();
                Map<Double, Double> byTime = new java.util.HashMap<>();
                points.forEach(p -> byTime.put(p.seconds(), p.value()));
                xs.forEach(t -> {
                    Double value = byTime.get(t);
                    if (value == null || value.isNaN() || value.isInfinite()) {
                        y.addNull();
                    } else {
                        y.add(value);
                    }
                });
            });
        }
        ArrayNode events = root.putArray("events");
        timeline.events().forEach(e -> events.addObject().put("seconds", e.seconds()).put("label", e.label()));
        return root;
    }

    /** Builds one uPlot per chart from the embedded JSON; events are drawn in its draw hook. */
    private static final String DRAW = """
            (function () {
              var parsed = JSON.parse(document.getElementById('data').textContent);
              var colors = ['#1f77b4', '#d62728', '#2ca02c', '#9467bd', '#ff7f0e', '#8c564b', '#17becf'];
              var events = parsed.events;
              function eventLines(u) {
                var ctx = u.ctx;
                ctx.save();
                ctx.strokeStyle = '#999';
                ctx.fillStyle = '#555';
                ctx.setLineDash([4, 4]);
                ctx.font = '11px sans-serif';
                events.forEach(function (e) {
                  var x = Math.round(u.valToPos(e.seconds, 'x', true));
                  if (x < u.bbox.left || x > u.bbox.left + u.bbox.width) { return; }
                  ctx.beginPath();
                  ctx.moveTo(x, u.bbox.top);
                  ctx.lineTo(x, u.bbox.top + u.bbox.height);
                  ctx.stroke();
                  ctx.fillText(e.label, x + 3, u.bbox.top + 12);
                });
                ctx.restore();
              }
              var holder = document.getElementById('charts');
              parsed.charts.forEach(function (chart, i) {
                var div = document.createElement('div');
                div.className = 'chart';
                holder.appendChild(div);
                var series = [{label: 'seconds'}];
                chart.series.forEach(function (name, j) {
                  series.push({label: name, stroke: colors[j % colors.length], spanGaps: true,
                               points: {show: true, size: 4}});
                });
                new uPlot({title: chart.title + ' (' + chart.unit + ')', width: 1000, height: 300,
                           scales: {x: {time: false}}, series: series,
                           axes: [{label: 'seconds since start'}, {label: chart.unit}],
                           hooks: {draw: [eventLines]}}, chart.data, div);
              });
              document.body.setAttribute('data-charts-drawn', String(parsed.charts.length));
            })();
            """;

    private static String resource(String name) {
        try (InputStream in = HtmlReport.class.getClassLoader().getResourceAsStream(name)) {
            if (in == null) {
                throw new IllegalStateException("not on the classpath: " + name + " (the uplot webjar)");
            }
            // A script's text may not contain its own closing tag; uPlot's does not, the check keeps it so.
            String text = new String(in.readAllBytes(), StandardCharsets.UTF_8);
            if (text.contains("</script")) {
                throw new IllegalStateException(name + " contains a closing script tag");
            }
            return text;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** The webjar's version, from its Maven metadata on the classpath. */
    private static String uplotVersion() {
        try (InputStream in = HtmlReport.class.getClassLoader()
                .getResourceAsStream("META-INF/maven/org.webjars.npm/uplot/pom.properties")) {
            java.util.Properties properties = new java.util.Properties();
            properties.load(in);
            return properties.getProperty("version");
        } catch (IOException | NullPointerException e) {
            throw new IllegalStateException("the uplot webjar is not on the classpath", e);
        }
    }

    private static String escape(String text) {
        return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;").replace("\"", "&quot;");
    }
}
