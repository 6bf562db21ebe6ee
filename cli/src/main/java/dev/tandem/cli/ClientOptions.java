package dev.tandem.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.tandem.server.ServerConfig;
import dev.tandem.server.StateFiles;
import picocli.CommandLine.Option;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * How the client commands find the daemon: the server from --server, else $TANDEM_SERVER, else the state
 * directory's server.url (a daemon on this machine), else http://127.0.0.1:8265; the token from --token, else
 * $TANDEM_TOKEN, else the state directory's admin.token (readable only by the daemon's user).
 */
final class ClientOptions {
    static final String DEFAULT_SERVER = "http://127.0.0.1:8265";

    @Option(names = "--server", paramLabel = "URL", description = "tandem serve's URL (default: $TANDEM_SERVER, STATE_DIR/server.url, " + DEFAULT_SERVER + ")")
    String server;

    @Option(names = "--token", paramLabel = "TOKEN", description = "API token (default: $TANDEM_TOKEN, else STATE_DIR/admin.token)")
    String token;

    @Option(names = "--state-dir", paramLabel = "DIR", description = "the daemon's state directory, for server.url and admin.token (default: $TANDEM_STATE_DIR or ~/.local/state/tandem)")
    Path stateDir;

    @Option(names = "--json", description = "print the server's JSON")
    boolean json;

    ApiClient client() {
        Path dir = stateDir != null ? stateDir : ServerConfig.defaultStateDir();
        String url = first(server, System.getenv("TANDEM_SERVER"), read(dir.resolve(StateFiles.SERVER_URL)), DEFAULT_SERVER);
        String tok = first(token, System.getenv("TANDEM_TOKEN"), read(dir.resolve(StateFiles.ADMIN_TOKEN)), null);
        return new ApiClient(url, tok);
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
