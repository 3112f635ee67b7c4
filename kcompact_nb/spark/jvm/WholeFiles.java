package kcompact.spark;

import java.io.FileNotFoundException;
import java.io.IOException;
import java.io.InputStream;

import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.Path;
import org.apache.spark.broadcast.Broadcast;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.catalyst.expressions.GenericInternalRow;
import org.apache.spark.sql.connector.read.Batch;
import org.apache.spark.sql.connector.read.InputPartition;
import org.apache.spark.sql.connector.read.PartitionReader;
import org.apache.spark.sql.connector.read.PartitionReaderFactory;
import org.apache.spark.sql.connector.read.Scan;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructType;
import org.apache.spark.unsafe.types.UTF8String;
import org.apache.spark.util.SerializableConfiguration;

/**
 * Named files read whole, one task and one row ({@code file}, {@code content}) each, through Hadoop's filesystem
 * API: how text files on {@code hdfs:}, {@code s3a:}... reach kcompact_nb's parsers in Python workers. Unlike
 * Spark's {@code binaryFile} source, names starting with {@code _} or {@code .} are read like any other.
 */
final class WholeFiles implements Scan, Batch {
    static final StructType SCHEMA = new StructType()
            .add("file", DataTypes.StringType)
            .add("content", DataTypes.BinaryType);

    private final Configuration conf;
    private final String[] paths;

    WholeFiles(Configuration conf, String[] paths) {
        this.conf = conf;
        this.paths = paths;
    }

    /**
     * Checks on the driver that every path is a file, so a missing one is named before any task opens it (a task
     * that fails feeding a Python worker reports only that the worker crashed). Errors carry Python's exception
     * names, as {@code open()} raises them for local paths.
     */
    static void requireFiles(Configuration conf, String[] paths) throws IOException {
        for (String name : paths) {
            Path path = new Path(name);
            boolean directory;
            try {
                directory = path.getFileSystem(conf).getFileStatus(path).isDirectory();
            } catch (FileNotFoundException missing) {
                throw new IllegalArgumentException("FileNotFoundError: " + LogDir.displayName(path));
            }
            if (directory) {
                throw new IllegalArgumentException("IsADirectoryError: " + LogDir.displayName(path));
            }
        }
    }

    @Override
    public StructType readSchema() {
        return SCHEMA;
    }

    @Override
    public String description() {
        return "whole files (" + paths.length + ")";
    }

    @Override
    public Batch toBatch() {
        return this;
    }

    @Override
    public InputPartition[] planInputPartitions() {
        InputPartition[] files = new InputPartition[paths.length];
        for (int i = 0; i < paths.length; i++) {
            files[i] = new FilePath(paths[i]);
        }
        return files;
    }

    @Override
    public PartitionReaderFactory createReaderFactory() {
        org.apache.spark.SparkContext context = org.apache.spark.sql.classic.SparkSession.active().sparkContext();
        return new Factory(SerializableConfiguration.broadcast(context, conf));
    }

    private record FilePath(String path) implements InputPartition {
    }

    private static final class Factory implements PartitionReaderFactory {
        private static final long serialVersionUID = 1L;
        private final Broadcast<SerializableConfiguration> conf;

        Factory(Broadcast<SerializableConfiguration> conf) {
            this.conf = conf;
        }

        @Override
        public PartitionReader<InternalRow> createReader(InputPartition partition) {
            Path path = new Path(((FilePath) partition).path());
            Configuration hadoop = conf.value().value();
            return new PartitionReader<>() {
                private InternalRow row;

                @Override
                public boolean next() throws IOException {
                    if (row != null) {
                        return false;
                    }
                    try (InputStream in = path.getFileSystem(hadoop).open(path)) {
                        row = new GenericInternalRow(new Object[] {UTF8String.fromString(LogDir.displayName(path)), in.readAllBytes()});
                    }
                    return true;
                }

                @Override
                public InternalRow get() {
                    return row;
                }

                @Override
                public void close() {
                }
            };
        }
    }
}
