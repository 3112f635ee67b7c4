package kcompact.spark;

import java.util.EnumSet;
import java.util.Map;
import java.util.Set;

import org.apache.spark.sql.connector.catalog.Column;
import org.apache.spark.sql.connector.catalog.SupportsRead;
import org.apache.spark.sql.connector.catalog.Table;
import org.apache.spark.sql.connector.catalog.TableCapability;
import org.apache.spark.sql.connector.catalog.TableProvider;
import org.apache.spark.sql.connector.expressions.Transform;
import org.apache.spark.sql.connector.read.Batch;
import org.apache.spark.sql.connector.read.InputPartition;
import org.apache.spark.sql.connector.read.PartitionReader;
import org.apache.spark.sql.connector.read.PartitionReaderFactory;
import org.apache.spark.sql.connector.read.Scan;
import org.apache.spark.sql.connector.read.ScanBuilder;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.types.StructField;
import org.apache.spark.sql.types.StructType;
import org.apache.spark.sql.util.CaseInsensitiveStringMap;

/**
 * Kafka segment files as a Spark batch source: one input partition per file, records decoded in the
 * executors by kafka-clients' own {@code DefaultRecordBatch}. kcompact_nb's Python side lists the files
 * and passes them as options ({@link SegmentFile#fromOptions}); the schema is the project's record schema.
 */
public final class SegmentFileSource implements TableProvider {
    @Override
    public StructType inferSchema(CaseInsensitiveStringMap options) {
        return SegmentRows.SCHEMA;
    }

    @Override
    public Table getTable(StructType schema, Transform[] partitioning, Map<String, String> properties) {
        return new SegmentTable();
    }

    private static final class SegmentTable implements SupportsRead {
        @Override
        public String name() {
            return "kafka segment files";
        }

        @Override
        public Column[] columns() {
            StructField[] fields = SegmentRows.SCHEMA.fields();
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
            SegmentFile[] files = SegmentFile.fromOptions(options);
            return () -> new SegmentScan(files);
        }
    }

    private static final class SegmentScan implements Scan, Batch {
        private final SegmentFile[] files;

        SegmentScan(SegmentFile[] files) {
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
            return new ReaderFactory();
        }
    }

    private static final class ReaderFactory implements PartitionReaderFactory {
        private static final long serialVersionUID = 1L;

        @Override
        public PartitionReader<InternalRow> createReader(InputPartition partition) {
            return new SegmentReader((SegmentFile) partition);
        }
    }
}
