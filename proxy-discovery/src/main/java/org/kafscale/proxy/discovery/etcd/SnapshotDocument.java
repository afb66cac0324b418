package org.kafscale.proxy.discovery.etcd;

import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import com.fasterxml.jackson.annotation.JsonProperty;
import java.util.List;

/**
 * The JSON of {@code /kafscale/metadata/snapshot}: Go's {@code metadata.ClusterMetadata} written by
 * {@code encoding/json}, so keys are Go field names. Matched case-insensitively, as Go's decoder
 * does; unknown fields (UnknownTags, ErrorCode, ...) are ignored.
 */
@JsonIgnoreProperties(ignoreUnknown = true)
record SnapshotDocument(
        @JsonProperty("Brokers") List<Broker> brokers,
        @JsonProperty("ControllerID") Integer controllerId,
        @JsonProperty("Topics") List<Topic> topics,
        @JsonProperty("ClusterName") String clusterName,
        @JsonProperty("ClusterID") String clusterId) {

    @JsonIgnoreProperties(ignoreUnknown = true)
    record Broker(@JsonProperty("NodeID") int nodeId, @JsonProperty("Host") String host,
                  @JsonProperty("Port") int port, @JsonProperty("Rack") String rack) {
    }

    /** {@code TopicID} is a Go [16]byte: a JSON array of 16 integers, not base64. */
    @JsonIgnoreProperties(ignoreUnknown = true)
    record Topic(@JsonProperty("Topic") String name, @JsonProperty("TopicID") int[] topicId,
                 @JsonProperty("IsInternal") boolean internal, @JsonProperty("Partitions") List<Partition> partitions) {
    }

    /** {@code Leader} is read but ignored: partition leases say who owns a partition. */
    @JsonIgnoreProperties(ignoreUnknown = true)
    record Partition(@JsonProperty("Partition") int partition, @JsonProperty("LeaderEpoch") int leaderEpoch,
                     @JsonProperty("Replicas") List<Integer> replicas, @JsonProperty("ISR") List<Integer> isr,
                     @JsonProperty("OfflineReplicas") List<Integer> offlineReplicas) {
    }
}
