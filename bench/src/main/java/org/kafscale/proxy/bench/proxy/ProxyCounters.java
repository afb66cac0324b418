package org.kafscale.proxy.bench.proxy;

import com.sun.management.ThreadMXBean;
import com.sun.tools.attach.VirtualMachine;
import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadInfo;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalDouble;
import java.util.concurrent.Callable;
import javax.management.MBeanServerConnection;
import javax.management.ObjectName;
import javax.management.openmbean.CompositeData;
import javax.management.remote.JMXConnector;
import javax.management.remote.JMXConnectorFactory;
import javax.management.remote.JMXServiceURL;
import org.kafscale.proxy.bench.workload.ClientTraffic;

/**
 * Reads a proxy JVM's own counters: CPU time and bytes allocated on the heap (from its platform
 * MXBeans, reached through the JDK's attach API, so no port is opened), and the bytes it moved for
 * clients.
 *
 * <p>Those bytes are counted the same way for every proxy, ours and the peer: as the bench's
 * throughput clients counted them ({@link ClientTraffic}). Kroxylicious has no counter for the
 * frames it passes through undecoded, and one meter for both keeps their costs per MiB
 * comparable. Our proxy's own count ({@code kafscale_proxy_client_bytes_*}) is read as well, for
 * the log: it runs a few percent higher on consume, where the last Fetch answers the proxy sends
 * arrive after the consumer stopped reading.
 *
 * <p>CPU comes twice: the whole process, and only the proxy's own threads (event loops and the
 * rest that Java can see). The difference is the JVM's work: the JIT compiler and the garbage
 * collector. A profile of the proxy (perf) during the measured runs showed the C2 compiler
 * still busy minutes after start on a loaded 2-core machine, which a long-running proxy pays
 * once; the threads' CPU is the steady cost of proxying.
 *
 * <p>Take a {@link Snapshot} before and after a workload; the difference is what the proxy spent
 * on it. The snapshot's own cost (one JMX call, one scrape) is taken outside the window: the
 * scrape before the JMX read on the way in, after it on the way out.
 */
public final class ProxyCounters implements AutoCloseable {
    private static final ObjectName OPERATING_SYSTEM = name("java.lang:type=OperatingSystem");
    private static final ObjectName THREADING = name("java.lang:type=Threading");
    private static final ObjectName MEMORY = name("java.lang:type=Memory");
    /** Client bytes as our proxy counts them. */
    private static final String CLIENT_BYTES_IN = "kafscale_proxy_client_bytes_in_bytes_total";
    private static final String CLIENT_BYTES_OUT = "kafscale_proxy_client_bytes_out_bytes_total";
    /** The own count of a proxy that keeps none. */
    private static final ByteCount NONE = () -> -1;

    private final JMXConnector connector;
    private final MBeanServerConnection mbeans;
    private final ThreadMXBean threads;
    private final ByteCount clientBytes;
    private final ByteCount ownCount;
    private final Optional<PrometheusScrape> scrape;

    private ProxyCounters(JMXConnector connector, ByteCount clientBytes, ByteCount ownCount,
                          Optional<PrometheusScrape> scrape) throws IOException {
        this.connector = connector;
        this.mbeans = connector.getMBeanServerConnection();
        this.threads = ManagementFactory.newPlatformMXBeanProxy(mbeans, ManagementFactory.THREAD_MXBEAN_NAME,
                ThreadMXBean.class);
        this.clientBytes = clientBytes;
        this.ownCount = ownCount;
        this.scrape = scrape;
    }

    /** Bytes moved for clients so far, in and out together. */
    private interface ByteCount {
        long total() throws Exception;
    }

    public static ProxyCounters attach(ProxyProcess proxy) throws Exception {
        PrometheusScrape scrape = new PrometheusScrape(proxy.metrics());
        return attach(proxy.pid(), proxy.bootstrap(), () -> {
            String page = scrape.page(List.of(CLIENT_BYTES_IN, CLIENT_BYTES_OUT));
            return (long) (PrometheusScrape.sum(page, CLIENT_BYTES_IN) + PrometheusScrape.sum(page, CLIENT_BYTES_OUT));
        }, Optional.of(scrape));
    }

