package org.kafscale.proxy.lfs;

import io.netty.channel.EventLoop;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;

/** Small helpers for the module's asynchronous code. */
public final class Async {
    private Async() {
    }

    /** The failure inside {@code CompletionException}/{@code ExecutionException} wrappers. */
    public static Throwable unwrap(Throwable failure) {
        Throwable t = failure;
        while ((t instanceof CompletionException || t instanceof ExecutionException) && t.getCause() != null) {
            t = t.getCause();
        }
        return t;
    }

    /** Runs {@code task} on {@code loop}: now when already there, else queued. */
    public static void onLoop(EventLoop loop, Runnable task) {
        if (loop.inEventLoop()) {
            task.run();
        } else {
            loop.execute(task);
        }
    }
}
