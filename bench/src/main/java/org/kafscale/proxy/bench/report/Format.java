package org.kafscale.proxy.bench.report;

import java.util.Locale;

/** Numbers as the table shows them: three significant digits, no scientific notation. */
final class Format {
    private Format() {
    }

    static String number(Double value) {
        if (value == null) {
            return "–";
        }
        double abs = Math.abs(value);
        if (abs >= 100) {
            return String.format(Locale.ROOT, "%.0f", value);
        }
        if (abs >= 10) {
            return String.format(Locale.ROOT, "%.1f", value);
        }
        if (abs >= 0.1 || abs == 0) {
            return String.format(Locale.ROOT, "%.2f", value);
        }
        return String.format(Locale.ROOT, "%.4f", value);
    }
}
