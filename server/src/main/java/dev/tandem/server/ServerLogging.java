package dev.tandem.server;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.LoggerContext;
import org.slf4j.LoggerFactory;

/**
 * Log levels for the daemon. The CLI's logback configuration (WARN) suits its short-lived commands; the daemon
 * says what it does at INFO. Without any configuration logback logs everything at DEBUG (Jetty is very
 * talkative then), so that default is lowered to WARN.
 */
public final class ServerLogging {
    private ServerLogging() {}

    public static void configure(Level serverLevel) {
        if (!(LoggerFactory.getILoggerFactory() instanceof LoggerContext lc)) return;
        Logger root = lc.getLogger(org.slf4j.Logger.ROOT_LOGGER_NAME);
        if (root.getLevel() == null || root.getLevel().toInt() <= Level.DEBUG_INT) root.setLevel(Level.WARN);
        Logger server = lc.getLogger("dev.tandem.server");
        if (server.getLevel() == null) server.setLevel(serverLevel);
    }
}
