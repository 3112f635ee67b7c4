package kcompact.spark;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.Arrays;
import java.util.EnumSet;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.function.Function;

import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.Path;
import org.apache.spark.broadcast.Broadcast;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.catalyst.expressions.GenericInternalRow;
import org.apache.spark.sql.connector.catalog.Column;
import org.apache.spark.sql.connector.catalog.SupportsRead;
import org.apache.spark.sql.connector.catalog.Table;
import org.apache.spark.sql.connector.catalog.TableCapability;
import org.apache.spark.sql.connector.catalog.TableProvider;
import org.apache.spark.sql.connector.expressions.Transform;
import org.apache.spark.sql.connector.read.Batch;
import org.apache.spark.sql.connector.read.InputPartition;
import org.apache.spark.sql.connector.read.LocalScan;
import org.apache.spark.sql.connector.read.PartitionReader;
import org.apache.spark.sql.connector.read.PartitionReaderFactory;
import org.apache.spark.sql.connector.read.Scan;
import org.apache.spark.sql.connector.read.ScanBuilder;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructField;
import org.apache.spark.sql.types.StructType;
import org.apache.spark.sql.util.CaseInsensitiveStringMap;
import org.apache.spark.unsafe.types.UTF8String;
import org.apache.spark.util.SerializableConfiguration;

/**
 * Kafka log dirs and files on any Hadoop filesystem ({@code file:}, {@code hdfs:}, {@code s3a:}...) as a Spark
 * batch source. The option {@code kind} picks what is read:
 * <ul>
 * <li>{@code records} (default): every record of the log dir at {@code path} in the project's record schema, one
 *     input partition per segment file, decoded in the executors by kafka-clients' {@code DefaultRecordBatch};
 *     {@code topics} (comma-separated) restricts the topics, {@code verify_crc} checks every batch's CRC-32C.</li>
 * <li>{@code segments}: one row per segment file of that log dir (size and modification time).</li>
 * <li>{@code checkpoints}: the bytes of the log dir's cleaner and log-start checkpoint files, those present.</li>
 * <li>{@code files}: the files named in {@code paths} (one per line), read whole in the executors.</li>
 * </ul>
 * Log dirs are listed and checkpoints read on the driver when the source is loaded, so a missing log dir fails
 * there. Loading it without a location only gives the schema: kcompact_nb probes for the source that way.
 */
public final class SegmentFileSource implements TableProvider {
    static final StructType SEGMENT_SCHEMA = new StructType()
            .add("topic", DataTypes.StringType)
            .add("partition", DataTypes.IntegerType)
            .add("segment_base_offset", DataTypes.LongType)
            .add("size_bytes", DataTypes.LongType)
            .add("last_modified_ms", DataTypes.LongType);
    static final List<String> CHECKPOINT_FILES = List.of("cleaner-offset-checkpoint", "log-start-offset-checkpoint");
    static final StructType CHECKPOINT_SCHEMA = new StructType()
            .add("name", DataTypes.StringType)
            .add("file", DataTypes.StringType)
            .add("content", DataTypes.BinaryType);

    private enum Kind {
        RECORDS(SegmentRows.SCHEMA, "path"),
        SEGMENTS(SEGMENT_SCHEMA, "path"),
        CHECKPOINTS(CHECKPOINT_SCHEMA, "path"),
        FILES(WholeFiles.SCHEMA, "paths");

        final StructType schema;
        final String location;

        Kind(StructType schema, String location) {
            this.schema = schema;
            this.location = location;
        }

        static Kind of(Map<String, String> options) {
            String kind = options.getOrDefault("kind", "records");
            try {
                return valueOf(kind.toUpperCase(Locale.ROOT));
            } catch (IllegalArgumentException unknown) {
                throw new IllegalArgumentException("option 'kind' must be records, segments, checkpoints or files, not '" + kind + "'");
            }
        }
    }

    @Override
    public StructType inferSchema(CaseInsensitiveStringMap options) {
        return Kind.of(options).schema;
    }

    @Override
    public Table getTable(StructType schema, Transform[] partitioning, Map<String, String> properties) {
        CaseInsensitiveStringMap options = new CaseInsensitiveStringMap(properties);
        Kind kind = Kind.of(options);
        String location = options.get(kind.location);
        if (location == null) {
            return new SourceTable(kind, "(no " + kind.location + ")", null);
        }
        Configuration conf = org.apache.spark.sql.classic.SparkSession.active().sessionState().newHadoopConf();
        try {
            return new SourceTable(kind, location, scans(kind, conf, location, options));
        } catch (IOException error) {
            throw new UncheckedIOException(error);
        }
    }

