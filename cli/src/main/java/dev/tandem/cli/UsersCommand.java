package dev.tandem.cli;

import com.fasterxml.jackson.databind.JsonNode;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Parameters;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.Callable;

/** {@code tandem users ...}: the daemon's API users (an admin's commands, except a user's own token and trail). */
@Command(name = "users", mixinStandardHelpOptions = true, footer = {"", "Example: tandem users add alice --unix-user alice"}, description = "Manage tandem serve's users (admin); every change is kept with who made it.",
        subcommands = {UsersCommand.ListUsers.class, UsersCommand.Add.class, UsersCommand.Show.class, UsersCommand.Disable.class,
                UsersCommand.Enable.class, UsersCommand.RotateToken.class, UsersCommand.Limit.class})
final class UsersCommand {

    @Command(name = "list", mixinStandardHelpOptions = true, footer = {"", "Example: tandem users list"}, description = "List users: role, Unix account, whether disabled.")
    static final class ListUsers implements Callable<Integer> {
        @Mixin ClientOptions client;

        @Override public Integer call() throws Exception {
            JsonNode res = client.client().get("/users");
            if (client.json) {
                client.print(res);
                return 0;
            }
            Table t = new Table("USER", "ROLE", "UNIX ACCOUNT", "STATE", "MAX GPUS", "CREATED");
            for (JsonNode u : res.get("users")) {
                t.add(u.get("name").asText(), u.get("role").asText(), u.get("unix_user").asText(),
                        u.get("disabled").asBoolean() ? "disabled" : "enabled", u.get("max_gpus").isNull() ? "default" : u.get("max_gpus").asText(),
                        u.get("created_at").asText());
            }
            System.out.print(t.render());
            return 0;
        }
    }

    @Command(name = "add", mixinStandardHelpOptions = true, footer = {"", "Example: tandem users add alice --unix-user alice"}, description = {"Create a user and print its token (shown only once).",
            "Its jobs run as --unix-user (default: the account named like the user) when the daemon runs as root.",
            "An account of uid 0 (root) needs --allow-root: whoever holds the token then has root's rights."})
    static final class Add implements Callable<Integer> {
        @Mixin ClientOptions client;
        @Parameters(paramLabel = "NAME", description = "lower-case letters, digits, '_' and '-'") String name;
        @Option(names = "--role", defaultValue = "user", description = "user or admin (default: ${DEFAULT-VALUE})") String role;
        @Option(names = "--unix-user", paramLabel = "ACCOUNT", description = "the Unix account whose rights its jobs get") String unixUser;
        @Option(names = "--allow-root", description = "allow --unix-user to be an account of uid 0 (refused otherwise)") boolean allowRoot;
        @Spec CommandSpec spec;

        @Override public Integer call() throws Exception {
            Map<String, Object> body = new LinkedHashMap<>();
            body.put("name", name);
            body.put("role", role);
            if (unixUser != null) body.put("unix_user", unixUser);
            if (allowRoot) body.put("allow_root", true);
            JsonNode res;
            try {
                res = client.client().post("/users", body);
            } catch (ApiClient.ServerError e) {
                throw e.inTermsOf(Map.of("name", "NAME", "role", "--role", "unix_user", "--unix-user", "allow_root", "--allow-root"));
            }
            if (client.json) {
                client.print(res);
                return 0;
            }
            System.out.println("Created user " + name + " (" + res.get("role").asText() + ", Unix account " + res.get("unix_user").asText()
                    + "); its token, shown only now:\n" + res.get("token").asText());
            if (res.hasNonNull("warning")) spec.commandLine().getErr().println("Warning: " + res.get("warning").asText());
            return 0;
        }
    }

    @Command(name = "show", mixinStandardHelpOptions = true, footer = {"", "Example: tandem users show alice"}, description = "A user and its audit trail: who created, disabled, enabled it or rotated its token, when.")
    static final class Show implements Callable<Integer> {
        @Mixin ClientOptions client;
        @Parameters(paramLabel = "NAME") String name;

