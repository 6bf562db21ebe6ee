package dev.tandem.server.store;

/**
 * An API user; its token is known only by its hash. {@code unixUser} is the Unix account its jobs run as (null: the
 * daemon's own, for users created before accounts were recorded); a disabled user's token is refused. {@code maxGpus}:
 * how many GPUs its jobs may hold at once, null for the daemon's default.
 */
public record User(String name, Role role, String unixUser, boolean disabled, long createdAt, Integer maxGpus) {
    public boolean admin() { return role == Role.ADMIN; }

    /** A change to a user, in the audit trail: what, by whom, when. */
    public record Event(long at, String actor, String action, String detail) {}
}
