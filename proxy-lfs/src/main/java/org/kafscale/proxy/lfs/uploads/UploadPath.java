package org.kafscale.proxy.lfs.uploads;

import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * What a path under {@code /lfs/uploads} names (spec §4.4).
 *
 * @param kind which endpoint
 * @param uploadId the proxy's upload id, or null for init and unknown paths
 * @param partText the part number as written, for parts
 */
record UploadPath(Kind kind, String uploadId, String partText) {

    enum Kind { INIT, PART, COMPLETE, UPLOAD, UNKNOWN }

    static final String ROOT = "/lfs/uploads";

    private static final Pattern PART = Pattern.compile("^/lfs/uploads/([^/]+)/parts/([^/]+)$");
    private static final Pattern COMPLETE = Pattern.compile("^/lfs/uploads/([^/]+)/complete$");
    private static final Pattern UPLOAD = Pattern.compile("^/lfs/uploads/([^/]+)$");

    static boolean covers(String path) {
        return path.equals(ROOT) || path.startsWith(ROOT + "/");
    }

    static UploadPath parse(String path) {
        if (path.equals(ROOT)) {
            return new UploadPath(Kind.INIT, null, null);
        }
        Matcher m = PART.matcher(path);
        if (m.matches()) {
            return new UploadPath(Kind.PART, m.group(1), m.group(2));
        }
        m = COMPLETE.matcher(path);
        if (m.matches()) {
            return new UploadPath(Kind.COMPLETE, m.group(1), null);
        }
        m = UPLOAD.matcher(path);
        if (m.matches()) {
            return new UploadPath(Kind.UPLOAD, m.group(1), null);
        }
        return new UploadPath(Kind.UNKNOWN, null, null);
    }

    /** The part number, 1..2^31-1, or -1 when the text is not one. */
    int partNumber() {
        try {
            int n = Integer.parseInt(partText);
            return n >= 1 ? n : -1;
        } catch (NumberFormatException e) {
            return -1;
        }
    }
}
