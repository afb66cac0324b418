package org.kafscale.proxy.lfs;

import java.util.ArrayList;
import java.util.List;
import org.kafscale.proxy.lfs.http.LfsRoute;
import org.kafscale.proxy.lfs.http.docs.DocsRoutes;
import org.kafscale.proxy.lfs.download.DownloadRoute;
import org.kafscale.proxy.lfs.produce.LfsProduceRoute;

/** The routes this module serves itself, in match order. */
final class BuiltInRoutes {
    private BuiltInRoutes() {
    }

    static List<LfsRoute> create(LfsContext context) {
        List<LfsRoute> routes = new ArrayList<>();
        routes.add(new LfsProduceRoute(context));
        routes.add(new DownloadRoute(context));
        routes.addAll(DocsRoutes.create(context.blocking()));
        return routes;
    }
}
