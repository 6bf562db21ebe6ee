package dev.tandem.server;

import com.fasterxml.jackson.core.JsonLocation;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import picocli.CommandLine;
import picocli.CommandLine.Model.ArgSpec;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Model.OptionSpec;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeSet;
import java.util.function.Function;

/**
 * Where {@code tandem serve} takes an option that is not on its command line: an environment variable
 * ({@code TANDEM_} and the option's name in capitals, {@code --max-gpus-per-user} as {@code TANDEM_MAX_GPUS_PER_USER}),
 * else the config file ({@code --config FILE} or {@code $TANDEM_CONFIG}: YAML, one {@code name: value} per option,
 * names as on the command line without the dashes), else the option's default. A picocli default-value provider,
 * so every serve option can be set in all three places and {@code --help} stays the one list of them.
 *
 * <p>The file is read once, in full, when the first option is looked up: a key that is no serve option, or a value
 * that is a mapping, is refused naming the file, line and key; a value the option cannot take (a port of {@code nine})
 * is refused by picocli, and {@link #namingSources} adds where it came from.
 */
public final class ServeSettings implements CommandLine.IDefaultValueProvider {
    public static final String CONFIG_OPTION = "--config";
    public static final String CONFIG_ENV = "TANDEM_CONFIG";

    private final Function<String, String> env;
    /** The config file's settings by option name, read on first use. */
    private Map<String, Setting> file;
    /**
     * The settings this provider gave picocli, by option name: an option typed on the command line is not asked for, so
     * its refusal is not this provider's even where the environment or the file holds the same value.
     */
    private final Map<String, Setting> supplied = new LinkedHashMap<>();

    /** A value for an option from the environment or the config file, and where it came from ({@code $TANDEM_PORT}, {@code FILE line 3}). */
    private record Setting(String value, String source) {}

    public ServeSettings() { this(System::getenv); }

    ServeSettings(Function<String, String> env) { this.env = env; }

    /** The environment variable that sets an option. */
    public static String envName(OptionSpec o) {
        return "TANDEM_" + key(o).toUpperCase(Locale.ROOT).replace('-', '_');
    }

    private static String key(OptionSpec o) { return o.longestName().replaceFirst("^--", ""); }

    private static boolean configurable(OptionSpec o) {
        return !o.usageHelp() && !o.versionHelp() && !o.longestName().equals(CONFIG_OPTION);
    }

    @Override public String defaultValue(ArgSpec arg) {
        if (!(arg instanceof OptionSpec o) || !configurable(o)) return arg.defaultValue();
        Setting setting;
        try {
            setting = settingOf(o);
        } catch (BadConfig e) {
            throw new CommandLine.ParameterException(o.command().commandLine(), e.getMessage());
        }
        if (setting == null) return o.defaultValue();
        supplied.put(key(o), setting);
        return setting.value();
    }

    /** The option's value from the environment, else from the config file; null where neither sets it. */
    private Setting settingOf(OptionSpec o) {
        String fromEnv = env.apply(envName(o));
        if (fromEnv != null && !fromEnv.isEmpty()) return new Setting(fromEnv, "$" + envName(o));
        return fileSettings(o.command()).get(key(o));
    }

    /**
     * Reports a value picocli cannot convert as {@code next} does, naming where the value came from when this provider
     * supplied it ({@code Invalid value for option '--port': 'nine' is not an int (from /etc/tandem.yaml line 3)}):
     * a bad setting in a file or the environment is otherwise reported as if it had been typed.
     */
    public static CommandLine.IParameterExceptionHandler namingSources(CommandLine.IParameterExceptionHandler next) {
        return (ex, args) -> {
            String source = sourceOf(ex);
            if (source == null) return next.handleParseException(ex, args);
            return next.handleParseException(new CommandLine.ParameterException(ex.getCommandLine(), ex.getMessage() + " (from " + source + ")", ex,
                    ex.getArgSpec(), ex.getValue()), args);
        };
    }

