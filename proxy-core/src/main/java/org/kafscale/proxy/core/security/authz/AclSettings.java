package org.kafscale.proxy.core.security.authz;

import java.nio.file.Path;
import java.time.Duration;

/**
 * Authorization at the proxy ({@code KAFSCALE_PROXY_ACL_*}): where the ACL file is, and how often
 * it is checked for changes.
 *
 * @param file the ACL file (YAML or JSON)
 * @param reloadInterval how often the file is read again; a change that parses replaces every rule
 */
public record AclSettings(Path file, Duration reloadInterval) {
}
