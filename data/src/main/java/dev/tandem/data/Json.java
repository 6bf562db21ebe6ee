package dev.tandem.data;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

import java.io.IOException;
import java.io.Reader;
import java.io.UncheckedIOException;

/** Reads a JSON document, turning syntax errors into {@link DataFormatException}s with the line. */
final class Json {
    private static final ObjectMapper MAPPER = new ObjectMapper();

    private Json() {}

    static JsonNode read(DataSource src) {
        try (Reader r = src.open()) {
            return MAPPER.readTree(r);
        } catch (JsonProcessingException e) {
            long line = e.getLocation() == null ? 0 : e.getLocation().getLineNr();
            throw new DataFormatException(src.name(), line, null, "malformed JSON: " + e.getOriginalMessage());
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read " + src + ": " + e.getMessage(), e);
        }
    }
}
