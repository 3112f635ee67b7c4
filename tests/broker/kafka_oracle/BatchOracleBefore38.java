// BatchOracle for kafka-clients 3.1 to 3.7, before KIP-390 (no Compression class, no levels): rebuilds every
// batch of a segment file with MemoryRecordsBuilder as the cleaner does, compressed with the codec given.
//
// Usage: java -cp <kafka-clients classpath>:<dir> BatchOracleBefore38 IN.log OUT.log CODEC
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Paths;
import org.apache.kafka.common.record.CompressionType;
import org.apache.kafka.common.record.MemoryRecords;
import org.apache.kafka.common.record.MemoryRecordsBuilder;
import org.apache.kafka.common.record.Record;
import org.apache.kafka.common.record.RecordBatch;
import org.apache.kafka.common.record.TimestampType;
import org.apache.kafka.common.utils.ByteBufferOutputStream;

public class BatchOracleBefore38 {
    public static void main(String[] args) throws Exception {
        ByteBuffer in = ByteBuffer.wrap(Files.readAllBytes(Paths.get(args[0])));
        CompressionType compression = CompressionType.forName(args[2]);
        ByteBufferOutputStream out = new ByteBufferOutputStream(1 << 20);
        for (RecordBatch batch : MemoryRecords.readableRecords(in).batches()) {
            long logAppendTime = batch.timestampType() == TimestampType.LOG_APPEND_TIME ? batch.maxTimestamp() : RecordBatch.NO_TIMESTAMP;
            MemoryRecordsBuilder builder = new MemoryRecordsBuilder(out, batch.magic(), compression, batch.timestampType(),
                batch.baseOffset(), logAppendTime, batch.producerId(), batch.producerEpoch(), batch.baseSequence(),
                batch.isTransactional(), batch.isControlBatch(), batch.partitionLeaderEpoch(), out.limit(),
                batch.deleteHorizonMs().orElse(RecordBatch.NO_TIMESTAMP));
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
}
