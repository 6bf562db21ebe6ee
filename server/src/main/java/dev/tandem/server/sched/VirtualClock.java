package dev.tandem.server.sched;

import java.time.Instant;
import java.time.InstantSource;

/**
 * The daemon's clock when it runs in virtual time ({@link dev.tandem.server.TandemServer#startInVirtualTime}): time
 * stands still until the driver moves it, to the next moment something happens (an arrival, a simulated run ending,
 * a round due), as a discrete-event simulator's clock does. It only moves forward.
 */
public final class VirtualClock implements InstantSource {
    private volatile long millis;

    public VirtualClock(long startMillis) {
        this.millis = startMillis;
    }

    @Override public long millis() { return millis; }

    @Override public Instant instant() { return Instant.ofEpochMilli(millis); }

    /** Moves the clock to {@code at}; never back. */
    public synchronized void moveTo(long at) {
        if (at < millis) throw new IllegalArgumentException("virtual time runs forward only: at " + millis + " ms, asked for " + at);
        millis = at;
    }
}
