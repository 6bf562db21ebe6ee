package dev.tandem.server.api;

import dev.tandem.server.store.Store;
import dev.tandem.server.store.User;

import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Resolves a caller to a user: over TCP by {@code Authorization: Bearer TOKEN}, through the token's SHA-256 (known
 * tokens are cached until their user changes; the token itself is never logged or kept); over the daemon's Unix
 * socket by the Unix account the kernel reports for the peer (SO_PEERCRED), which is the one API user mapped to
 * that account.
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
        // no field: the token is right, another would not help (a client names what to fix by the field)
        if (u.disabled()) throw new ApiError(401, null, "user " + u.name() + " is disabled; an admin can enable it again (tandem users enable " + u.name() + ")");
        byHash.put(hash, u);
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
        List<User> mapped = store.users().stream()
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

    /** Drops what is remembered of a user whose token or state changed, so its next request is checked anew. */
    public void forget(String name) {
        byHash.values().removeIf(u -> u.name().equals(name));
    }
}
