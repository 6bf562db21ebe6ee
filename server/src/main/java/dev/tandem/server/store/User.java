package dev.tandem.server.store;

/** An API user; its token is known only by its hash. */
public record User(String name, Role role) {
    public boolean admin() { return role == Role.ADMIN; }
}
