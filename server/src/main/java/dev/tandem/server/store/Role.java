package dev.tandem.server.store;

import java.util.Locale;

/** An admin sees and cancels every job and creates users; a user only its own jobs. */
public enum Role {
    ADMIN, USER;

    public String dbName() { return name().toLowerCase(Locale.ROOT); }

    public static Role parse(String s) { return valueOf(s.toUpperCase(Locale.ROOT)); }
}