    /** What each kind reads, listed (or read, for checkpoints) now; the scan options only add verify_crc. */
    private static Function<CaseInsensitiveStringMap, Scan> scans(Kind kind, Configuration conf, String location, CaseInsensitiveStringMap options)
            throws IOException {
        if (kind == Kind.FILES) {
            String[] paths = location.split("\n");
            WholeFiles.requireFiles(conf, paths);
            return scanOptions -> new WholeFiles(conf, paths);
        }
        LogDir dir = new LogDir(conf, location);
        if (kind == Kind.CHECKPOINTS) {
            InternalRow[] rows = checkpointRows(dir);
            return scanOptions -> new LocalRows(kind.schema, rows);
        }
        List<LogDir.Segment> segments = dir.segments(topics(options));
        if (kind == Kind.SEGMENTS) {
            InternalRow[] rows = segmentRows(segments);
            return scanOptions -> new LocalRows(kind.schema, rows);
        }
        return scanOptions -> {
            boolean verifyCrc = scanOptions.getBoolean("verify_crc", true);
            return new SegmentScan(conf, segments.stream().map(s -> s.toPartition(verifyCrc)).toArray(SegmentFile[]::new));
        };
    }

    private static Set<String> topics(CaseInsensitiveStringMap options) {
        String topics = options.get("topics");
        return topics == null ? null : new HashSet<>(Arrays.asList(topics.split(",", -1)));
    }

    private static InternalRow[] segmentRows(List<LogDir.Segment> segments) {
        return segments.stream().map(s -> new GenericInternalRow(new Object[] {
            UTF8String.fromString(s.topic()), s.partition(), s.baseOffset(), s.status().getLen(), s.status().getModificationTime(),
        })).toArray(InternalRow[]::new);
    }

    private static InternalRow[] checkpointRows(LogDir dir) throws IOException {
        InternalRow[] rows = new InternalRow[CHECKPOINT_FILES.size()];
        int found = 0;
        for (String name : CHECKPOINT_FILES) {
            byte[] content = dir.read(name);
            if (content != null) {
                String file = LogDir.displayName(new Path(dir.root, name));
                rows[found++] = new GenericInternalRow(new Object[] {UTF8String.fromString(name), UTF8String.fromString(file), content});
            }
        }
        return Arrays.copyOf(rows, found);
    }

    private static final class SourceTable implements SupportsRead {
        private final Kind kind;
        private final String location;
        private final Function<CaseInsensitiveStringMap, Scan> scans;

        SourceTable(Kind kind, String location, Function<CaseInsensitiveStringMap, Scan> scans) {
            this.kind = kind;
            this.location = location;
            this.scans = scans;
        }

        @Override
        public String name() {
            return "kafka " + kind.name().toLowerCase(Locale.ROOT) + " " + location;
        }

        @Override
        public Column[] columns() {
            StructField[] fields = kind.schema.fields();
            Column[] columns = new Column[fields.length];
            for (int i = 0; i < fields.length; i++) {
                columns[i] = Column.create(fields[i].name(), fields[i].dataType(), fields[i].nullable());
            }
            return columns;
        }

        @Override
        public Set<TableCapability> capabilities() {
            return EnumSet.of(TableCapability.BATCH_READ);
        }

        @Override
        public ScanBuilder newScanBuilder(CaseInsensitiveStringMap options) {
            if (scans == null) {
                throw new IllegalArgumentException("option '" + kind.location + "' (what to read) is required");
            }
            return () -> scans.apply(options);
        }
    }

    /** Rows computed on the driver (listings, small files): no executor is involved. */
    private record LocalRows(StructType readSchema, InternalRow[] rows) implements LocalScan {
    }

    private static final class SegmentScan implements Scan, Batch {
        private final Configuration conf;
        private final SegmentFile[] files;

        SegmentScan(Configuration conf, SegmentFile[] files) {
            this.conf = conf;
            this.files = files;
        }

        @Override
        public StructType readSchema() {
            return SegmentRows.SCHEMA;
        }

        @Override
        public String description() {
            return "kafka segment files (" + files.length + ")";
        }

        @Override
        public Batch toBatch() {
            return this;
        }

        @Override
        public InputPartition[] planInputPartitions() {
            return files.clone();
        }

        @Override
        public PartitionReaderFactory createReaderFactory() {
            org.apache.spark.SparkContext context = org.apache.spark.sql.classic.SparkSession.active().sparkContext();
            return new ReaderFactory(SerializableConfiguration.broadcast(context, conf));
        }
    }

    /** Sent to the executors: the driver's Hadoop configuration (filesystem settings, credentials) goes along. */
    private static final class ReaderFactory implements PartitionReaderFactory {
        private static final long serialVersionUID = 2L;
        private final Broadcast<SerializableConfiguration> conf;

        ReaderFactory(Broadcast<SerializableConfiguration> conf) {
            this.conf = conf;
        }

        @Override
        public PartitionReader<InternalRow> createReader(InputPartition partition) {
            return new SegmentReader((SegmentFile) partition, conf.value().value());
        }
    }
}
