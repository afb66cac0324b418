package org.kafscale.proxy.lfs.http;

import java.util.ArrayList;
import java.util.List;

/**
 * What the LFS API's settings leave open, said once at start: no API key (anyone who reaches the
 * port may produce and read), and CORS allowing every origin on an address other hosts can reach
 * (any web page a user opens may then call the API with that user's network access).
 */
public final class ExposureWarnings {
    private ExposureWarnings() {
    }

    /** The warnings for {@code settings}, none when it leaves nothing open. */
    public static List<String> of(HttpSettings settings) {
        List<String> warnings = new ArrayList<>();
        if (settings.apiKey() == null || settings.apiKey().isEmpty()) {
            warnings.add("the LFS API accepts every request without an API key: anyone who reaches its port may "
                    + "produce to any topic and read any object; set KAFSCALE_LFS_PROXY_HTTP_API_KEY");
        }
        boolean loopback = settings.address().getAddress() != null && settings.address().getAddress().isLoopbackAddress();
        if (settings.allowedOrigins().contains(Cors.ANY) && !loopback) {
            warnings.add("the LFS API allows cross-origin requests from every origin (KAFSCALE_LFS_PROXY_HTTP_ALLOWED_ORIGINS=*)"
                    + " on " + settings.address() + ", which other hosts can reach: any web page a user opens may call it;"
                    + " name the origins that need it");
        }
        return warnings;
    }
}
