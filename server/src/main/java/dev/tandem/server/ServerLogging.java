package dev.tandem.server;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.LoggerContext;
import ch.qos.logback.classic.encoder.JsonEncoder;
import ch.qos.logback.classic.encoder.PatternLayoutEncoder;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.ConsoleAppender;
import ch.qos.logback.core.encoder.Encoder;
import org.slf4j.LoggerFactory;

import java.util.Locale;

/**
 * Logging of the daemon. The CLI's logback configuration (WARN, time of day only) suits its short-lived commands;
 * the daemon says what it does at INFO (jobs started, paired, ended), each line with its date and time zone, on
 * stderr, as text or, for log collectors, one JSON object per line (logback's JsonEncoder). Without any
 * configuration logback logs everything at DEBUG (Jetty is very talkative then), so that default is lowered to WARN.
 */
public final class ServerLogging {
    static final String TEXT_PATTERN = "%d{yyyy-MM-dd'T'HH:mm:ss.SSSXXX} %-5level %logger{20} - %msg%n";

    public enum Format {
        TEXT, JSON;

        public static Format parse(String s) {
            return switch (s == null ? "" : s.toLowerCase(Locale.ROOT)) {
                case "text" -> TEXT;
                case "json" -> JSON;
                default -> throw new IllegalArgumentException("--log-format must be text or json, got '" + s + "'");
            };
        }
    }

    private ServerLogging() {}

    /** Levels only (benchmarks): the configured appenders stay. */
    public static void configure(Level serverLevel) {
        if (!(LoggerFactory.getILoggerFactory() instanceof LoggerContext lc)) return;
        Logger root = lc.getLogger(org.slf4j.Logger.ROOT_LOGGER_NAME);
        if (root.getLevel() == null || root.getLevel().toInt() <= Level.DEBUG_INT) root.setLevel(Level.WARN);
        Logger server = lc.getLogger("dev.tandem.server");
        if (server.getLevel() == null) server.setLevel(serverLevel);
    }

    /** The daemon's logging: levels as {@link #configure(Level)}, and every line to stderr in {@code format}. */
    public static void configure(Level serverLevel, Format format) {
        configure(serverLevel);
        if (!(LoggerFactory.getILoggerFactory() instanceof LoggerContext lc)) return;
        Encoder<ILoggingEvent> encoder;
        if (format == Format.JSON) {
            JsonEncoder json = new JsonEncoder();
            json.setWithSequenceNumber(false);
            json.setWithNanoseconds(false);
            json.setWithContext(false);
            // the message as a reader sees it ("formattedMessage"), not the pattern and its arguments apart
            json.setWithFormattedMessage(true);
            json.setWithMessage(false);
            json.setWithArguments(false);
            encoder = json;
        } else {
            PatternLayoutEncoder text = new PatternLayoutEncoder();
            text.setPattern(TEXT_PATTERN);
            encoder = text;
        }
        encoder.setContext(lc);
        encoder.start();
        ConsoleAppender<ILoggingEvent> stderr = new ConsoleAppender<>();
        stderr.setContext(lc);
        stderr.setName("daemon-stderr");
        stderr.setTarget("System.err");
        stderr.setEncoder(encoder);
        stderr.start();
        Logger root = lc.getLogger(org.slf4j.Logger.ROOT_LOGGER_NAME);
        root.detachAndStopAllAppenders();
        root.addAppender(stderr);
    }
}
