package dev.tandem.server;

import java.io.IOException;
import java.net.URI;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * The PostgreSQL store's password, from a file or the environment rather than the command line (which any user
 * of the machine can read in ps). It is put into the store URL in memory only; logs show the URL without it.
 */
final class StorePassword {
    static final String ENV = "TANDEM_STORE_PASSWORD";

    private StorePassword() {}

    /**
     * {@code store} with the password of {@code file} (its first line) or else {@code fromEnv}; unchanged when
     * neither is given.
     */
    static String apply(String store, Path file, String fromEnv) {
        String password;
        String source;
        if (file != null) {
            password = read(file);
            source = "--store-password-file " + file;
        } else if (fromEnv != null && !fromEnv.isEmpty()) {
            password = fromEnv;
            source = "$" + ENV;
        } else {
            return store;
        }
        if (store == null || !(store.startsWith("postgresql://") || store.startsWith("postgres://"))) {
            if (file == null) return store; // a variable set for another daemon's store does not concern SQLite
            throw new IllegalArgumentException(source + " is for a postgresql:// --store");
        }
        URI u;
        try {
            u = URI.create(store);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("--store: not a valid URL: " + e.getMessage());
        }
        String info = u.getRawUserInfo();
        if (info == null || info.isEmpty()) throw new IllegalArgumentException("--store: name the user, e.g. postgresql://tandem@host:5432/tandem, to use " + source);
        if (inUrl(store)) throw new IllegalArgumentException("--store holds a password and " + source + " gives one too; keep only " + source);
        String encoded = URLEncoder.encode(password, StandardCharsets.UTF_8).replace("+", "%20");
        int at = store.indexOf('@');
        return store.substring(0, at) + ":" + encoded + store.substring(at);
    }

    /** Whether a PostgreSQL store URL carries a password itself (user:password@host). */
    static boolean inUrl(String store) {
        if (store == null || !(store.startsWith("postgresql://") || store.startsWith("postgres://"))) return false;
        try {
            String info = URI.create(store).getRawUserInfo();
            return info != null && info.contains(":");
        } catch (IllegalArgumentException e) {
            return false; // not a URL: the store's own check says so
        }
    }

    private static String read(Path file) {
        try {
            String text = Files.readString(file, StandardCharsets.UTF_8);
            String first = text.lines().findFirst().orElse("");
            if (first.isEmpty()) throw new IllegalArgumentException("--store-password-file " + file + ": the first line is empty");
            return first;
        } catch (java.nio.file.NoSuchFileException e) {
            throw new IllegalArgumentException("--store-password-file " + file + ": no such file");
        } catch (java.nio.file.AccessDeniedException e) {
            throw new IllegalArgumentException("--store-password-file " + file + ": permission denied");
        } catch (IOException e) {
            throw new IllegalArgumentException("--store-password-file " + file + ": cannot read it (" + e.getMessage() + ")");
        }
    }
}
