package org.kafscale.proxy.core.server;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.util.ReferenceCountUtil;
import io.netty.util.concurrent.Future;
import org.kafscale.proxy.core.backend.BackendChannelPool;
import org.kafscale.proxy.core.backend.BackendConnector;
import org.kafscale.proxy.core.codec.RequestFrame;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One client connection: hands each request to the dispatcher, puts the client's correlation id
 * on each answer, and writes answers in request order.
 *
 * <p>Backpressure: reading from the client pauses while {@code maxInFlight} requests wait for
 * answers or while the client cannot take more bytes; reading from brokers pauses while the client
 * is unwritable.
 *
 * <p>Drain ({@link #DRAIN}, sent by the listener on shutdown): stop reading, answer every request
 * already read, and close once the last answer is flushed, so no answer is cut in half and the
 * client retries whatever it sent after that on another proxy.
 */
public final class ClientConnectionHandler extends ChannelInboundHandlerAdapter {
    private static final Logger LOGGER = LoggerFactory.getLogger(ClientConnectionHandler.class);
    private static final int FRAME_SIZE_BYTES = 4;

    private final RequestHandlers handlers;
    private final BackendConnector connector;
    private final int maxInFlight;
    private final ConnectionListener listener;
    private final ResponseOrderer orderer = new ResponseOrderer();
    private ConnectionContext context;
    private RequestHandler dispatcher;
    private ChannelHandlerContext ctx;
    private boolean closing;
    private boolean draining;

    /** The user event that starts a drain of this connection. */
    public static final Object DRAIN = new Object() {
        @Override
        public String toString() {
            return "DRAIN";
        }
    };

    public ClientConnectionHandler(RequestHandlers handlers, BackendConnector connector, int maxInFlight,
                                   ConnectionListener listener) {
        this.handlers = handlers;
        this.connector = connector;
        this.maxInFlight = maxInFlight;
        this.listener = listener;
    }

    @Override
    public void channelActive(ChannelHandlerContext ctx) {
        this.ctx = ctx;
        this.context = new ConnectionContext(ctx.channel().eventLoop(),
                new BackendChannelPool(ctx.channel().eventLoop(), connector), ctx.channel().remoteAddress());
        this.dispatcher = handlers.forConnection(context);
        listener.opened();
        ctx.fireChannelActive();
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
        if (!(msg instanceof RequestFrame request)) {
            ReferenceCountUtil.release(msg);
            return;
        }
        if (closing) {
            request.frame().release();
            return;
        }
        ResponseOrderer.Slot slot = orderer.reserve(request.correlationId());
        listener.requestStarted(request.apiKey());
        long started = System.nanoTime();
        int requestBytes = FRAME_SIZE_BYTES + request.frame().readableBytes();
        Future<Reply> reply;
        try {
            reply = dispatcher.handle(context, request);
        } catch (RuntimeException e) {
            LOGGER.warn("Closing connection from client {}: handling {} failed", context.clientAddress(),
                    request.describe(), e);
            reply = context.loop().newSucceededFuture(new Reply.Close("handler failed: " + e));
        }
        reply.addListener(f -> {
            request.frame().release();
            Reply result = f.isSuccess() ? (Reply) f.getNow()
                    : new Reply.Close("handling " + request.describe() + " failed: " + f.cause());
            if (result == null) {
                // A null would leave the slot looking pending and stall every later answer.
                result = new Reply.Close("handling " + request.describe() + " produced no reply");
            }
            listener.requestCompleted(request.apiKey(), request.apiVersion(), System.nanoTime() - started, requestBytes,
                    answerBytes(result), result instanceof Reply.SendAndClose || result instanceof Reply.Close);
            onReply(slot, result);
        });
        updateReading();
    }

    private void onReply(ResponseOrderer.Slot slot, Reply reply) {
        if (closing) {
            reply.discard();
            return;
        }
        orderer.complete(slot, reply, this::write);
        ctx.flush();
        updateReading();
        closeIfDrained();
    }

    @Override
    public void userEventTriggered(ChannelHandlerContext ctx, Object event) {
        if (event == DRAIN) {
            draining = true;
            updateReading();
            closeIfDrained();
            return;
        }
        ctx.fireUserEventTriggered(event);
    }

    /** During a drain: once every request read has its answer written, close after the flush. */
    private void closeIfDrained() {
        if (draining && !closing && orderer.waiting() == 0) {
            LOGGER.debug("Drained connection from client {}", context.clientAddress());
            closing = true;
            // An empty write completes after every earlier write; it starts at the head of the
            // pipeline so the size prepender does not turn it into a zero-length frame.
            ctx.pipeline().firstContext().writeAndFlush(Unpooled.EMPTY_BUFFER).addListener(ChannelFutureListener.CLOSE);
        }
    }

    private void write(ResponseOrderer.Slot slot) {
        Reply reply = slot.reply;
        if (closing) {
            reply.discard();
            return;
        }
        if (reply instanceof Reply.Send send) {
            ctx.write(withClientCorrelationId(send.frame(), slot), ctx.voidPromise());
        } else if (reply instanceof Reply.SendAndClose send) {
            LOGGER.info("Closing connection from client {} after answering: {}", context.clientAddress(),
                    send.reason());
            ctx.writeAndFlush(withClientCorrelationId(send.frame(), slot)).addListener(ChannelFutureListener.CLOSE);
            beginClose();
        } else if (reply instanceof Reply.Close close) {
            LOGGER.warn("Closing connection from client {}: {}", context.clientAddress(), close.reason());
            ctx.flush();
            ctx.close();
            beginClose();
        }
    }

    private static int answerBytes(Reply reply) {
        if (reply instanceof Reply.Send send) {
            return FRAME_SIZE_BYTES + send.frame().readableBytes();
        }
        if (reply instanceof Reply.SendAndClose send) {
            return FRAME_SIZE_BYTES + send.frame().readableBytes();
        }
        return 0;
    }

    private static ByteBuf withClientCorrelationId(ByteBuf frame, ResponseOrderer.Slot slot) {
        frame.setInt(frame.readerIndex(), slot.clientCorrelationId);
        return frame;
    }

    private void beginClose() {
        closing = true;
        orderer.discardAll();
    }

    @Override
    public void channelWritabilityChanged(ChannelHandlerContext ctx) {
        context.backends().setAutoRead(ctx.channel().isWritable());
        updateReading();
        ctx.fireChannelWritabilityChanged();
    }

    private void updateReading() {
        boolean read = !closing && !draining && orderer.waiting() < maxInFlight && ctx.channel().isWritable();
        if (ctx.channel().config().isAutoRead() != read) {
            ctx.channel().config().setAutoRead(read);
        }
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) {
        closing = true;
        orderer.discardAll();
        context.backends().closeAll("client " + context.clientAddress() + " disconnected");
        listener.closed();
        ctx.fireChannelInactive();
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
        LOGGER.warn("Closing connection from client {}: {}", ctx.channel().remoteAddress(), cause.toString());
        LOGGER.debug("Connection error detail", cause);
        ctx.close();
    }

    /** Told when client connections open and close and when each request is answered (metrics, drain). */
    public interface ConnectionListener {
        ConnectionListener NONE = new ConnectionListener() {
        };

        default void opened() {
        }

        default void closed() {
        }

        /** A request was read and is being handled; {@link #requestCompleted} follows for each. */
        default void requestStarted(short apiKey) {
        }

        /**
         * One request was handled. Called on the connection's event loop: must be cheap.
         *
         * @param nanos from reading the request to its reply being ready
         * @param requestBytes bytes read, size prefix included
         * @param answerBytes bytes of the answer, size prefix included (0 when Kafka defines none)
         * @param closedConnection the reply closes the connection (not ready, or no answer exists)
         */
        default void requestCompleted(short apiKey, short apiVersion, long nanos, int requestBytes, int answerBytes,
                                      boolean closedConnection) {
        }
    }
}
