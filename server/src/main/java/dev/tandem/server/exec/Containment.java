package dev.tandem.server.exec;

/**
 * How the local executor holds a run's processes together: a cgroup v2 per run where this daemon can make one
 * (nothing of the run escapes it, and limits can be set), else a Unix session per run plus the run's marker
 * variable ({@link Leftovers}). AUTO takes cgroups where they work and says at start-up which it uses.
 */
public enum Containment {
    AUTO, CGROUP, SESSION;

    public static Containment parse(String s) {
        return switch (s) {
            case "auto" -> AUTO;
            case "cgroup", "cgroups" -> CGROUP;
            case "session", "sessions" -> SESSION;
            default -> throw new IllegalArgumentException("--containment: expected auto, cgroup or session, got '" + s + "'");
        };
    }
}
