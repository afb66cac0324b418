package org.kafscale.proxy.lfs.http.docs;

import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Executor;
import org.kafscale.proxy.lfs.http.LfsExchange;
import org.kafscale.proxy.lfs.http.LfsRoute;

/**
 * The API's documentation, open to everyone: the OpenAPI document at {@code /api/openapi.yaml}
 * and Swagger UI at {@code /swagger/}, whose files come from the swagger-ui webjar inside the
 * proxy's jar, so the page works without internet access (the original loaded it from a CDN).
 */
public final class DocsRoutes {
    static final String OPENAPI_PATH = "/api/openapi.yaml";
    static final String OPENAPI_RESOURCE = "org/kafscale/proxy/lfs/openapi.yaml";
    private static final String SWAGGER = "/swagger";
    private static final Map<String, String> TYPES = Map.of(".js", "application/javascript", ".css", "text/css",
            ".html", "text/html; charset=utf-8", ".png", "image/png", ".map", "application/json");

    private DocsRoutes() {
    }

    public static List<LfsRoute> create(Executor blocking) {
        DocsResources cache = new DocsResources(blocking);
        return List.of(new OpenApiRoute(cache), new SwaggerRoute(cache));
    }

    /** The index page of Swagger UI, pointing at the document on this listener. */
    static String indexPage() {
        return """
                <!DOCTYPE html>
                <html lang="en">
                <head>
                  <meta charset="utf-8">
                  <title>KafScale LFS proxy API</title>
                  <link rel="stylesheet" href="/swagger/ui/swagger-ui.css">
                </head>
                <body>
                  <div id="swagger-ui"></div>
                  <script src="/swagger/ui/swagger-ui-bundle.js"></script>
                  <script src="/swagger/ui/swagger-ui-standalone-preset.js"></script>
                  <script src="/swagger/init.js"></script>
                </body>
                </html>
                """;
    }

    /** Kept out of the page so a strict Content-Security-Policy (no inline scripts) still works. */
    static String initScript() {
        return """
                window.onload = function () {
                  window.ui = SwaggerUIBundle({
                    url: "/api/openapi.yaml",
                    dom_id: "#swagger-ui",
                    presets: [SwaggerUIBundle.presets.apis, SwaggerUIStandalonePreset],
                    layout: "StandaloneLayout"
                  });
                };
                """;
    }

    private record OpenApiRoute(DocsResources cache) implements LfsRoute {
        @Override
        public boolean matches(String path) {
            return OPENAPI_PATH.equals(path);
        }

        @Override
        public boolean protectedRoute() {
            return false;
        }

        @Override
        public void handle(LfsExchange exchange) {
            cache.load(OPENAPI_RESOURCE).whenComplete((bytes, error) -> {
                if (error != null || bytes.isEmpty()) {
                    exchange.respondBytes(404, "text/plain; charset=utf-8", "404 page not found\n".getBytes(StandardCharsets.UTF_8));
                } else {
                    exchange.respondBytes(200, "application/yaml", bytes.get());
                }
            });
        }
    }

    private record SwaggerRoute(DocsResources cache) implements LfsRoute {
        @Override
        public boolean matches(String path) {
            return path.equals(SWAGGER) || path.startsWith(SWAGGER + "/");
        }

        @Override
        public boolean protectedRoute() {
            return false;
        }

        @Override
        public void handle(LfsExchange exchange) {
            String path = exchange.path();
            if (path.equals(SWAGGER) || path.equals(SWAGGER + "/") || path.equals(SWAGGER + "/index.html")) {
                exchange.respondBytes(200, "text/html; charset=utf-8", indexPage().getBytes(StandardCharsets.UTF_8));
                return;
            }
            if (path.equals(SWAGGER + "/init.js")) {
                exchange.respondBytes(200, "application/javascript", initScript().getBytes(StandardCharsets.UTF_8));
                return;
            }
            String file = path.startsWith(SWAGGER + "/ui/") ? path.substring((SWAGGER + "/ui/").length()) : "";
            if (file.isEmpty() || file.contains("..") || file.contains("/")) {
                notFound(exchange);
                return;
            }
            cache.webjarFile(file).whenComplete((bytes, error) -> {
                if (error != null || bytes.isEmpty()) {
                    notFound(exchange);
                } else {
                    exchange.respondBytes(200, contentType(file), bytes.get());
                }
            });
        }

        private static void notFound(LfsExchange exchange) {
            exchange.respondBytes(404, "text/plain; charset=utf-8", "404 page not found\n".getBytes(StandardCharsets.UTF_8));
        }
    }

    static String contentType(String file) {
        int dot = file.lastIndexOf('.');
        return dot < 0 ? "application/octet-stream" : TYPES.getOrDefault(file.substring(dot), "application/octet-stream");
    }
}
