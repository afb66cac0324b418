package org.kafscale.proxy.lfs.publish;

import org.apache.kafka.common.Uuid;
import org.kafscale.proxy.core.topology.BrokerEndpoint;

/**
 * Where an envelope will be produced, fixed before the upload starts: the partition, the topic's
 * id at that moment (checked again before the produce, so a topic deleted or recreated during a
 * long upload is noticed) and the broker connected to.
 *
 * @param topic the topic
 * @param partition the partition (explicit, from the key, or 0)
 * @param topicId the topic id when the upload started ({@link Uuid#ZERO_UUID} when the source does not know ids)
 * @param broker the broker connected to before the upload, normally the partition's owner
 */
public record PublishTarget(String topic, int partition, Uuid topicId, BrokerEndpoint broker) {
}
