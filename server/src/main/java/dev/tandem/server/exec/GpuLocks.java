package dev.tandem.server.exec;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.channels.OverlappingFileLockException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * One lock file per GPU (by UUID) that every tandem serve on the machine takes for its whole life, whatever its
 * state directory or user, so that two daemons never schedule the same GPU. The files live in {@code /run/lock/tandem}
 * (world-writable and sticky, as /run/lock is), so daemons of different users see each other's locks; the OS drops
 * a lock when its process dies, kill -9 included. A locked file names the daemon holding it. A GPU another daemon
 * holds is tried again now and then ({@link #retry}), so that it is taken as soon as that daemon lets it go.
 */
public final class GpuLocks implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(GpuLocks.class);
    /** Where the locks live unless a test says otherwise. */
    public static final Path DEFAULT_DIR = Path.of("/run/lock/tandem");

    private final Path dir;
    private final String owner;
    /** Every GPU of the machine, in inventory order. */
    private final List<GpuDevice> all;
    /** Locks held, by GPU UUID. */
    private final Map<String, FileChannel> held = new LinkedHashMap<>();
    /** Why each GPU not held is not ("GPU 0 (uuid) is used by another tandem serve (pid 12, state dir /x)"), by UUID. */
    private final Map<String, String> taken = new LinkedHashMap<>();

    private GpuLocks(Path dir, String owner, List<GpuDevice> all) {
        this.dir = dir;
        this.owner = owner;
        this.all = List.copyOf(all);
    }

    /**
     * Locks each of {@code gpus} that no other daemon holds. {@code owner} is written into each lock taken (the
     * daemon's pid and state directory), so that one left out can say who has it.
     */
    public static GpuLocks acquire(List<GpuDevice> gpus, Path dir, String owner) {
        GpuLocks locks = new GpuLocks(dir, owner, gpus);
        try {
            if (!Files.isDirectory(dir)) {
                Files.createDirectories(dir);
                Files.setAttribute(dir, "unix:mode", 01777); // as /run/lock: anyone may add a lock, only its owner remove it
            }
            for (GpuDevice g : gpus) locks.tryLock(g);
        } catch (IOException e) {
            locks.close();
            throw new ExecException("cannot lock the GPUs in " + dir + " (" + e.getMessage() + "): every tandem serve on this machine takes its GPUs there", e);
        }
        for (String t : locks.taken.values()) log.warn("{}; not scheduled until that daemon lets it go", t);
        return locks;
    }

    /** Takes a GPU's lock if nobody holds it; else records who does. */
    private boolean tryLock(GpuDevice g) throws IOException {
        Path file = dir.resolve("gpu-" + g.uuid().replaceAll("[^A-Za-z0-9._-]", "_") + ".lock");
        FileChannel ch = open(file);
        FileLock lock;
        try {
            lock = ch.tryLock();
        } catch (OverlappingFileLockException e) {
            lock = null; // another daemon in this JVM (tests) holds it
        }
        if (lock == null) {
            String holder = Files.readString(file, StandardCharsets.UTF_8).strip();
            ch.close();
            taken.put(g.uuid(), "GPU " + g.index() + " (" + g.uuid() + ") is used by another tandem serve" + (holder.isEmpty() ? "" : " (" + holder + ")"));
            return false;
        }
        ch.truncate(0);
        ch.write(ByteBuffer.wrap(owner.getBytes(StandardCharsets.UTF_8)), 0);
        held.put(g.uuid(), ch);
        taken.remove(g.uuid());
        return true;
    }

    /**
     * Tries again to lock the GPUs other daemons held; returns those taken now. A GPU whose lock file cannot be
     * opened stays left out (said once at start).
     */
    public synchronized List<GpuDevice> retry() {
        List<GpuDevice> now = new ArrayList<>();
        for (GpuDevice g : all) {
            if (held.containsKey(g.uuid())) continue;
            try {
                if (tryLock(g)) {
                    now.add(g);
                    log.info("GPU {} ({}): the other tandem serve let it go; this daemon schedules it now", g.index(), g.uuid());
                }
            } catch (IOException e) {
                // as before: not ours
            }
        }
        return now;
    }

    /** Why this daemon may not use a GPU (another daemon holds it), or null where it holds it. */
    public synchronized String why(GpuDevice g) { return held.containsKey(g.uuid()) ? null : taken.getOrDefault(g.uuid(), "GPU " + g.index() + " is not locked by this daemon"); }

    /** Lock files are writable by every user, so that any user's daemon can lock them (locking needs write access). */
    private static FileChannel open(Path file) throws IOException {
        boolean created = !Files.exists(file);
        FileChannel ch = FileChannel.open(file, Set.of(StandardOpenOption.CREATE, StandardOpenOption.READ, StandardOpenOption.WRITE));
        if (created) {
            try {
                Files.setPosixFilePermissions(file, PosixFilePermissions.fromString("rw-rw-rw-"));
            } catch (IOException e) {
                // created by another user meanwhile: theirs to set
            }
        }
        return ch;
    }

    /** The GPUs this daemon holds. */
    public synchronized List<GpuDevice> gpus() { return all.stream().filter(g -> held.containsKey(g.uuid())).toList(); }

    /** Why GPUs were left out ("GPU 0 (uuid) is used by another tandem serve (pid 12, state dir /x)"). */
    public synchronized List<String> leftOut() { return List.copyOf(taken.values()); }

    @Override public synchronized void close() {
        for (FileChannel ch : held.values()) {
            try {
                ch.close();
            } catch (IOException ignored) {
                // the lock goes with the process anyway
            }
        }
        held.clear();
    }
}
