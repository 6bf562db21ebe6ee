package dev.tandem.cli;

import dev.tandem.core.model.Cluster;
import dev.tandem.data.ClusterFileReader;
import dev.tandem.data.DataSource;
import picocli.CommandLine;

/** A cluster from a spec such as {@code 4x8:RTX3090-24GB} or from a YAML file. */
final class ClusterConverter implements CommandLine.ITypeConverter<Cluster> {
    @Override public Cluster convert(String value) {
        if (value.endsWith(".yaml") || value.endsWith(".yml")) return ClusterFileReader.read(DataSource.of(value));
        try {
            return Cluster.parse(value);
        } catch (IllegalArgumentException e) {
            throw new CommandLine.TypeConversionException(e.getMessage());
        }
    }
}
