package dev.tandem.server.api;

import dev.tandem.server.store.Store;
import dev.tandem.server.store.User;

import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Function;
import java.util.function.Supplier;

/**
 * Resolves a caller to a user: over TCP by {@code Authorization: Bearer TOKEN}, through the token's SHA-256 (known
 * tokens are cached until their user changes; the token itself is never logged or kept); over the daemon's Unix
 * socket by the Unix account the kernel reports for the peer (SO_PEERCRED), which is the one API user mapped to
 * that account.
 */
public final class Auth {
    private final Function<String, Optional<User>> byTokenHash;
    private final Supplier<List<User>> users;
    private final Map<String, User> byHash = new ConcurrentHashMap<>();
    /**
     * Counts {@link #forget}s. A request that read its user from the store caches it only if none came meanwhile:
     * otherwise a request with a token being rotated away (or of a user being disabled), which read the store just before
     * the change and cached the answer just after the change's {@code forget}, would keep the old token working until
     * the user next changed.
     */
    private long forgets;

    public Auth(Store store) {
        this(store::userByTokenHash, store::users);
    }

    /** @param byTokenHash the user a token's hash belongs to, as stored now; @param users every user, as stored now */
    Auth(Function<String, Optional<User>> byTokenHash, Supplier<List<User>> users) {
        this.byTokenHash = byTokenHash;
        this.users = users;
    }

    public User authenticate(String header) {
        if (header == null || !header.regionMatches(true, 0, "Bearer ", 0, 7) || header.length() <= 7) {
            throw new ApiError(401, "Authorization", "missing bearer token: send the header 'Authorization: Bearer TOKEN'");
        }
        String hash = Tokens.hash(header.substring(7).strip());
        User u = byHash.get(hash);
        if (u != null) return u;
        long seen;
        synchronized (this) {
            seen = forgets;
        }
        u = byTokenHash.apply(hash).orElseThrow(() -> new ApiError(401, "Authorization", "invalid token"));
        // no field: the token is right, another would not help (a client names what to fix by the field)
        if (u.disabled()) throw new ApiError(401, null, "user " + u.name() + " is disabled; an admin can enable it again (tandem users enable " + u.name() + ")");
        synchronized (this) {
            if (forgets == seen) byHash.put(hash, u);
        }
        return u;
    }

    /**
     * The user a local client is, from the Unix account on the other end of the socket: the one enabled API user whose
     * jobs run as that account (users from before accounts were recorded run as the daemon's own).
     *
     * @param account   the peer's account name (its uid where the name service has no name for it)
     * @param daemonOwn whether the peer runs as the daemon's own account
     */
    public User authenticatePeer(String account, boolean daemonOwn) {
        List<User> mapped = users.get().stream()
                .filter(u -> account.equals(u.unixUser()) || (u.unixUser() == null && daemonOwn)).toList();
        List<User> enabled = mapped.stream().filter(u -> !u.disabled()).toList();
        if (enabled.size() == 1) return enabled.getFirst();
        if (enabled.isEmpty() && !mapped.isEmpty()) {
            throw new ApiError(401, null, "user " + mapped.getFirst().name() + " (Unix account " + account + ") is disabled");
        }
        if (enabled.isEmpty()) {
            throw new ApiError(401, null, "no API user runs as Unix account " + account + "; an admin can add one: tandem users add NAME --unix-user " + account);
        }
        throw new ApiError(401, null, "API users " + String.join(", ", enabled.stream().map(User::name).toList()) + " all run as Unix account "
                + account + ", so the socket cannot tell which you are; give a token (--token-file or $TANDEM_TOKEN)");
    }

    /**
     * Drops what is remembered of a user whose token or state changed, so its next request is checked anew. Called after
     * the change is committed.
     */
    public synchronized void forget(String name) {
        forgets++;
        byHash.values().removeIf(u -> u.name().equals(name));
    }
}
