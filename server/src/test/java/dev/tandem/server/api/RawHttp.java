package dev.tandem.server.api;

import java.io.ByteArrayOutputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.Locale;

/** Reads one HTTP/1.1 response with a Content-Length body off a raw socket, for tests of connection handling. */
final class RawHttp {
    private RawHttp() {}

    /** The status line, headers and body as text; EOFException if the server closed the connection first. */
    static String readResponse(InputStream in) throws IOException {
        StringBuilder head = new StringBuilder();
        long length = 0;
        for (String line = readLine(in); !line.isEmpty(); line = readLine(in)) {
            head.append(line).append('\n');
            String lower = line.toLowerCase(Locale.ROOT);
            if (lower.startsWith("content-length:")) length = Long.parseLong(lower.substring(15).strip());
        }
        byte[] body = in.readNBytes((int) length);
        if (body.length < length) throw new EOFException("connection closed inside the body");
        return head + "\n" + new String(body, StandardCharsets.UTF_8);
    }

    private static String readLine(InputStream in) throws IOException {
        ByteArrayOutputStream line = new ByteArrayOutputStream();
        for (int b = in.read(); b != '\n'; b = in.read()) {
            if (b < 0) throw new EOFException("connection closed by the server");
            if (b != '\r') line.write(b);
        }
        return line.toString(StandardCharsets.US_ASCII);
    }
}
