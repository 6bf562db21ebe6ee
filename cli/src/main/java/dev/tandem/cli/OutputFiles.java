package dev.tandem.cli;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

/** Writes a command's output file, creating its folder, and says so on stdout. */
final class OutputFiles {
    private OutputFiles() {}

    static void write(Path p, String content) throws IOException {
        Path parent = p.toAbsolutePath().getParent();
        if (parent != null) Files.createDirectories(parent);
        Files.writeString(p, content, StandardCharsets.UTF_8);
        System.out.println("wrote " + p);
    }
}
