package dev.tandem.cli;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

/** Writes a command's output file, creating its folder, and says so on stdout. */
final class OutputFiles {
    private OutputFiles() {}

    /** Writes what {@code body} writes, streamed (for outputs too large to build as one string). */
    interface Body {
        void writeTo(java.io.Writer w) throws IOException;
    }

    static void write(Path p, Body body) throws IOException {
        Path parent = p.toAbsolutePath().getParent();
        if (parent != null) Files.createDirectories(parent);
        try (java.io.Writer w = Files.newBufferedWriter(p, StandardCharsets.UTF_8)) {
            body.writeTo(w);
        }
        System.out.println("wrote " + p);
    }

    static void write(Path p, String content) throws IOException {
        write(p, w -> w.write(content));
    }
}
