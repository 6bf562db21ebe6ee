package dev.tandem.server.bench;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;

/** The few API calls the benchmarks make against a running daemon. */
final class BenchClient {
    private static final ObjectMapper JSON = new ObjectMapper();
    /** HTTP/1.1 as the daemon speaks it: the default (HTTP/2) would offer an h2c upgrade on each new connection. */
    private static final HttpClient HTTP = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();

    private BenchClient() {}

    static JsonNode submit(String url, String token, String body) throws Exception {
        HttpResponse<String> r = HTTP.send(HttpRequest.newBuilder(URI.create(url + "/api/v1/jobs")).header("Authorization", "Bearer " + token)
                .header("Content-Type", "application/json").POST(HttpRequest.BodyPublishers.ofString(body)).build(), HttpResponse.BodyHandlers.ofString());
        if (r.statusCode() != 201) throw new IllegalStateException("submit refused: " + r.statusCode() + " " + r.body());
        return JSON.readTree(r.body());
    }

    static JsonNode get(String url, String token, String path) throws Exception {
        HttpResponse<String> r = HTTP.send(HttpRequest.newBuilder(URI.create(url + "/api/v1" + path)).header("Authorization", "Bearer " + token).build(),
                HttpResponse.BodyHandlers.ofString());
        return JSON.readTree(r.body());
    }
}
