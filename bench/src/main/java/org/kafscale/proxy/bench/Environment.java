package org.kafscale.proxy.bench;

import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;
import org.apache.kafka.common.utils.AppInfoParser;

/** The machine and versions a run was taken on, for the report. */
public final class Environment {
    private Environment() {
    }

    public static Map<String, String> describe() {
        Map<String, String> out = new LinkedHashMap<>();
        out.put("cpu", cpuModel());
        out.put("cores", Integer.toString(Runtime.getRuntime().availableProcessors()));
        out.put("memory", memoryGib() + " GiB");
        out.put("os", System.getProperty("os.name") + " " + System.getProperty("os.version"));
        out.put("java", System.getProperty("java.vm.name") + " " + System.getProperty("java.runtime.version"));
        out.put("kafka", AppInfoParser.getVersion());
        out.put("netty", io.netty.util.Version.identify().get("netty-common").artifactVersion());
        return out;
    }

    private static String cpuModel() {
        try {
            return Files.readAllLines(Path.of("/proc/cpuinfo")).stream()
                    .filter(l -> l.startsWith("model name"))
                    .map(l -> l.substring(l.indexOf(':') + 1).trim())
                    .findFirst().orElse("unknown");
        } catch (IOException e) {
            return "unknown";
        }
    }

    private static long memoryGib() {
        var os = (com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean();
        return Math.round(os.getTotalMemorySize() / (1024.0 * 1024 * 1024));
    }
}
