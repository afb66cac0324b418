package org.kafscale.proxy.lfs.http;

import java.util.List;
import org.kafscale.proxy.lfs.LfsContext;

/**
 * Builds routes from the module's shared services. The LFS module is assembled in one place
 * ({@link org.kafscale.proxy.lfs.LfsModule}); features such as multipart uploads contribute their
 * routes through a factory passed to it, so they get the same S3 client, envelope publisher,
 * tracker and metrics as {@code /lfs/produce}.
 */
@FunctionalInterface
public interface LfsRouteFactory {
    List<LfsRoute> routes(LfsContext context);
}
