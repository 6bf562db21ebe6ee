package dev.tandem.server.exec;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import java.util.regex.Pattern;

/**
 * A Unix account as the name service knows it ({@code getent passwd NAME}, so LDAP or SSSD accounts count too):
 * whose rights a job runs with.
 */
public record UnixAccount(String name, long uid, long gid, String home, String shell) {
    /** The names useradd accepts (POSIX portable, as Debian's default NAME_REGEX). */
    private static final Pattern NAME = Pattern.compile("[a-z_][a-z0-9_-]{0,31}");

    public boolean root() { return uid == 0; }

    public static boolean validName(String name) { return name != null && NAME.matcher(name).matches(); }

    /** The account of {@code name}, or empty when there is none. */
    public static Optional<UnixAccount> lookup(String name) {
        if (!validName(name)) return Optional.empty();
        try {
            Process p = new ProcessBuilder("getent", "passwd", name).redirectErrorStream(true).start();
            String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8).strip();
            if (!p.waitFor(10, TimeUnit.SECONDS) || p.exitValue() != 0) return Optional.empty();
            return parse(out);
        } catch (IOException e) {
            throw new ExecException("cannot look up Unix account " + name + " (getent passwd): " + e.getMessage(), e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return Optional.empty();
        }
    }

    /** A passwd line, {@code name:password:uid:gid:gecos:home:shell}. */
    static Optional<UnixAccount> parse(String line) {
        String[] f = line.split(":", -1);
        if (f.length < 7) return Optional.empty();
        try {
            return Optional.of(new UnixAccount(f[0], Long.parseLong(f[2]), Long.parseLong(f[3]), f[5], f[6]));
        } catch (NumberFormatException e) {
            return Optional.empty();
        }
    }

    /**
     * Whether the jobs of a user mapped to {@code unixUser} run as the daemon's own account (null: users created before
     * accounts were recorded, and a daemon that is not root maps everyone to itself): those need no look-up and no switch.
     */
    public static boolean isDaemons(String unixUser) {
        return unixUser == null || unixUser.equals(System.getProperty("user.name"));
    }

    /**
     * The argv prefix that runs a command with this account's rights through util-linux's {@code setpriv}: its uid and gid,
     * its supplementary groups from the group database, and no capabilities left over from root.
     */
    public List<String> switchTo(Path setpriv) {
        return List.of(setpriv.toString(), "--reuid=" + uid, "--regid=" + gid, "--init-groups", "--inh-caps=-all", "--");
    }

    /**
     * Why this account could not enter {@code dir}, or empty where it can: asked with its rights ({@code test -d DIR -a -x
     * DIR} through setpriv, by a root daemon), so that a directory that does not exist and one the account may not enter
     * get the same answer, and a user learns nothing of directories only root can see.
     */
    public Optional<String> cannotEnter(Path dir) {
        Path setpriv = ToolPath.system("setpriv").orElse(null);
        if (setpriv == null) return Optional.of("cannot check, as " + name + ", whether it can enter " + dir + ": setpriv (util-linux) is not installed");
        List<String> cmd = new ArrayList<>(switchTo(setpriv));
        cmd.addAll(List.of("/usr/bin/test", "-d", dir.toString(), "-a", "-x", dir.toString()));
        ProcessBuilder pb = new ProcessBuilder(cmd).redirectErrorStream(true).redirectOutput(ProcessBuilder.Redirect.DISCARD);
        pb.environment().clear();
        pb.environment().put("PATH", "/usr/bin:/bin");
        try {
            Process p = pb.start();
            if (!p.waitFor(10, TimeUnit.SECONDS)) {
                p.destroyForcibly();
                return Optional.of("cannot check, as " + name + ", whether it can enter " + dir + " (no answer within 10 s)");
            }
            return p.exitValue() == 0 ? Optional.empty() : Optional.of("no directory that " + name + " can enter: " + dir);
        } catch (IOException e) {
            return Optional.of("cannot check, as " + name + ", whether it can enter " + dir + ": " + e.getMessage());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return Optional.of("interrupted while checking, as " + name + ", whether it can enter " + dir);
        }
    }

    /** The account this process runs as. */
    public static UnixAccount current() {
        String name = System.getProperty("user.name");
        return lookup(name).orElseThrow(() -> new ExecException("the daemon's own Unix account '" + name + "' is unknown to getent passwd"));
    }

    /**
     * The account a new API user's jobs run as. A daemon that is not root can run jobs only as itself; a root daemon
     * runs them as the named account, by default the one named like the user, and as root (any account of uid 0) only
     * when the admin says so with {@code allowRoot}: whoever holds the user's token then has every right on the machine.
     *
     * @param requested the account asked for, or null
     * @param allowRoot whether the admin allowed an account of uid 0
     * @return the account
     * @throws IllegalArgumentException with the reason, for the API to report on the field {@code unix_user}
     */
    public static UnixAccount resolve(String requested, String userName, boolean allowRoot, UnixAccount daemon, Function<String, Optional<UnixAccount>> lookup) {
        if (!daemon.root()) {
            if (requested == null || requested.equals(daemon.name())) return daemon;
            throw new IllegalArgumentException("tandem serve runs as " + daemon.name() + ", not as root, so every job runs as " + daemon.name()
                    + "; map users to " + daemon.name() + " or run the daemon as root");
        }
        String name = requested != null ? requested : userName;
        if (!validName(name)) throw new IllegalArgumentException("'" + name + "' is not a Unix account name");
        Optional<UnixAccount> account = lookup.apply(name);
        if (account.isEmpty()) {
            throw new IllegalArgumentException(requested != null ? "no Unix account '" + name + "' on this machine"
                    : "no Unix account named '" + name + "' on this machine; give unix_user (tandem users add --unix-user), the account whose rights its jobs get");
        }
        if (account.get().root() && !allowRoot) {
            throw new IllegalArgumentException("'" + name + "' is root (uid 0): the user's jobs would run with every right on this machine; "
                    + "map it to an unprivileged account, or give allow_root (tandem users add --allow-root) if that is meant");
        }
        return account.get();
    }
}
