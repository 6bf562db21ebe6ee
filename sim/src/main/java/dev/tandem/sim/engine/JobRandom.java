package dev.tandem.sim.engine;

import java.nio.charset.StandardCharsets;
import java.util.SplittableRandom;

/**
 * A random stream per job, fixed by the seed and the job's id alone: dropping, adding or reordering other jobs never
 * changes a job's draws, and the same seed gives the same draws on every JVM. Used where the simulation draws
 * something per job (a trace job's profile, the error on its length the policies see).
 */
public final class JobRandom {
    private JobRandom() {}

    /** {@code SplittableRandom(mix(seed, FNV-1a-64(id)))}. */
    public static SplittableRandom of(long seed, String id) {
        return new SplittableRandom(mix(seed, fnv1a64(id)));
    }

    /** FNV-1a over the id's UTF-8 bytes: fixed by definition, unlike a JVM's hash codes could be. */
    static long fnv1a64(String s) {
        long h = 0xcbf29ce484222325L;
        for (byte b : s.getBytes(StandardCharsets.UTF_8)) {
            h ^= b & 0xff;
            h *= 0x100000001b3L;
        }
        return h;
    }

    /** SplitMix64's finaliser over seed and hash, so that nearby seeds give unrelated streams. */
    private static long mix(long seed, long hash) {
        long z = seed * 0x9e3779b97f4a7c15L + hash;
        z = (z ^ (z >>> 30)) * 0xbf58476d1ce4e5b9L;
        z = (z ^ (z >>> 27)) * 0x94d049bb133111ebL;
        return z ^ (z >>> 31);
    }
}
