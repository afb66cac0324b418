package org.kafscale.proxy.discovery.etcd;

import io.etcd.jetcd.Auth;
import io.etcd.jetcd.Client;
import io.etcd.jetcd.Cluster;
import io.etcd.jetcd.Election;
import io.etcd.jetcd.KV;
import io.etcd.jetcd.Lease;
import io.etcd.jetcd.Lock;
import io.etcd.jetcd.Maintenance;
import io.etcd.jetcd.Watch;

/** A real jetcd client passed through; a test double overrides the one part it steers. */
abstract class ForwardingClient implements Client {
    protected final Client etcd;

    ForwardingClient(Client etcd) {
        this.etcd = etcd;
    }

    @Override
    public KV getKVClient() {
        return etcd.getKVClient();
    }

    @Override
    public Watch getWatchClient() {
        return etcd.getWatchClient();
    }

    @Override
    public Auth getAuthClient() {
        return etcd.getAuthClient();
    }

    @Override
    public Cluster getClusterClient() {
        return etcd.getClusterClient();
    }

    @Override
    public Maintenance getMaintenanceClient() {
        return etcd.getMaintenanceClient();
    }

    @Override
    public Lease getLeaseClient() {
        return etcd.getLeaseClient();
    }

    @Override
    public Lock getLockClient() {
        return etcd.getLockClient();
    }

    @Override
    public Election getElectionClient() {
        return etcd.getElectionClient();
    }

    @Override
    public void close() {
        etcd.close();
    }
}
