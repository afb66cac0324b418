package org.kafscale.proxy.bench.proxy;

import com.sun.management.ThreadMXBean;
import com.sun.tools.attach.VirtualMachine;
import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import javax.management.MBeanServerConnection;
import javax.management.ObjectName;
import javax.management.remote.JMXConnector;
import javax.management.remote.JMXConnectorFactory;
import javax.management.remote.JMXServiceURL;

/**
 * Reads the proxy JVM's own counters: CPU time and bytes allocated on the heap (from its platform
 * MXBeans, reached through the JDK's attach API, so no port is opened), and the bytes it moved for
 * clients (from its Prometheus endpoint).
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

    private final JMXConnector connector;
    private final MBeanServerConnection mbeans;
    private final ThreadMXBean threads;
    private final URI metrics;
    private final HttpClient http = HttpClient.newHttpClient();

    private ProxyCounters(JMXConnector connector, URI metrics) throws IOException {
        this.connector = connector;
        this.mbeans = connector.getMBeanServerConnection();
        this.threads = ManagementFactory.newPlatformMXBeanProxy(mbeans, ManagementFactory.THREAD_MXBEAN_NAME,
                ThreadMXBean.class);
        this.metrics = metrics;
    }

    public static ProxyCounters attach(ProxyProcess proxy) throws Exception {
        VirtualMachine vm = VirtualMachine.attach(Long.toString(proxy.pid()));
        try {
            String address = vm.startLocalManagementAgent();
            return new ProxyCounters(JMXConnectorFactory.connect(new JMXServiceURL(address)), proxy.metrics());
        } finally {
            vm.detach();
        }
    }

    public Snapshot begin() throws Exception {
        long[] clientBytes = clientBytes();
        return new Snapshot(cpuNanos(), threadCpuNanos(), allocatedBytes(), clientBytes[0], clientBytes[1]);
    }

    public Snapshot end() throws Exception {
        long cpu = cpuNanos();
        long threadCpu = threadCpuNanos();
        long allocated = allocatedBytes();
        long[] clientBytes = clientBytes();
        return new Snapshot(cpu, threadCpu, allocated, clientBytes[0], clientBytes[1]);
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

    /** Client bytes in and out, as the proxy counts them (kafscale_proxy_client_bytes_*). */
    private long[] clientBytes() throws IOException, InterruptedException {
        String text = http.send(HttpRequest.newBuilder(metrics).build(), HttpResponse.BodyHandlers.ofString()).body();
        long[] inOut = new long[2];
        for (String line : text.split("\n")) {
            if (line.startsWith("kafscale_proxy_client_bytes_in_bytes_total")) {
                inOut[0] += (long) Double.parseDouble(line.substring(line.lastIndexOf(' ') + 1));
            } else if (line.startsWith("kafscale_proxy_client_bytes_out_bytes_total")) {
                inOut[1] += (long) Double.parseDouble(line.substring(line.lastIndexOf(' ') + 1));
            }
        }
        return inOut;
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

    /** The proxy's counters at one moment. */
    public record Snapshot(long cpuNanos, long threadCpuNanos, long allocatedBytes, long clientBytesIn,
                           long clientBytesOut) {
        /** What the proxy spent between {@code this} (earlier) and {@code later}, per MiB it moved for clients. */
        public Cost costUntil(Snapshot later) {
            long moved = (later.clientBytesIn - clientBytesIn) + (later.clientBytesOut - clientBytesOut);
            double mib = moved / (1024.0 * 1024.0);
            return new Cost(mib, (later.cpuNanos - cpuNanos) / 1e9 / mib,
                    (later.threadCpuNanos - threadCpuNanos) / 1e9 / mib,
                    (later.allocatedBytes - allocatedBytes) / mib);
        }
    }

    /**
     * Per MiB proxied, over {@code mib} MiB: CPU seconds of the whole process and of the proxy's
     * own threads, and heap bytes allocated.
     */
    public record Cost(double mib, double cpuSecondsPerMib, double threadCpuSecondsPerMib, double allocatedBytesPerMib) {
    }
}
