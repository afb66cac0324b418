package org.kafscale.proxy.bench;

/** One way for clients to reach the cluster: straight to the brokers, or through a proxy. */
record Route(String name, String bootstrap, boolean proxied) {
}
