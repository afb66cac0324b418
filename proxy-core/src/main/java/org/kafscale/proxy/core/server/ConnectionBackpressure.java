package org.kafscale.proxy.core.server;

import io.netty.channel.Channel;
import io.netty.util.concurrent.EventExecutor;
import org.kafscale.proxy.core.backend.BackendChannelPool;

/**
 * What holds reading back on one client connection and on its broker channels, and why.
 *
 * <p>Reading from the client pauses while the connection has its most requests in flight (frames
 * read past that wait in the queue), while the client has not taken the answers already written
 * (the channel's write-buffer high-water mark), while the listener's process-wide budget for
 * unread answers is spent (answers written and unread, and answers that wait for an earlier one,
 * both count), while any of its broker channels cannot take more requests, and while its
 * half-read frame is among the largest once the listener's budget for half-read frames is spent.
 * Reading from its brokers pauses while the client's answers are not taken.
 *
 * <p>It holds the connection's shares of the listener's two budgets. Confined to the connection's
 * event loop.
 */
final class ConnectionBackpressure {
    private final Channel client;
    private final int maxInFlight;
    private final AnswerWriter writer;
    private final ConnectionRequests requests;
    private final BackendChannelPool backends;
    private final HeldBytes.Holder partialFrames;
    private final HeldBytes.Holder unreadAnswers;
    private boolean brokersRead = true;
    /** {@link AnswerWriter#released} when brokers were last held back or released. */
    private long answersReleased;

    /**
     * @param partialFramesHaveRoom called when the listener's budget for half-read frames has room again
     * @param answersHaveRoom called when the listener's budget for unread answers has room again
     */
    ConnectionBackpressure(Channel client, int maxInFlight, AnswerWriter writer, ConnectionRequests requests,
                           BackendChannelPool backends, ConnectionBudgets budgets, Runnable partialFramesHaveRoom,
                           Runnable answersHaveRoom) {
        this.client = client;
        this.maxInFlight = maxInFlight;
        this.writer = writer;
        this.requests = requests;
        this.backends = backends;
        EventExecutor loop = client.eventLoop();
        this.partialFrames = budgets.partialFrames().holder(loop, partialFramesHaveRoom);
        this.unreadAnswers = budgets.unreadAnswers().holder(loop, answersHaveRoom);
    }

    /**
     * Why reading from the client should pause now, as {@link ReadPause} bits; {@code 0} reads.
     * Dispatching asks the same but for the drain and the broker and partial-frame budgets: a
     * draining connection answers what it read, and a request waiting for a broker channel's room
     * waits in that channel.
     */
    int pauseReasons(boolean forReading, boolean draining) {
        int reasons = 0;
        if (writer.waiting() >= maxInFlight || requests.unsettled() >= maxInFlight) {
            reasons |= ReadPause.IN_FLIGHT_CAP.bit();
        }
        if (!draining || forReading) {
            if (!client.isWritable()) {
                reasons |= ReadPause.CLIENT_NOT_WRITABLE.bit();
            }
            if (unreadAnswers.over()) {
                reasons |= ReadPause.UNREAD_ANSWER_BUDGET.bit();
            }
        }
        if (forReading) {
            if (draining) {
                reasons |= ReadPause.DRAINING.bit();
            }
            if (partialFrames.over()) {
                reasons |= ReadPause.PARTIAL_FRAME_BUDGET.bit();
            }
            if (!backends.isWritable()) {
                reasons |= ReadPause.BROKER_NOT_WRITABLE.bit();
            }
            if (reasons == 0 && requests.hasQueued()) {
                reasons = ReadPause.IN_FLIGHT_CAP.bit(); // frames wait for a slot
            }
        }
        return reasons;
    }

    /** The decoder holds {@code bytes} of a frame not yet whole. */
    void partialFrame(int bytes) {
        partialFrames.hold(bytes);
    }

    /** Answers were written or taken: count what the client holds, and read brokers as that allows. */
    void answersMoved() {
        unreadAnswers.hold(writer.unreadBytes());
        holdBackBrokersAhead();
        updateBrokerReading();
    }

    /** The connection closed: its shares of the budgets go back to the listener. */
    void release() {
        partialFrames.release();
        unreadAnswers.release();
    }

    /**
     * Brokers' answers are read while the client takes its own. While answers wait in the writer
     * for an earlier one, the channels are read regardless (but those held back): the earlier
     * answer comes from one of them.
     */
    private void updateBrokerReading() {
        boolean read = client.isWritable() && (!unreadAnswers.over() || writer.heldBytes() > 0);
        if (read != brokersRead) {
            brokersRead = read;
            backends.setAutoRead(read);
        }
    }

    /**
     * Over the unread-answer budget, a broker channel that delivers an answer which must wait for
     * an earlier one stops being read: without this, every request already in flight could land
     * in the writer. The channel with the earlier answer has delivered nothing that waits, so it
     * is still read; once the head of the line moves (or the budget has room) all are read again.
     * One case waits longer: a channel that carries the earlier answer behind a later request's
     * (its part was sent after the later one's, on the same channel) is held back too, and the
     * earlier request is answered at its deadline; this needs the budget spent as well.
     */
    private void holdBackBrokersAhead() {
        long released = writer.released();
        if (released != answersReleased || !unreadAnswers.over()) {
            answersReleased = released;
            backends.releaseHeldBack();
        } else if (writer.heldBytes() > 0) {
            backends.holdBackDelivering();
        }
    }
}
