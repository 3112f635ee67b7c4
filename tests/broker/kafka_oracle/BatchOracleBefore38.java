// BatchOracle for kafka-clients 2.0 to 3.7, before KIP-390 (no Compression class, no levels): rebuilds every
// batch of a segment file with MemoryRecordsBuilder as the cleaner does, compressed with the codec given.
// Delete horizons (KIP-534) exist from 3.1 on: before, batches are rebuilt without one.
//
// Usage: java -cp <kafka-clients classpath>:<dir> BatchOracleBefore38 IN.log OUT.log CODEC
import java.lang.reflect.Constructor;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Paths;
import java.util.OptionalLong;
import org.apache.kafka.common.record.CompressionType;
import org.apache.kafka.common.record.MemoryRecords;
import org.apache.kafka.common.record.MemoryRecordsBuilder;
import org.apache.kafka.common.record.Record;
import org.apache.kafka.common.record.RecordBatch;
import org.apache.kafka.common.record.TimestampType;
import org.apache.kafka.common.utils.ByteBufferOutputStream;

public class BatchOracleBefore38 {
    private static final Class<?>[] BEFORE_31 = {ByteBufferOutputStream.class, byte.class, CompressionType.class,
        TimestampType.class, long.class, long.class, long.class, short.class, int.class, boolean.class, boolean.class,
        int.class, int.class};

    public static void main(String[] args) throws Exception {
        ByteBuffer in = ByteBuffer.wrap(Files.readAllBytes(Paths.get(args[0])));
        CompressionType compression = CompressionType.forName(args[2]);
        ByteBufferOutputStream out = new ByteBufferOutputStream(1 << 20);
        Constructor<MemoryRecordsBuilder> withHorizon = withHorizonConstructor();
        for (RecordBatch batch : MemoryRecords.readableRecords(in).batches()) {
            long logAppendTime = batch.timestampType() == TimestampType.LOG_APPEND_TIME ? batch.maxTimestamp() : RecordBatch.NO_TIMESTAMP;
            Object[] common = {out, batch.magic(), compression, batch.timestampType(), batch.baseOffset(), logAppendTime,
                batch.producerId(), batch.producerEpoch(), batch.baseSequence(), batch.isTransactional(),
                batch.isControlBatch(), batch.partitionLeaderEpoch(), out.limit()};
            MemoryRecordsBuilder builder;
            if (withHorizon != null) {
                Object[] all = java.util.Arrays.copyOf(common, common.length + 1);
                all[common.length] = ((OptionalLong) RecordBatch.class.getMethod("deleteHorizonMs").invoke(batch))
                    .orElse(RecordBatch.NO_TIMESTAMP);
                builder = withHorizon.newInstance(all);
            } else {
                builder = MemoryRecordsBuilder.class.getConstructor(BEFORE_31).newInstance(common);
            }
            for (Record record : batch) {
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

    /** MemoryRecordsBuilder's constructor with deleteHorizonMs last (3.1 on), or null before. */
    private static Constructor<MemoryRecordsBuilder> withHorizonConstructor() {
        Class<?>[] types = java.util.Arrays.copyOf(BEFORE_31, BEFORE_31.length + 1);
        types[BEFORE_31.length] = long.class;
        try {
            return MemoryRecordsBuilder.class.getConstructor(types);
        } catch (NoSuchMethodException before31) {
            return null;
        }
    }
}
