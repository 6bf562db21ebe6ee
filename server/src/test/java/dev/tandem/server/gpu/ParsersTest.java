package dev.tandem.server.gpu;

import dev.tandem.server.exec.GpuDevice;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** nvidia-smi and dcgmi dmon output, as recorded in the test resources (NVIDIA's documented formats). */
class ParsersTest {
    static List<String> resource(String name) throws IOException {
        try (InputStream in = ParsersTest.class.getResourceAsStream("/fake/data/" + name)) {
            return new String(in.readAllBytes(), StandardCharsets.UTF_8).lines().toList();
        }
    }

    @Test
    void inventoryLinesGiveIndexUuidNameAndMemory() throws IOException {
        List<GpuDevice> gpus = NvidiaSmiParser.parseInventory(resource("inventory-a100-mixed.csv"), "gpu01");
        assertThat(gpus).containsExactly(
                new GpuDevice(0, "gpu01", "GPU-1f2e3d4c-5b6a-4978-8a9b-cdef01234567", "NVIDIA A100-SXM4-40GB", 40960),
                new GpuDevice(1, "gpu01", "GPU-7a6b5c4d-3e2f-4101-9f8e-7d6c5b4a3928", "NVIDIA A100 80GB PCIe", 81920));
        assertThat(NvidiaSmiParser.parseInventory(List.of("3, GPU-x, Tesla V100-SXM2-16GB, Rev, A, 16160", ""), "gpu01"))
                .containsExactly(new GpuDevice(3, "gpu01", "GPU-x", "Tesla V100-SXM2-16GB, Rev, A", 16160));
        assertThatThrownBy(() -> NvidiaSmiParser.parseInventory(List.of("0, GPU-x, Name, [N/A]"), "gpu01")).hasMessageContaining("no memory size");
        assertThatThrownBy(() -> NvidiaSmiParser.parseInventory(List.of("garbage"), "gpu01")).hasMessageContaining("expected 4");
    }

    @Test
    void computeAppLinesGiveGpuPidNameAndMemoryAndMalformedOnesNameTheirLineAndField() {
        List<ComputeApp> apps = NvidiaSmiParser.parseComputeApps(List.of(
                "GPU-5b2e8f1a-3c4d-4e6f-8a9b-0c1d2e3f4a5b, 4242, /usr/bin/python3, 10240",
                "",
                "GPU-9e7d6c5b-4a39-4281-b7c6-d5e4f3a2b1c0, 77, /opt/app/run, with, commas, [N/A]"));
        assertThat(apps).containsExactly(new ComputeApp("GPU-5b2e8f1a-3c4d-4e6f-8a9b-0c1d2e3f4a5b", 4242, "/usr/bin/python3", 10240),
                new ComputeApp("GPU-9e7d6c5b-4a39-4281-b7c6-d5e4f3a2b1c0", 77, "/opt/app/run, with, commas", -1));
        assertThat(apps.get(0).describe()).isEqualTo("pid 4242 (python3, 10240 MiB)");
        assertThat(apps.get(1).describe()).isEqualTo("pid 77 (run, with, commas)");
        assertThat(NvidiaSmiParser.parseComputeApps(List.of())).isEmpty();
        assertThatThrownBy(() -> NvidiaSmiParser.parseComputeApps(List.of("GPU-x, 1, a, 2", "GPU-x, 12")))
                .hasMessage("nvidia-smi --query-compute-apps line 2: 2 fields, expected gpu_uuid, pid, process_name, used_memory: 'GPU-x, 12'");
        assertThatThrownBy(() -> NvidiaSmiParser.parseComputeApps(List.of("GPU-x, abc, python, 12")))
                .hasMessage("nvidia-smi --query-compute-apps line 1: pid 'abc' is not a number");
        assertThatThrownBy(() -> NvidiaSmiParser.parseComputeApps(List.of("GPU-x, 5, python, lots")))
                .hasMessage("nvidia-smi --query-compute-apps line 1: used_memory 'lots' is not a number");
        assertThatThrownBy(() -> NvidiaSmiParser.parseComputeApps(List.of(" , 5, python, 1")))
                .hasMessage("nvidia-smi --query-compute-apps line 1: empty gpu_uuid: ', 5, python, 1'");
    }

    @Test
    void sampleLinesToleratesNotAvailableValues() throws IOException {
        List<String> lines = resource("samples-a100-mixed.csv");
        GpuSample busy = NvidiaSmiParser.parseSample(lines.get(0), 5).orElseThrow();
        assertThat(busy).isEqualTo(GpuSample.fromSmi(0, 5, 87, 45, 38912));
        GpuSample na = NvidiaSmiParser.parseSample(lines.get(1), 5).orElseThrow();
        assertThat(na.utilGpu()).isNaN();
        assertThat(na.memoryUsedMiB()).isZero();
        assertThat(NvidiaSmiParser.parseSample("0, [Not Supported], 3, 100", 1).orElseThrow().utilGpu()).isNaN();
        assertThat(NvidiaSmiParser.parseSample("Failed to initialize NVML: Driver/library version mismatch", 1)).isEmpty();
        assertThat(NvidiaSmiParser.parseSample("", 1)).isEmpty();
    }

    @Test
    void dmonRowsAreMatchedToTheHeadersFields() throws IOException {
        DcgmDmonParser p = new DcgmDmonParser();
        List<GpuSample> out = resource("dmon-h100x2.txt").stream().flatMap(l -> p.parse(l, 7).stream()).toList();
        assertThat(out).containsExactly(GpuSample.fromDcgm(1, 7, 0, 0, 0), GpuSample.fromDcgm(0, 7, 0.312, 0.145, 0.098));

        DcgmDmonParser reordered = new DcgmDmonParser();
        reordered.parse("# Entity  DRAMA  SMACT  SMOCC", 1);
        GpuSample s = reordered.parse("    GPU 2  0.500  N/A    0.250", 1).orElseThrow();
        assertThat(s.dramActive()).isEqualTo(0.5);
        assertThat(s.smActive()).isNaN();
        assertThat(s.smOccupancy()).isEqualTo(0.25);
        assertThat(reordered.parse("GPU-I 0   0.1 0.1 0.1", 1)).isEmpty();
        assertThat(reordered.parse("ID", 1)).isEmpty();
        assertThat(reordered.parse("Error: unable to establish a connection to the specified host: localhost", 1)).isEmpty();
    }
}
