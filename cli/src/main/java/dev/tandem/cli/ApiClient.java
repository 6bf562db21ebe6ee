package dev.tandem.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

import java.io.IOException;
import java.net.ConnectException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.HttpTimeoutException;
import java.time.Duration;

/** The client side of tandem serve's HTTP API: JSON requests with the bearer token, server refusals as errors. */
final class ApiClient {
    /** The server refused the request (or could not be reached); the message is the server's. */
    static final class ServerError extends IOException {
        final int status;

        ServerError(int status, String message) {
            super(message);
            this.status = status;
        }
    }

    private static final ObjectMapper JSON = new ObjectMapper();
    private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
    private final String server;
    private final String token;

    ApiClient(String server, String token) {
        this.server = server.replaceAll("/+$", "");
        this.token = token;
    }

    JsonNode get(String path) throws IOException {
        return send(request(path).GET());
    }

    JsonNode post(String path, Object body) throws IOException {
        return send(request(path).header("Content-Type", "application/json").POST(HttpRequest.BodyPublishers.ofString(JSON.writeValueAsString(body))));
    }

    private HttpRequest.Builder request(String path) {
        URI uri;
        try {
            uri = URI.create(server + "/api/v1" + path);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("--server: '" + server + "' is not a URL like http://127.0.0.1:8265");
        }
        HttpRequest.Builder b = HttpRequest.newBuilder(uri).timeout(Duration.ofSeconds(60));
        if (token != null) b.header("Authorization", "Bearer " + token);
        return b;
    }

    private JsonNode send(HttpRequest.Builder b) throws IOException {
        HttpResponse<String> r;
        try {
            r = http.send(b.build(), HttpResponse.BodyHandlers.ofString());
        } catch (ConnectException e) {
            throw new ServerError(0, "cannot reach tandem serve at " + server + " (is it running? see --server or TANDEM_SERVER)");
        } catch (HttpTimeoutException e) {
            throw new ServerError(0, "tandem serve at " + server + " did not answer in time");
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException("interrupted", e);
        }
        JsonNode body;
        try {
            body = JSON.readTree(r.body());
        } catch (IOException e) {
            throw new ServerError(r.statusCode(), "unexpected answer from " + server + " (HTTP " + r.statusCode() + "): not JSON");
        }
        if (r.statusCode() >= 400) {
            String msg = body != null && body.hasNonNull("error") ? body.get("error").asText() : "HTTP " + r.statusCode();
            if (r.statusCode() == 401) msg += " (give a token with --token, TANDEM_TOKEN, or run where the admin token file is readable)";
            throw new ServerError(r.statusCode(), msg);
        }
        return body;
    }
}
