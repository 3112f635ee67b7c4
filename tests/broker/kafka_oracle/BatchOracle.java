// Rebuilds every batch of a segment file with Kafka's own MemoryRecordsBuilder, as the log cleaner does in
// MemoryRecords.buildRetainedRecordsInto (same fields, every record retained, last offset kept), compressed
// with the codec and level given: the reference the project's encoder is compared with, byte for byte.
//
// Usage: java -cp <kafka-clients classpath>:<dir> BatchOracle IN.log OUT.log CODEC [LEVEL]
// The record classes moved to org.apache.kafka.common.record.internal in Kafka 4.4; the test writes that
// package into RECORDS_PACKAGE before compiling.
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Paths;
import org.apache.kafka.common.compress.Compression;
import org.apache.kafka.common.compress.GzipCompression;
import org.apache.kafka.common.compress.Lz4Compression;
import org.apache.kafka.common.compress.ZstdCompression;
import org.apache.kafka.common.record.TimestampType;
import RECORDS_PACKAGE.CompressionType;
import RECORDS_PACKAGE.MemoryRecords;
import RECORDS_PACKAGE.MemoryRecordsBuilder;
import RECORDS_PACKAGE.RecordBatch;
import BUFFER_STREAM_CLASS;

public class BatchOracle {
    public static void main(String[] args) throws Exception {
        ByteBuffer in = ByteBuffer.wrap(Files.readAllBytes(Paths.get(args[0])));
        Compression compression = compression(args[2], args.length > 3 ? Integer.valueOf(args[3]) : null);
        ByteBufferOutputStream out = new ByteBufferOutputStream(1 << 20);
        for (RecordBatch batch : MemoryRecords.readableRecords(in).batches()) {
            long logAppendTime = batch.timestampType() == TimestampType.LOG_APPEND_TIME ? batch.maxTimestamp() : RecordBatch.NO_TIMESTAMP;
            MemoryRecordsBuilder builder = new MemoryRecordsBuilder(out, batch.magic(), compression, batch.timestampType(),
                batch.baseOffset(), logAppendTime, batch.producerId(), batch.producerEpoch(), batch.baseSequence(),
                batch.isTransactional(), batch.isControlBatch(), batch.partitionLeaderEpoch(), out.limit(),
                batch.deleteHorizonMs().orElse(RecordBatch.NO_TIMESTAMP));
            for (RECORDS_PACKAGE.Record record : batch) {
                builder.append(record);
            }
            builder.overrideLastOffset(batch.lastOffset());
            builder.build();
            builder.close();
        }
        ByteBuffer result = out.buffer();
        result.flip();
        byte[] bytes = new byte[result.remaining()];
        result.get(bytes);
        Files.write(Paths.get(args[1]), bytes);
    }

    private static Compression compression(String codec, Integer level) {
        CompressionType type = CompressionType.forName(codec);
        if (level == null) {
            return Compression.of(type).build();
        }
        switch (type) {
            case GZIP: return ((GzipCompression.Builder) Compression.of(type)).level(level).build();
            case LZ4: return ((Lz4Compression.Builder) Compression.of(type)).level(level).build();
            case ZSTD: return ((ZstdCompression.Builder) Compression.of(type)).level(level).build();
            default: return Compression.of(type).build();
        }
    }
}
