package dev.tandem.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import org.eclipse.jetty.client.ContentResponse;
import org.eclipse.jetty.client.HttpClient;
import org.eclipse.jetty.client.Request;
import org.eclipse.jetty.client.StringRequestContent;
import org.eclipse.jetty.http.HttpMethod;
import org.eclipse.jetty.io.Transport;
import org.eclipse.jetty.util.thread.QueuedThreadPool;

import java.io.IOException;
import java.net.SocketException;
import java.net.URI;
import java.nio.channels.UnresolvedAddressException;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * The client side of tandem serve's HTTP API: JSON requests, server refusals as errors. It reaches the daemon over
 * TCP with a bearer token, or over the daemon's Unix socket, where the daemon knows the caller by its Unix account
 * and no token is sent.
 */
final class ApiClient {
    /** The server refused the request (or could not be reached); the message is the server's. */
    static final class ServerError extends IOException {
        final int status;
        /** The request field the daemon refused, or null. */
        final String field;

        ServerError(int status, String message) {
            this(status, message, null);
        }

        ServerError(int status, String message, String field) {
            super(message);
            this.status = status;
            this.field = field;
        }

        /**
         * The refusal in the command's terms: the daemon names the API field ({@code memory_mib: must be within
         * 0..24576, got 30720}), the user typed an option ({@code --memory 30G}), so the option leads and the field follows
         * in brackets. {@code options} maps fields to options; a field within one ({@code signature.dataset}) falls back
         * to the option of its parent where it has none of its own.
         */
        ServerError inTermsOf(Map<String, String> options) {
            if (field == null) return this;
            String option = options.get(field);
            if (option == null && field.contains(".")) option = options.get(field.substring(0, field.indexOf('.')));
            String prefix = field + ": ";
            if (option == null || !getMessage().startsWith(prefix)) return this;
            return new ServerError(status, option + " (" + field + "): " + getMessage().substring(prefix.length()), field);
        }
    }

    private static final ObjectMapper JSON = new ObjectMapper();
    /** One HTTP client for the command's life; its threads are daemons, so a command ends without closing it. */
    private static HttpClient http;
    private final String server;
    private final String token;
    /** The daemon's Unix socket, or null to go over TCP to {@link #server}. */
    private final Path socket;

    /** Over TCP, with a token (or none). */
    ApiClient(String server, String token) {
        this(server, token, null);
    }

    private ApiClient(String server, String token, Path socket) {
        this.server = server.replaceAll("/+$", "");
        this.token = token;
        this.socket = socket;
    }

    /** Through a daemon's Unix socket: the caller is who the kernel says it is. */
    static ApiClient overSocket(Path socket) {
        return new ApiClient("http://localhost", null, socket);
    }

    /** Where requests go, for messages. */
    String where() { return socket != null ? "the Unix socket " + socket : server; }

    JsonNode get(String path) throws IOException {
        return send(request(path).method(HttpMethod.GET));
    }

    JsonNode post(String path, Object body) throws IOException {
        return send(request(path).method(HttpMethod.POST).body(new StringRequestContent("application/json", JSON.writeValueAsString(body))));
    }

    private static synchronized HttpClient http() throws IOException {
        if (http != null) return http;
        QueuedThreadPool threads = new QueuedThreadPool();
        threads.setName("tandem-client");
        threads.setDaemon(true);
        HttpClient c = new HttpClient();
        c.setExecutor(threads);
        c.setConnectTimeout(5000);
        c.setFollowRedirects(false);
        try {
            c.start();
        } catch (Exception e) {
            throw new IOException("cannot start the HTTP client: " + e.getMessage(), e);
        }
        http = c;
        return c;
    }

    private Request request(String path) throws IOException {
        URI uri;
        try {
            uri = URI.create(server + "/api/v1" + path);
            if (uri.getHost() == null || uri.getScheme() == null) throw new IllegalArgumentException();
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("--server: '" + server + "' is not a URL like http://127.0.0.1:8265");
        }
        Request r = http().newRequest(uri).timeout(60, TimeUnit.SECONDS);
        if (socket != null) r.transport(new Transport.TCPUnix(socket));
        else if (token != null) r.headers(h -> h.put("Authorization", "Bearer " + token));
        return r;
    }

    /** Whether a failure means nothing listens there (a refused or impossible connection, a missing socket file). */
    private static boolean unreachable(Throwable t) {
        for (; t != null; t = t.getCause()) {
            if (t instanceof SocketException || t instanceof NoSuchFileException || t instanceof UnresolvedAddressException) return true;
        }
        return false;
    }

    private JsonNode send(Request request) throws IOException {
        ContentResponse r;
        try {
            r = request.send();
        } catch (ExecutionException e) {
            Throwable cause = e.getCause();
            if (unreachable(cause)) {
                throw new ServerError(0, "cannot reach tandem serve at " + where() + " (is it running? see --server, --socket, TANDEM_SERVER)");
            }
            throw new ServerError(0, "tandem serve at " + where() + " failed to answer: " + (cause == null ? e : cause).getMessage());
        } catch (TimeoutException e) {
            throw new ServerError(0, "tandem serve at " + where() + " did not answer in time");
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException("interrupted", e);
        }
        JsonNode body;
        try {
            body = JSON.readTree(r.getContentAsString());
        } catch (IOException e) {
            throw new ServerError(r.getStatus(), "unexpected answer from " + where() + " (HTTP " + r.getStatus() + "): not JSON");
        }
        if (r.getStatus() >= 400) {
            String msg = body != null && body.hasNonNull("error") ? body.get("error").asText() : "HTTP " + r.getStatus();
            String field = body != null && body.hasNonNull("field") ? body.get("field").asText() : null;
            // the token was missing or wrong (a disabled user's is right: another would not help)
            if (r.getStatus() == 401 && socket == null && "Authorization".equals(field)) {
                msg += " (give a token with --token-file, TANDEM_TOKEN or --token, or run where the admin token file is readable)";
            }
            throw new ServerError(r.getStatus(), msg, field);
        }
        return body;
    }
}
