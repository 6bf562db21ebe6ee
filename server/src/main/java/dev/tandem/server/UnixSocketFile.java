package dev.tandem.server;

import java.io.IOException;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;

/**
 * The path of the daemon's Unix socket, made ready before the daemon listens on it and opened to every local user
 * once it does: who may do what is decided per request from the peer's credentials, not by the file's mode.
 */
final class UnixSocketFile {
    /** The kernel's limit on a socket path (sun_path holds 108 bytes with the final NUL). */
    private static final int MAX_PATH_BYTES = 107;
    /** The file type bits of a socket in st_mode. */
    private static final int S_IFMT = 0170000, S_IFSOCK = 0140000;

    private UnixSocketFile() {}

    /**
     * Refuses a path that is too long, is not a socket, or where a daemon listens; called before the daemon writes
     * anything, so that such a start fails with nothing created.
     */
    static void check(Path socket) {
        if (socket.toString().getBytes(StandardCharsets.UTF_8).length > MAX_PATH_BYTES) {
            throw new StartupException("--socket " + socket + ": longer than the " + MAX_PATH_BYTES + " bytes a Unix socket path may have; give a shorter --socket");
        }
        try {
            if (!Files.exists(socket, LinkOption.NOFOLLOW_LINKS)) return;
            int mode = (Integer) Files.getAttribute(socket, "unix:mode", LinkOption.NOFOLLOW_LINKS);
            if ((mode & S_IFMT) != S_IFSOCK) {
                throw new StartupException("--socket " + socket + ": a file that is not a socket is in the way; remove it or give another --socket");
            }
            if (listening(socket)) {
                throw new StartupException("--socket " + socket + ": another tandem serve listens there; stop it, or give this one another --socket (or --socket none)");
            }
        } catch (IOException e) {
            throw new StartupException("--socket " + socket + ": " + e.getMessage() + "; give another --socket (or --socket none)", e);
        }
    }

    /**
     * Checks the path again ({@link #check}), makes the socket's directory (readable by all, so that every local user
     * can reach the socket) and removes a socket left by a daemon that died.
     */
    static void prepare(Path socket) {
        check(socket);
        try {
            Path dir = socket.getParent();
            if (!Files.isDirectory(dir)) {
                Files.createDirectories(dir, PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwxr-xr-x")));
            }
            Files.deleteIfExists(socket); // left by a daemon that was killed (check found nobody listening)
        } catch (IOException e) {
            throw new StartupException("--socket " + socket + ": " + e.getMessage() + "; give another --socket (or --socket none)", e);
        }
    }

    /** Lets every local user connect; the daemon tells them apart by their credentials. */
    static void openToLocalUsers(Path socket) throws IOException {
        Files.setPosixFilePermissions(socket, PosixFilePermissions.fromString("rw-rw-rw-"));
    }

    private static boolean listening(Path socket) {
        try (SocketChannel ch = SocketChannel.open(StandardProtocolFamily.UNIX)) {
            return ch.connect(UnixDomainSocketAddress.of(socket));
        } catch (IOException e) {
            return false;
        }
    }
}
