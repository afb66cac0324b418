package org.kafscale.proxy.bench.proxy;

import java.util.List;
import java.util.Map;
import org.kafscale.proxy.bench.report.Timeline;

/**
 * Samples every proxy of a run once a second into the report's timeline: heap in use (every
 * proxy, through JMX) and, for ours, Netty's direct memory, client connections and read-ahead
 * bytes held (their Prometheus gauges). Runs on a daemon thread of its own until closed.
 */
public final class ProxySampler implements AutoCloseable {
    private static final long INTERVAL_MILLIS = 1000;
    private static final double MIB = 1024 * 1024;
    private static final String DIRECT = "kafscale_proxy_netty_direct_memory_bytes";
    private static final String CONNECTIONS = "kafscale_proxy_client_connections";
    private static final String READ_AHEAD = "kafscale_proxy_fetch_read_ahead_bytes";

    private final Thread thread;
    private volatile boolean closed;

    private ProxySampler(Map<String, ProxyCounters> proxies, Timeline timeline) {
        thread = new Thread(() -> {
            while (!closed) {
                proxies.forEach((name, proxy) -> sample(name, proxy, timeline));
                try {
                    Thread.sleep(INTERVAL_MILLIS);
                } catch (InterruptedException e) {
                    return;
                }
            }
        }, "bench-proxy-sampler");
        thread.setDaemon(true);
    }

    /** @param proxies each proxy by the name its series carry */
    public static ProxySampler start(Map<String, ProxyCounters> proxies, Timeline timeline) {
        ProxySampler sampler = new ProxySampler(Map.copyOf(proxies), timeline);
        sampler.thread.start();
        return sampler;
    }

    private static void sample(String name, ProxyCounters proxy, Timeline timeline) {
        try {
            timeline.record("Proxy heap in use", "MiB", name, proxy.heapUsed() / MIB);
            // One scrape for the three (each scrape is work for the proxy being measured).
            Map<String, Double> gauges = proxy.gauges(List.of(DIRECT, CONNECTIONS, READ_AHEAD));
            if (!gauges.isEmpty()) {
                timeline.record("Netty direct memory", "MiB", name, gauges.get(DIRECT) / MIB);
                timeline.record("Client connections", "connections", name, gauges.get(CONNECTIONS));
                timeline.record("Read-ahead bytes held", "MiB", name, gauges.get(READ_AHEAD) / MIB);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (Exception e) {
            // a sample missed (the proxy busy or stopping) is a gap in the chart, not a failed run
        }
    }

    @Override
    public void close() throws InterruptedException {
        closed = true;
        thread.interrupt();
        thread.join();
    }
}
