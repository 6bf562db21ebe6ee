package dev.tandem.server;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.channels.OverlappingFileLockException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.PosixFilePermissions;

/**
 * The files of the state directory besides the store and job output: {@code admin.token} (mode 0600, the first
 * admin's token) and {@code server.url} (where the running daemon listens), which clients read, written
 * atomically and never readable by others; and {@code daemon.lock}, held by the running daemon.
 */
public final class StateFiles {
    public static final String ADMIN_TOKEN = "admin.token";
    public static final String SERVER_URL = "server.url";
    public static final String LOCK = "daemon.lock";

    private StateFiles() {}

    /** Creates the state directory (mode 0700) if needed. */
    public static void ensureDir(Path dir) throws IOException {
        if (!Files.isDirectory(dir)) {
            Files.createDirectories(dir);
            Files.setPosixFilePermissions(dir, PosixFilePermissions.fromString("rwx------"));
        }
    }

    /**
     * Takes the state directory for this daemon: two daemons on one state directory would both adopt and start
     * the same jobs. The OS drops the lock when the process dies, kill -9 included, so it never needs cleaning up.
     */
    public static FileChannel lock(Path dir) throws IOException {
        FileChannel ch = FileChannel.open(dir.resolve(LOCK), StandardOpenOption.CREATE, StandardOpenOption.WRITE);
        FileLock lock;
        try {
            lock = ch.tryLock();
        } catch (OverlappingFileLockException e) {
            lock = null;
        }
        if (lock == null) {
            ch.close();
            throw new IllegalStateException("another tandem serve is using the state directory " + dir + "; stop it first, or give --state-dir");
        }
        return ch;
    }

    /** Writes a file that only the owner can read: created 0600 under a temporary name, then moved in place. */
    public static void writePrivate(Path file, String content) throws IOException {
        Path tmp = Files.createTempFile(file.getParent(), "." + file.getFileName(), ".tmp",
                PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------")));
        try {
            Files.writeString(tmp, content, StandardCharsets.UTF_8);
            Files.move(tmp, file, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
        } finally {
            Files.deleteIfExists(tmp);
        }
    }
}