    public static ProxyCounters attach(KroxyliciousProcess peer) throws Exception {
        return attach(peer.pid(), peer.bootstrap(), NONE, Optional.empty());
    }

    private static ProxyCounters attach(long pid, String bootstrap, ByteCount ownCount,
                                        Optional<PrometheusScrape> scrape) throws Exception {
        VirtualMachine vm = VirtualMachine.attach(Long.toString(pid));
        try {
            String address = vm.startLocalManagementAgent();
            return new ProxyCounters(JMXConnectorFactory.connect(new JMXServiceURL(address)),
                    () -> ClientTraffic.total(bootstrap), ownCount, scrape);
        } finally {
            vm.detach();
        }
    }

    /**
     * A gauge of our proxy now, summed over its labels; empty for the peer, which has no
     * Prometheus endpoint of ours.
     */
    public OptionalDouble gauge(String name) throws IOException, InterruptedException {
        return scrape.isPresent() ? OptionalDouble.of(scrape.get().sum(name)) : OptionalDouble.empty();
    }

    /**
     * Every series of {@code name} on our proxy's page now, one line each without the family name
     * ({@code {outcome="adopted"} 603.0}); empty for the peer.
     */
    public List<String> series(String name) throws IOException, InterruptedException {
        if (scrape.isEmpty()) {
            return List.of();
        }
        return scrape.get().page(List.of(name)).lines().filter(line -> line.startsWith(name + "{"))
                .map(line -> line.substring(name.length())).toList();
    }

    /**
     * Several gauges of our proxy from one scrape of just those (each scrape costs the proxy CPU:
     * a profile of a bench run showed 5 % of its samples writing the whole Prometheus page); empty
     * for the peer.
     */
    public Map<String, Double> gauges(List<String> names) throws IOException, InterruptedException {
        if (scrape.isEmpty()) {
            return Map.of();
        }
        String text = scrape.get().page(names);
        Map<String, Double> values = new LinkedHashMap<>();
        names.forEach(name -> values.put(name, PrometheusScrape.sum(text, name)));
        return values;
    }

    /** What a workload returned, and what the proxy spent while it ran. */
    public record Costed<T>(T result, Cost cost) {
    }

    /** Runs {@code workload} and reads what the proxy spent on it (the counters around it). */
    public <T> Costed<T> during(Callable<T> workload) throws Exception {
        Snapshot before = begin();
        T result = workload.call();
        return new Costed<>(result, before.costUntil(end()));
    }

    public Snapshot begin() throws Exception {
        long own = ownCount.total();
        return new Snapshot(cpuNanos(), threadCpuNanos(), allocatedBytes(), clientBytes.total(), own);
    }

    public Snapshot end() throws Exception {
        long cpu = cpuNanos();
        long threadCpu = threadCpuNanos();
        long allocated = allocatedBytes();
        return new Snapshot(cpu, threadCpu, allocated, clientBytes.total(), ownCount.total());
    }
    /** The proxy's live threads now. */
    public int threadCount() throws Exception {
        return (Integer) mbeans.getAttribute(THREADING, "ThreadCount");
    }

    /** The proxy's heap in use now, garbage included (a sample for the report's memory chart). */
    public long heapUsed() throws Exception {
        CompositeData heap = (CompositeData) mbeans.getAttribute(MEMORY, "HeapMemoryUsage");
        return (Long) heap.get("used");
    }

    /**
     * The proxy's heap in use right after a full collection it was asked for
     * ({@code MemoryMXBean.gc()}): what its live objects take, without garbage not yet collected.
     */
    public long heapUsedAfterGc() throws Exception {
        mbeans.invoke(MEMORY, "gc", null, null);
        CompositeData heap = (CompositeData) mbeans.getAttribute(MEMORY, "HeapMemoryUsage");
        return (Long) heap.get("used");
    }

    /**
     * CPU nanoseconds and heap bytes allocated so far by the live threads whose names start with
     * {@code prefix} (a proxy's event loops: what it spends per request, without its background
     * threads, whose cost is per second rather than per request).
     */
    public ThreadTotals threadTotals(String prefix) {
        long[] ids = Arrays.stream(threads.getThreadInfo(threads.getAllThreadIds()))
                .filter(info -> info != null && info.getThreadName().startsWith(prefix))
                .mapToLong(ThreadInfo::getThreadId).toArray();
        long cpu = 0;
        for (long nanos : threads.getThreadCpuTime(ids)) {
            cpu += Math.max(0, nanos);
        }
        long allocated = 0;
        for (long bytes : threads.getThreadAllocatedBytes(ids)) {
            allocated += Math.max(0, bytes);
        }
        return new ThreadTotals(cpu, allocated);
    }

