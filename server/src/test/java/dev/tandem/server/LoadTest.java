package dev.tandem.server;

import com.fasterxml.jackson.databind.JsonNode;
import dev.tandem.server.testing.FakeGpuHost;
import dev.tandem.server.testing.TestApi;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/** A bounded loopback load: 20 concurrent clients submit 1,000 jobs; every one is accepted exactly once. */
class LoadTest {
    private static final int CLIENTS = 20;
    private static final int PER_CLIENT = 50;

    @TempDir Path dir;

    @Test
    @Timeout(value = 120, unit = TimeUnit.SECONDS)
    void thousandJobsFromTwentyClientsAreAllAcceptedOnce() throws Exception {
        FakeGpuHost host = FakeGpuHost.install(dir.resolve("host"), "h100x2");
        try (TandemServer server = TandemServer.start(host.config(dir.resolve("state")))) {
            String token = Files.readString(server.adminTokenFile()).strip();
            List<Long> ids = Collections.synchronizedList(new ArrayList<>());
            try (ExecutorService pool = Executors.newFixedThreadPool(CLIENTS)) {
                List<Future<?>> clients = new ArrayList<>();
                for (int c = 0; c < CLIENTS; c++) {
                    int client = c;
                    clients.add(pool.submit(() -> {
                        TestApi api = new TestApi(server.url());
                        for (int i = 0; i < PER_CLIENT; i++) {
                            ids.add(api.submit(token, TestApi.json(Map.of("argv", List.of("sleep", "600"), "name", "load-" + client + "-" + i,
                                    "workdir", dir.toString(), "signature", Map.of("model", "Sleep")))));
                        }
                    }));
                }
                for (Future<?> f : clients) f.get(100, TimeUnit.SECONDS);
            }
            assertThat(ids).hasSize(CLIENTS * PER_CLIENT).doesNotHaveDuplicates();
            JsonNode all = new TestApi(server.url()).get("/jobs?limit=10000", token).json().get("jobs");
            Set<String> names = new HashSet<>();
            for (JsonNode j : all) names.add(j.get("name").asText());
            assertThat(all).hasSize(CLIENTS * PER_CLIENT);
            assertThat(names).hasSize(CLIENTS * PER_CLIENT);
        }
    }
}
