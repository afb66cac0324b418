package org.kafscale.proxy.core.security.authz;

import static org.apache.kafka.common.protocol.Errors.TOPIC_AUTHORIZATION_FAILED;

import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.function.Consumer;
import java.util.regex.Pattern;
import java.util.regex.PatternSyntaxException;
import org.apache.kafka.common.acl.AclOperation;
import org.apache.kafka.common.message.StreamsGroupDescribeRequestData;
import org.apache.kafka.common.message.StreamsGroupDescribeResponseData;
import org.apache.kafka.common.message.StreamsGroupHeartbeatRequestData;
import org.apache.kafka.common.message.StreamsGroupHeartbeatResponseData;
import org.apache.kafka.common.protocol.Errors;

/**
 * The streams-group (KIP-1071) APIs, with Kafka's operations: a heartbeat needs Read on the group,
 * Describe on every topic of the topology it declares (source, repartition and changelog topics),
 * and, because the broker creates the internal topics (repartition and changelog) it finds
 * missing, Create on each of those the topology does not know, on the cluster or on the topic;
 * a describe needs Describe on each group and on every topic of the group's topology.
 *
 * <p>The broker creates internal topics as the proxy's identity, so a create the principal may
 * not make can only be stopped here, before the heartbeat goes on: the heartbeat is refused with
 * TOPIC_AUTHORIZATION_FAILED naming the topics (Kafka's broker instead accepts the member and
 * reports MISSING_INTERNAL_TOPICS in the answer's status, which only the broker can make).
 */
public final class StreamsGuards {
    private StreamsGuards() {
    }

    public static Verdict heartbeat(StreamsGroupHeartbeatRequestData q, short version, Access a) {
        if (!a.group(q.groupId(), AclOperation.READ)) {
            return new Verdict.Refuse(Errors.GROUP_AUTHORIZATION_FAILED);
        }
        StreamsGroupHeartbeatRequestData.Topology topology = q.topology();
        if (topology == null) {
            // Only a joining member (or one whose topology changed) sends it; the rest was checked then.
            return Verdict.ALLOW;
        }
        Set<String> undescribable = new LinkedHashSet<>();
        Set<String> uncreatable = new LinkedHashSet<>();
        for (StreamsGroupHeartbeatRequestData.Subtopology s : topology.subtopologies()) {
            topicsOf(s, a).stream().filter(t -> !a.topic(t, AclOperation.DESCRIBE)).forEach(undescribable::add);
            internalTopicsOf(s).stream().filter(t -> !a.topicExists(t) && !mayCreate(t, a)).forEach(uncreatable::add);
        }
        if (!undescribable.isEmpty()) {
            return refuseTopics("not authorized to describe topics " + undescribable);
        }
        if (!uncreatable.isEmpty()) {
            return refuseTopics("not authorized to create internal topics " + uncreatable);
        }
        return Verdict.ALLOW;
    }

    public static Verdict describe(StreamsGroupDescribeRequestData q, short version, Access a) {
        var refused = Refusals.takeOut(q.groupIds(), g -> GroupGuards.groupError(a, g, AclOperation.DESCRIBE));
        Consumer<StreamsGroupDescribeResponseData> hideTopics = answer -> hideGroupsWithUndescribableTopics(answer, a);
        if (refused.isEmpty()) {
            return Verdict.editAnswer(hideTopics);
        }
        return Verdict.partly(q.groupIds().isEmpty(), q, StreamsGroupDescribeResponseData::new, answer -> {
            hideTopics.accept(answer);
            refused.forEach((g, e) -> answer.groups().add(new StreamsGroupDescribeResponseData.DescribedGroup()
                    .setGroupId(g).setErrorCode(e.code()).setErrorMessage(e.message()).setGroupState("")
                    .setAuthorizedOperations(Integer.MIN_VALUE)));
        });
    }

    /** A described group whose topology names a topic the principal may not describe is refused whole, as Kafka does. */
    private static void hideGroupsWithUndescribableTopics(StreamsGroupDescribeResponseData answer, Access a) {
        List<StreamsGroupDescribeResponseData.DescribedGroup> groups = answer.groups();
        for (int i = 0; i < groups.size(); i++) {
            StreamsGroupDescribeResponseData.DescribedGroup g = groups.get(i);
            if (g.errorCode() != Errors.NONE.code() || g.topology() == null) {
                continue;
            }
            boolean allDescribable = g.topology().subtopologies().stream().flatMap(s -> topicsOf(s).stream())
                    .allMatch(t -> a.topic(t, AclOperation.DESCRIBE));
            if (!allDescribable) {
                groups.set(i, new StreamsGroupDescribeResponseData.DescribedGroup().setGroupId(g.groupId())
                        .setErrorCode(TOPIC_AUTHORIZATION_FAILED.code()).setGroupState("")
                        .setErrorMessage("the group's topology uses topics the client may not describe")
                        .setAuthorizedOperations(Integer.MIN_VALUE));
            }
        }
    }

    /**
     * Every topic a subtopology reads, writes or keeps state in; a source pattern stands for each
     * topic the topology knows that it matches (a pattern that does not compile matches every topic).
     */
    private static Set<String> topicsOf(StreamsGroupHeartbeatRequestData.Subtopology s, Access a) {
        Set<String> topics = new LinkedHashSet<>(s.sourceTopics());
        topics.addAll(s.repartitionSinkTopics());
        topics.addAll(internalTopicsOf(s));
        for (String regex : s.sourceTopicRegex() == null ? List.<String>of() : s.sourceTopicRegex()) {
            Pattern pattern = compiled(regex);
            a.topicNames().stream().filter(t -> pattern == null || pattern.matcher(t).matches()).forEach(topics::add);
        }
        return topics;
    }

    private static Set<String> topicsOf(StreamsGroupDescribeResponseData.Subtopology s) {
        Set<String> topics = new LinkedHashSet<>(s.sourceTopics());
        topics.addAll(s.repartitionSinkTopics());
        s.repartitionSourceTopics().forEach(t -> topics.add(t.name()));
        s.stateChangelogTopics().forEach(t -> topics.add(t.name()));
        return topics;
    }

    /** The topics the broker creates when missing: repartition and changelog topics. */
    private static Set<String> internalTopicsOf(StreamsGroupHeartbeatRequestData.Subtopology s) {
        Set<String> topics = new LinkedHashSet<>();
        s.repartitionSourceTopics().forEach(t -> topics.add(t.name()));
        s.stateChangelogTopics().forEach(t -> topics.add(t.name()));
        return topics;
    }

    private static boolean mayCreate(String topic, Access a) {
        // Kafka asks the cluster first without logging a denial, then the topic.
        return a.quietly().cluster(AclOperation.CREATE) || a.topic(topic, AclOperation.CREATE);
    }

    private static Pattern compiled(String regex) {
        try {
            return Pattern.compile(regex);
        } catch (PatternSyntaxException e) {
            return null;
        }
    }

    private static Verdict refuseTopics(String why) {
        return new Verdict.Answer(new StreamsGroupHeartbeatResponseData().setErrorCode(TOPIC_AUTHORIZATION_FAILED.code())
                .setErrorMessage(why));
    }
}
