package dev.tandem.server;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.channels.OverlappingFileLockException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.io.UncheckedIOException;
import java.util.EnumSet;
import java.util.Set;
import java.util.stream.Stream;

/**
 * The state directory, owner-only ({@link #secureDir}), and its files besides the store and job output:
 * {@code admin.token} (mode 0600, the first admin's token) and {@code server.url} (where the running daemon
 * listens), which clients read, written atomically and never readable by others; and {@code daemon.lock}, held by
 * the running daemon.
 */
public final class StateFiles {
    public static final String ADMIN_TOKEN = "admin.token";
    public static final String SERVER_URL = "server.url";
    public static final String LOCK = "daemon.lock";

    private StateFiles() {}

    private static final Set<PosixFilePermission> OTHERS_WRITE = EnumSet.of(PosixFilePermission.GROUP_WRITE, PosixFilePermission.OTHERS_WRITE);
    private static final Set<PosixFilePermission> OWNER_ONLY = EnumSet.of(PosixFilePermission.OWNER_READ, PosixFilePermission.OWNER_WRITE,
            PosixFilePermission.OWNER_EXECUTE);

    /**
     * Makes the state directory the daemon's alone: created with mode 0700 whatever the umask; an existing one must
     * belong to this user and not be writable by anyone else (whoever can write in it can rewrite the wrapper every
     * job runs through, or the store), else {@link StartupException}; group and other bits on it and on everything
     * in it are removed (job argv, environment and output, the store, the admin token are the owner's alone).
     *
     * @return how many entries had their modes corrected
     */
    public static int secureDir(Path dir) {
        try {
            if (!Files.exists(dir, LinkOption.NOFOLLOW_LINKS)) {
                Files.createDirectories(dir);
                Files.setPosixFilePermissions(dir, OWNER_ONLY);
                return 0;
            }
            if (!Files.isDirectory(dir)) throw new StartupException("state directory " + dir + " is not a directory; give --state-dir");
            String me = System.getProperty("user.name");
            String owner = Files.getOwner(dir).getName();
            if (!owner.equals(me)) {
                throw new StartupException("state directory " + dir + " belongs to " + owner + ", not to " + me
                        + " who runs tandem serve; give a --state-dir of your own");
            }
            Set<PosixFilePermission> perms = Files.getPosixFilePermissions(dir);
            if (perms.stream().anyMatch(OTHERS_WRITE::contains)) {
                throw new StartupException("state directory " + dir + " is writable by others (mode " + PosixFilePermissions.toString(perms)
                        + "), who could rewrite what jobs run; check what is in it, then run: chmod 700 " + dir);
            }
            int[] corrected = {0};
            try (Stream<Path> all = Files.walk(dir)) {
                all.forEach(p -> {
                    try {
                        if (Files.isSymbolicLink(p) || !Files.getOwner(p, LinkOption.NOFOLLOW_LINKS).getName().equals(me)) return;
                        Set<PosixFilePermission> ps = Files.getPosixFilePermissions(p, LinkOption.NOFOLLOW_LINKS);
                        if (OWNER_ONLY.containsAll(ps)) return;
                        ps.retainAll(OWNER_ONLY);
                        Files.setPosixFilePermissions(p, ps);
                        corrected[0]++;
                    } catch (IOException e) {
                        throw new UncheckedIOException(e);
                    }
                });
            }
            return corrected[0];
        } catch (IOException | UncheckedIOException e) {
            throw new StartupException("state directory " + dir + ": " + e.getMessage() + "; give a --state-dir you can write", e);
        }
    }

    /**
     * Takes the state directory for this daemon: two daemons on one state directory would both adopt and start
     * the same jobs. The OS drops the lock when the process dies, kill -9 included, so it never needs cleaning up.
     */
    public static FileChannel lock(Path dir) throws IOException {
        FileChannel ch = FileChannel.open(dir.resolve(LOCK), Set.of(StandardOpenOption.CREATE, StandardOpenOption.WRITE),
                PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------")));
        FileLock lock;
        try {
            lock = ch.tryLock();
        } catch (OverlappingFileLockException e) {
            lock = null;
        }
        if (lock == null) {
            ch.close();
            throw new StartupException("another tandem serve is using the state directory " + dir + "; stop it first, or give --state-dir");
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
