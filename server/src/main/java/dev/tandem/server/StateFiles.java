package dev.tandem.server;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.PosixFilePermissions;

/**
 * The files of the state directory that clients read: {@code admin.token} (mode 0600, the first admin's token)
 * and {@code server.url} (where the running daemon listens). Written atomically, never readable by others.
 */
public final class StateFiles {
    public static final String ADMIN_TOKEN = "admin.token";
    public static final String SERVER_URL = "server.url";

    private StateFiles() {}

    /** Creates the state directory (mode 0700) if needed. */
    public static void ensureDir(Path dir) throws IOException {
        if (!Files.isDirectory(dir)) {
            Files.createDirectories(dir);
            Files.setPosixFilePermissions(dir, PosixFilePermissions.fromString("rwx------"));
        }
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
