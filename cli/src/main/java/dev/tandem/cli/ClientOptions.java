package dev.tandem.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.tandem.server.ServerConfig;
import dev.tandem.server.StateFiles;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.AccessDeniedException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Set;

/**
 * How the client commands find the daemon and say who they are, first that applies:
 * <ol>
 * <li>--server or $TANDEM_SERVER: over TCP with the token from --token-file, --token, $TANDEM_TOKEN or STATE_DIR/admin.token;</li>
 * <li>--socket or $TANDEM_SOCKET: through that Unix socket, no token (the daemon knows the caller's Unix account);</li>
 * <li>--token-file, --token or $TANDEM_TOKEN: over TCP to STATE_DIR/server.url (else http://127.0.0.1:8265) with it;</li>
 * <li>STATE_DIR/tandem.sock (the caller's own daemon), else STATE_DIR/server.url with STATE_DIR/admin.token (a daemon
 * the caller runs as itself, as before sockets), else /run/tandem/tandem.sock (the machine's daemon run as root);</li>
 * <li>http://127.0.0.1:8265 without a token.</li>
 * </ol>
 * A token is a secret: read from {@code --token-file} or {@code $TANDEM_TOKEN} (a process's environment is readable
 * only by its own user) it stays private, while {@code --token} shows it to every user of the machine in the process
 * list (/proc/PID/cmdline), so that one still works but warns, as {@code docker login --password} does.
 */
final class ClientOptions {
    static final String DEFAULT_SERVER = "http://127.0.0.1:8265";

    @Option(names = "--server", paramLabel = "URL", description = "tandem serve's URL (default: $TANDEM_SERVER, STATE_DIR/server.url, " + DEFAULT_SERVER + ")")
    String server;

    @Option(names = "--token", paramLabel = "TOKEN", description = "API token (default: $TANDEM_TOKEN, else STATE_DIR/admin.token); other users see it in the process list: prefer --token-file or $TANDEM_TOKEN")
    String token;

    @Option(names = "--token-file", paramLabel = "FILE", description = "read the API token from FILE ('-': standard input)")
    Path tokenFile;

    @Spec(Spec.Target.MIXEE) CommandSpec spec;

    @Option(names = "--socket", paramLabel = "PATH", description = "reach tandem serve through its Unix socket, no token needed (default: $TANDEM_SOCKET, else STATE_DIR/tandem.sock or /run/tandem/tandem.sock when they exist and no --server or token is given)")
    Path socket;

    @Option(names = "--state-dir", paramLabel = "DIR", description = "the daemon's state directory, for server.url and admin.token (default: $TANDEM_STATE_DIR or ~/.local/state/tandem)")
    Path stateDir;

    @Option(names = "--json", description = "print the server's JSON")
    boolean json;

    ApiClient client() {
        Path dir = stateDir != null ? stateDir : ServerConfig.defaultStateDir();
        String givenServer = first(server, System.getenv("TANDEM_SERVER"));
        String givenSocket = first(socket == null ? null : socket.toString(), System.getenv("TANDEM_SOCKET"));
        String givenToken = first(givenToken(), System.getenv("TANDEM_TOKEN"));
        String adminToken = read(dir.resolve(StateFiles.ADMIN_TOKEN));
        String url = read(dir.resolve(StateFiles.SERVER_URL));
        if (givenServer != null) return new ApiClient(givenServer, first(givenToken, adminToken));
        if (givenSocket != null) return ApiClient.overSocket(Path.of(givenSocket));
        if (givenToken != null) return new ApiClient(first(url, DEFAULT_SERVER), givenToken);
        if (Files.exists(dir.resolve(ServerConfig.SOCKET_FILE))) return ApiClient.overSocket(dir.resolve(ServerConfig.SOCKET_FILE));
        if (url != null && adminToken != null) return new ApiClient(url, adminToken);
        if (Files.exists(ServerConfig.ROOT_SOCKET)) return ApiClient.overSocket(ServerConfig.ROOT_SOCKET);
        return new ApiClient(first(url, DEFAULT_SERVER), null);
    }

    /** The token of --token or --token-file, or null; --token warns that it is on the command line. */
    private String givenToken() {
        if (token != null && tokenFile != null) throw new IllegalArgumentException("give --token or --token-file, not both");
        if (token != null) {
            spec.commandLine().getErr().println("tandem: warning: --token shows the token to every user of this machine in the process list;"
                    + " give it with --token-file FILE or $TANDEM_TOKEN instead");
            return token;
        }
        if (tokenFile == null) return null;
        String read;
        try {
            read = tokenFile.toString().equals("-") ? new String(System.in.readAllBytes(), StandardCharsets.UTF_8) : Files.readString(tokenFile);
        } catch (IOException e) {
            String why = e instanceof NoSuchFileException ? "no such file" : e instanceof AccessDeniedException ? "permission denied" : e.getMessage();
            throw new IllegalArgumentException("--token-file: cannot read " + tokenFile + ": " + why, e);
        }
        String t = read.strip();
        if (t.isEmpty()) throw new IllegalArgumentException("--token-file: " + tokenFile + " holds no token");
        if (t.lines().count() > 1) throw new IllegalArgumentException("--token-file: " + tokenFile + " holds more than one line; it should hold the token alone");
        warnIfOthersCanRead(tokenFile);
        return t;
    }

    /** As ssh does for a key: a token file that others may read gives the token away, which the caller should hear of. */
    private void warnIfOthersCanRead(Path file) {
        if (file.toString().equals("-")) return;
        Set<PosixFilePermission> perms;
        try {
            perms = Files.getPosixFilePermissions(file);
        } catch (IOException | UnsupportedOperationException e) {
            return; // no POSIX permissions to judge
        }
        if (perms.contains(PosixFilePermission.GROUP_READ) || perms.contains(PosixFilePermission.OTHERS_READ)) {
            spec.commandLine().getErr().println("tandem: warning: --token-file " + file + " is readable by other users (mode "
                    + PosixFilePermissions.toString(perms) + "); chmod 600 " + file);
        }
    }

    void print(JsonNode node) throws IOException {
        System.out.println(new ObjectMapper().writerWithDefaultPrettyPrinter().writeValueAsString(node));
    }

    private static String first(String... values) {
        for (String v : values) if (v != null && !v.isBlank()) return v.strip();
        return null;
    }

    private static String read(Path f) {
        try {
            return Files.isReadable(f) ? Files.readString(f).strip() : null;
        } catch (IOException e) {
            return null;
        }
    }
}
