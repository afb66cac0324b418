package org.kafscale.proxy.app.reload;

import java.util.function.Predicate;
import org.kafscale.proxy.app.config.ProxyConfig;
import org.kafscale.proxy.core.server.ConnectionContext;

/** What a reload puts a new configuration in force on: the Kafka path every new connection gets. */
public interface ReloadTarget {
    /**
     * Makes the Kafka path of {@code config} the one new connections get, on every listener, then
     * drains the open connections for which {@code affected} holds. Blocks (it may read ACL files):
     * never call it on an event loop.
     *
     * @param reloadAcls whether the ACL files are read again (an ACL setting, or a virtual cluster
     *     one is read against, changed); else the ones in force stay, followed as before
     * @throws org.kafscale.proxy.app.config.ConfigException when an ACL file cannot be used; then
     *     nothing changed
     */
    void apply(ProxyConfig config, boolean reloadAcls, Predicate<ConnectionContext> affected);
}