    private static String sourceOf(CommandLine.ParameterException ex) {
        if (!(ex.getArgSpec() instanceof OptionSpec o) || !(o.command().defaultValueProvider() instanceof ServeSettings settings)) return null;
        Setting s = settings.supplied.get(key(o));
        return s != null && s.value().equals(ex.getValue()) ? s.source() : null;
    }

    private Map<String, Setting> fileSettings(CommandSpec cmd) {
        if (file != null) return file;
        OptionSpec configOption = cmd.findOption(CONFIG_OPTION);
        Path path = configOption == null ? null : configOption.getValue();
        if (path == null && env.apply(CONFIG_ENV) != null && !env.apply(CONFIG_ENV).isBlank()) path = Path.of(env.apply(CONFIG_ENV));
        Map<String, OptionSpec> known = new LinkedHashMap<>();
        for (OptionSpec o : cmd.options()) if (configurable(o)) known.put(key(o), o);
        file = path == null ? Map.of() : read(path, known.keySet());
        return file;
    }

    /** A config file that cannot be used; the message names file, line and key. */
    static final class BadConfig extends RuntimeException {
        BadConfig(String message) { super(message); }
    }

    /** Reads a config file: a YAML mapping of option names to scalars (or lists, for options that take several values). */
    static Map<String, Setting> read(Path path, java.util.Set<String> known) {
        String text;
        try {
            text = Files.readString(path);
        } catch (NoSuchFileException e) {
            throw new BadConfig(path + ": no such config file");
        } catch (IOException e) {
            throw new BadConfig(path + ": cannot read the config file: " + e.getMessage());
        }
        Map<String, Setting> out = new LinkedHashMap<>();
        try (JsonParser p = new YAMLFactory().createParser(text)) {
            JsonToken t = p.nextToken();
            if (t == null) return out; // an empty file sets nothing
            if (t != JsonToken.START_OBJECT) throw error(path, p.currentTokenLocation(), "the file must be a mapping of serve options, e.g. port: 8265");
            while ((t = p.nextToken()) == JsonToken.FIELD_NAME) {
                String name = p.currentName();
                JsonLocation at = p.currentTokenLocation();
                if (!known.contains(name)) {
                    throw error(path, at, "unknown setting '" + name + "'; settings are serve's options without the dashes: " + String.join(", ", new TreeSet<>(known)));
                }
                if (out.containsKey(name)) throw error(path, at, "'" + name + "' is set twice");
                String source = path + " line " + at.getLineNr();
                JsonToken v = p.nextToken();
                if (v == JsonToken.START_ARRAY) {
                    List<String> items = new ArrayList<>();
                    while ((v = p.nextToken()) != JsonToken.END_ARRAY) {
                        if (!v.isScalarValue()) throw error(path, p.currentTokenLocation(), "'" + name + "': list items must be plain values");
                        items.add(p.getText());
                    }
                    out.put(name, new Setting(String.join(",", items), source));
                } else if (v.isScalarValue() && v != JsonToken.VALUE_NULL) {
                    out.put(name, new Setting(p.getText(), source));
                } else {
                    throw error(path, at, "'" + name + "' needs a plain value (a number, a word, true/false, or a list)");
                }
            }
        } catch (com.fasterxml.jackson.core.JsonProcessingException e) {
            if (e.getCause() instanceof org.yaml.snakeyaml.error.MarkedYAMLException m && m.getProblemMark() != null) {
                throw new BadConfig(path + " line " + (m.getProblemMark().getLine() + 1) + ": not valid YAML: "
                        + (m.getContext() == null ? "" : m.getContext() + ": ") + m.getProblem());
            }
            JsonLocation at = e.getLocation();
            throw new BadConfig(path + (at == null ? "" : " line " + at.getLineNr()) + ": not valid YAML: " + e.getOriginalMessage().lines().findFirst().orElse(""));
        } catch (IOException e) {
            throw new BadConfig(path + ": cannot read the config file: " + e.getMessage());
        }
        return out;
    }

    private static BadConfig error(Path path, JsonLocation at, String problem) {
        return new BadConfig(path + " line " + at.getLineNr() + ": " + problem);
    }
}
