package dev.tandem.server.api;

import dev.tandem.server.store.Store;
import dev.tandem.server.store.User;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Resolves {@code Authorization: Bearer TOKEN} to a user by the token's SHA-256. Known tokens are cached (users
 * and tokens are never changed or deleted); the token itself is never logged or kept.
 */
public final class Auth {
    private final Store store;
    private final Map<String, User> byHash = new ConcurrentHashMap<>();

    public Auth(Store store) {
        this.store = store;
    }

    public User authenticate(String header) {
        if (header == null || !header.regionMatches(true, 0, "Bearer ", 0, 7) || header.length() <= 7) {
            throw new ApiError(401, "Authorization", "missing bearer token: send the header 'Authorization: Bearer TOKEN'");
        }
        String hash = Tokens.hash(header.substring(7).strip());
        User u = byHash.get(hash);
        if (u != null) return u;
        u = store.userByTokenHash(hash).orElseThrow(() -> new ApiError(401, "Authorization", "invalid token"));
        if (u.disabled()) throw new ApiError(401, "Authorization", "user " + u.name() + " is disabled");
        byHash.put(hash, u);
        return u;
    }

    /** Drops what is remembered of a user whose token or state changed, so its next request is checked anew. */
    public void forget(String name) {
        byHash.values().removeIf(u -> u.name().equals(name));
    }
}
