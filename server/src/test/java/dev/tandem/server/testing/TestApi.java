package dev.tandem.server.testing;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.function.BooleanSupplier;

/** A small HTTP client for the API in tests: raw status and parsed JSON body. */
public final class TestApi {
    public record Response(int status, String body, JsonNode json) {}

    private static final ObjectMapper JSON = new ObjectMapper();
    private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
    private final String base, root;

    public TestApi(String url) {
        this.root = url;
        this.base = url + "/api/v1";
    }

    /** GET a path outside /api/v1 (/metrics, /healthz, /readyz), without a token. */
    public Response getRoot(String path) {
        return send(HttpRequest.newBuilder(URI.create(root + path)).timeout(Duration.ofSeconds(30)).GET());
    }

    public Response get(String path, String token) { return send(request(path, token).GET()); }

    public Response post(String path, String token, String body) {
        return send(request(path, token).header("Content-Type", "application/json").POST(HttpRequest.BodyPublishers.ofString(body)));
    }

    public Response send(HttpRequest.Builder b) {
        try {
            HttpResponse<String> r = http.send(b.build(), HttpResponse.BodyHandlers.ofString());
            JsonNode j = null;
            try {
                j = JSON.readTree(r.body());
            } catch (IOException ignored) {
                // not JSON (metrics): the raw body is there
            }
            return new Response(r.statusCode(), r.body(), j);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    public HttpRequest.Builder request(String path, String token) {
        HttpRequest.Builder b = HttpRequest.newBuilder(URI.create(base + path)).timeout(Duration.ofSeconds(30));
        if (token != null) b.header("Authorization", "Bearer " + token);
        return b;
    }

    /** Submits a job running {@code argv}; returns its id. */
    public long submit(String token, String json) {
        Response r = post("/jobs", token, json);
        if (r.status() != 201) throw new AssertionError("submit failed: " + r.status() + " " + r.body());
        return r.json().get("id").asLong();
    }

    public JsonNode job(String token, long id) {
        Response r = get("/jobs/" + id, token);
        if (r.status() != 200) throw new AssertionError("GET /jobs/" + id + ": " + r.status() + " " + r.body());
        return r.json();
    }

    public String state(String token, long id) { return job(token, id).get("state").asText(); }

    /**
     * Waits until job {@code id} lists {@code partner} as its only partner: the list comes from the scheduler's live
     * state, which can trail the stored state (already {@code paired}) by a tick.
     */
    public void awaitPartner(String token, long id, long partner, Duration timeout) {
        await(timeout, "job " + id + " to list " + partner + " as partner", () -> {
            JsonNode partners = job(token, id).get("partners");
            return partners.size() == 1 && partners.get(0).asLong() == partner;
        });
    }

    /** Polls until {@code cond} holds, failing with {@code what} after {@code timeout}. */
    public static void await(Duration timeout, String what, BooleanSupplier cond) {
        long end = System.nanoTime() + timeout.toNanos();
        while (!cond.getAsBoolean()) {
            if (System.nanoTime() > end) throw new AssertionError("timed out after " + timeout.toSeconds() + " s waiting for " + what);
            try {
                Thread.sleep(50);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new AssertionError("interrupted waiting for " + what);
            }
        }
    }

    public static String json(Object o) {
        try {
            return JSON.writeValueAsString(o);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
