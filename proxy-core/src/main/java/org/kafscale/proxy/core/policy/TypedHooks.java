package org.kafscale.proxy.core.policy;

import io.netty.util.concurrent.Future;
import org.apache.kafka.common.message.FetchRequestData;
import org.apache.kafka.common.message.FetchResponseData;
import org.apache.kafka.common.message.MetadataRequestData;
import org.apache.kafka.common.message.MetadataResponseData;
import org.apache.kafka.common.message.ProduceRequestData;
import org.apache.kafka.common.message.ProduceResponseData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.ApiMessage;

/**
 * The typed per-API hooks ({@link ProduceRequestPolicy}, {@link FetchAnswerPolicy}, ...) as the
 * chain calls them: one policy class may implement several, for several APIs, both ways. Looked up
 * once per policy and API when the chain is built. A typed hook for another API is one interface
 * and one line in each switch here.
 */
final class TypedHooks {
    private TypedHooks() {
    }

    /** {@code policy}'s typed request hook for {@code api}, or null. */
    static RequestPolicy request(Policy policy, ApiKeys api) {
        return switch (api) {
            case PRODUCE -> policy instanceof ProduceRequestPolicy p
                    ? new Request(policy, (body, c) -> p.onProduceRequest((ProduceRequestData) body, c)) : null;
            case FETCH -> policy instanceof FetchRequestPolicy p
                    ? new Request(policy, (body, c) -> p.onFetchRequest((FetchRequestData) body, c)) : null;
            case METADATA -> policy instanceof MetadataRequestPolicy p
                    ? new Request(policy, (body, c) -> p.onMetadataRequest((MetadataRequestData) body, c)) : null;
            default -> null;
        };
    }

    /** {@code policy}'s typed answer hook for {@code api}, or null. */
    static AnswerPolicy answer(Policy policy, ApiKeys api) {
        return switch (api) {
            case PRODUCE -> policy instanceof ProduceAnswerPolicy p
                    ? new Answer(policy, (answer, c) -> p.onProduceAnswer((ProduceResponseData) answer, c)) : null;
            case FETCH -> policy instanceof FetchAnswerPolicy p
                    ? new Answer(policy, (answer, c) -> p.onFetchAnswer((FetchResponseData) answer, c)) : null;
            case METADATA -> policy instanceof MetadataAnswerPolicy p
                    ? new Answer(policy, (answer, c) -> p.onMetadataAnswer((MetadataResponseData) answer, c)) : null;
            default -> null;
        };
    }

    /** The name of the policy an answer reader belongs to, for close reasons. */
    static String nameOf(AnswerPolicy reader) {
        return reader instanceof Answer typed ? typed.policy().getClass().getSimpleName()
                : reader.getClass().getSimpleName();
    }

    /** A typed request hook as the chain calls it. */
    private record Request(Policy policy, RequestPolicy hook) implements RequestPolicy {
        @Override
        public Future<RequestOutcome> onRequest(ApiMessage body, PolicyContext context) {
            return hook.onRequest(body, context);
        }
    }

    /** A typed answer hook as the chain calls it. */
    private record Answer(Policy policy, AnswerHook hook) implements AnswerPolicy {
        @Override
        public Future<AnswerOutcome> onAnswer(ApiMessage answer, PolicyContext context) {
            return hook.onAnswer(answer, context);
        }
    }

    /** {@link AnswerPolicy#onAnswer} alone, for a lambda. */
    @FunctionalInterface
    private interface AnswerHook {
        Future<AnswerOutcome> onAnswer(ApiMessage answer, PolicyContext context);
    }
}
