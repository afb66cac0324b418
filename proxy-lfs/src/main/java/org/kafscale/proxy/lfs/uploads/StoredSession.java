package org.kafscale.proxy.lfs.uploads;

/**
 * A session as read from a store, with the store's version of it (etcd's mod revision, the
 * object's ETag), so that an update can be made conditional on nobody having changed it since.
 */
public record StoredSession(UploadSession session, String version) {
}
