package org.kafscale.proxy.lfs;

import java.util.ArrayList;
import java.util.List;
import org.kafscale.proxy.lfs.http.LfsRoute;
import org.kafscale.proxy.lfs.http.docs.DocsRoutes;

/** The routes this module serves itself, in match order. */
final class BuiltInRoutes {
    private BuiltInRoutes() {
    }

    static List<LfsRoute> create(LfsContext context) {
        List<LfsRoute> routes = new ArrayList<>();
        routes.addAll(DocsRoutes.create(context.blocking()));
        return routes;
    }
}