        @Override public Integer call() throws Exception {
            JsonNode u = client.client().get("/users/" + name);
            if (client.json) {
                client.print(u);
                return 0;
            }
            System.out.println(u.get("name").asText() + ": " + u.get("role").asText() + ", Unix account " + u.get("unix_user").asText()
                    + (u.get("disabled").asBoolean() ? ", disabled" : ""));
            Table t = new Table("WHEN", "BY", "WHAT", "DETAIL");
            for (JsonNode e : u.get("events")) t.add(e.get("at").asText(), e.get("actor").asText(), e.get("action").asText(), e.get("detail").asText());
            System.out.print(t.render());
            return 0;
        }
    }

    @Command(name = "disable", mixinStandardHelpOptions = true, footer = {"", "Example: tandem users disable alice"}, description = "Refuse a user's token from now on (its jobs are left as they are).")
    static final class Disable implements Callable<Integer> {
        @Mixin ClientOptions client;
        @Parameters(paramLabel = "NAME") String name;

        @Override public Integer call() throws Exception {
            JsonNode res = client.client().post("/users/" + name + "/disable", Map.of());
            if (client.json) client.print(res);
            else System.out.println("Disabled user " + name);
            return 0;
        }
    }

    @Command(name = "enable", mixinStandardHelpOptions = true, footer = {"", "Example: tandem users enable alice"}, description = "Accept a disabled user's token again.")
    static final class Enable implements Callable<Integer> {
        @Mixin ClientOptions client;
        @Parameters(paramLabel = "NAME") String name;

        @Override public Integer call() throws Exception {
            JsonNode res = client.client().post("/users/" + name + "/enable", Map.of());
            if (client.json) client.print(res);
            else System.out.println("Enabled user " + name);
            return 0;
        }
    }

    @Command(name = "limit", mixinStandardHelpOptions = true, description = {"Set how many GPUs a user's jobs may hold at once (jobs beyond wait, saying why).",
            "Example: tandem users limit alice --max-gpus 4; --max-gpus default goes back to serve's --max-gpus-per-user"})
    static final class Limit implements Callable<Integer> {
        @Mixin ClientOptions client;
        @Parameters(paramLabel = "NAME") String name;
        @Option(names = "--max-gpus", required = true, paramLabel = "N|default", description = "a number of GPUs, or default") String maxGpus;

        @Override public Integer call() throws Exception {
            Map<String, Object> body = new java.util.HashMap<>();
            if (maxGpus.equals("default")) body.put("max_gpus", null);
            else {
                int n;
                try {
                    n = Integer.parseInt(maxGpus);
                } catch (NumberFormatException e) {
                    n = 0;
                }
                if (n < 1) throw new IllegalArgumentException("--max-gpus: a number of GPUs (at least 1) or 'default', got '" + maxGpus + "'");
                body.put("max_gpus", n);
            }
            JsonNode res = client.client().post("/users/" + name + "/limits", body);
            if (client.json) client.print(res);
            else System.out.println("GPU limit of " + name + ": " + (res.get("max_gpus").isNull() ? "the daemon's default" : res.get("max_gpus").asText()));
            return 0;
        }
    }

    @Command(name = "rotate-token", mixinStandardHelpOptions = true, footer = {"", "Example: tandem users rotate-token alice"}, description = "Give a user a new token (printed once); the old one stops working at once.")
    static final class RotateToken implements Callable<Integer> {
        @Mixin ClientOptions client;
        @Parameters(paramLabel = "NAME") String name;

        @Override public Integer call() throws Exception {
            JsonNode res = client.client().post("/users/" + name + "/rotate-token", Map.of());
            if (client.json) client.print(res);
            else System.out.println("New token of " + name + ", shown only now:\n" + res.get("token").asText());
            return 0;
        }
    }
}