    /** What some threads of a proxy spent so far: CPU nanoseconds and heap bytes allocated. */
    public record ThreadTotals(long cpuNanos, long allocatedBytes) {
    }

    /** CPU time of every live thread Java can see (the JIT's and GC's threads are hidden from it). */
    private long threadCpuNanos() {
        long total = 0;
        for (long nanos : threads.getThreadCpuTime(threads.getAllThreadIds())) {
            total += Math.max(0, nanos);
        }
        return total;
    }

    private long cpuNanos() throws Exception {
        return (Long) mbeans.getAttribute(OPERATING_SYSTEM, "ProcessCpuTime");
    }

    private long allocatedBytes() throws Exception {
        return (Long) mbeans.getAttribute(THREADING, "TotalThreadAllocatedBytes");
    }

    /**
     * Our proxy's Prometheus page, only the families asked for ({@code name[]}): a few lines
     * instead of 200-odd series, which saves the proxy the writing (a quarter of a scrape's CPU),
     * work the bench would otherwise count as the proxy's cost of proxying.
     */
    private record PrometheusScrape(URI metrics, HttpClient http) {
        PrometheusScrape(URI metrics) {
            this(metrics, HttpClient.newHttpClient());
        }

        String page(List<String> names) throws IOException, InterruptedException {
            StringBuilder query = new StringBuilder();
            for (String name : names) {
                query.append(query.isEmpty() ? '?' : '&').append("name%5B%5D=")
                        .append(URLEncoder.encode(name, StandardCharsets.UTF_8));
            }
            URI uri = URI.create(metrics + query.toString());
            return http.send(HttpRequest.newBuilder(uri).build(), HttpResponse.BodyHandlers.ofString()).body();
        }

        /** The sum of every series of {@code name} (each label set once), from a fresh scrape. */
        double sum(String name) throws IOException, InterruptedException {
            return sum(page(List.of(name)), name);
        }

        static double sum(String text, String name) {
            double total = 0;
            for (String line : text.split("\n")) {
                if (line.startsWith(name + " ") || line.startsWith(name + "{")) {
                    total += Double.parseDouble(line.substring(line.lastIndexOf(' ') + 1));
                }
            }
            return total;
        }
    }

    @Override
    public void close() throws IOException {
        connector.close();
    }

    private static ObjectName name(String name) {
        try {
            return new ObjectName(name);
        } catch (Exception e) {
            throw new IllegalArgumentException(name, e);
        }
    }

    /**
     * The proxy's counters at one moment; {@code clientBytes} as its clients counted them,
     * {@code ownBytes} as the proxy did (-1 for a proxy that keeps no such counter).
     */
    public record Snapshot(long cpuNanos, long threadCpuNanos, long allocatedBytes, long clientBytes, long ownBytes) {
        /** What the proxy spent between {@code this} (earlier) and {@code later}, per MiB it moved for clients. */
        public Cost costUntil(Snapshot later) {
            double mib = (later.clientBytes - clientBytes) / (1024.0 * 1024.0);
            double ownMib = ownBytes < 0 ? Double.NaN : (later.ownBytes - ownBytes) / (1024.0 * 1024.0);
            return new Cost(mib, ownMib, (later.cpuNanos - cpuNanos) / 1e9 / mib,
                    (later.threadCpuNanos - threadCpuNanos) / 1e9 / mib,
                    (later.allocatedBytes - allocatedBytes) / mib);
        }
    }

    /**
     * Per MiB proxied, over {@code mib} MiB (as the clients counted them; {@code ownMib} as the
     * proxy did, NaN if it does not count): CPU seconds of the whole process and of the proxy's
     * own threads, and heap bytes allocated.
     */
    public record Cost(double mib, double ownMib, double cpuSecondsPerMib, double threadCpuSecondsPerMib,
                       double allocatedBytesPerMib) {
    }
}
