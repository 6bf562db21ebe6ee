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
import java.util.List;
import java.util.Set;

/**
 * One lock file per GPU (by UUID) that every tandem serve on the machine takes for its whole life, whatever its
 * state directory or user, so that two daemons never schedule the same GPU. The files live in {@code /run/lock/tandem}
 * (world-writable and sticky, as /run/lock is), so daemons of different users see each other's locks; the OS drops
 * a lock when its process dies, kill -9 included. A locked file names the daemon holding it.
 */
public final class GpuLocks implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(GpuLocks.class);
    /** Where the locks live unless a test says otherwise. */
    public static final Path DEFAULT_DIR = Path.of("/run/lock/tandem");

    private final List<FileChannel> held = new ArrayList<>();
    private final List<GpuDevice> free = new ArrayList<>();
    private final List<String> taken = new ArrayList<>();

    private GpuLocks() {}

    /**
     * Locks each of {@code gpus} that no other daemon holds. {@code owner} is written into each lock taken (the
     * daemon's pid and state directory), so that one left out can say who has it.
     */
    public static GpuLocks acquire(List<GpuDevice> gpus, Path dir, String owner) {
        GpuLocks locks = new GpuLocks();
        try {
            if (!Files.isDirectory(dir)) {
                Files.createDirectories(dir);
                Files.setAttribute(dir, "unix:mode", 01777); // as /run/lock: anyone may add a lock, only its owner remove it
            }
            for (GpuDevice g : gpus) {
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
                    locks.taken.add("GPU " + g.index() + " (" + g.uuid() + ") is used by another tandem serve" + (holder.isEmpty() ? "" : " (" + holder + ")"));
                    continue;
                }
                ch.truncate(0);
                ch.write(ByteBuffer.wrap(owner.getBytes(StandardCharsets.UTF_8)), 0);
                locks.held.add(ch);
                locks.free.add(g);
            }
        } catch (IOException e) {
            locks.close();
            throw new ExecException("cannot lock the GPUs in " + dir + " (" + e.getMessage() + "): every tandem serve on this machine takes its GPUs there", e);
        }
        for (String t : locks.taken) log.warn("{}; left out", t);
        return locks;
    }

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
    public List<GpuDevice> gpus() { return List.copyOf(free); }

    /** Why GPUs were left out ("GPU 0 (uuid) is used by another tandem serve (pid 12, state dir /x)"). */
    public List<String> leftOut() { return List.copyOf(taken); }

    @Override public void close() {
        for (FileChannel ch : held) {
            try {
                ch.close();
            } catch (IOException ignored) {
                // the lock goes with the process anyway
            }
        }
        held.clear();
    }
}
