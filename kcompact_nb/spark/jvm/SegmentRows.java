package kcompact.spark;

import java.util.OptionalLong;

import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.record.Record;
import org.apache.kafka.common.record.RecordBatch;
import org.apache.kafka.common.record.TimestampType;
import org.apache.kafka.common.utils.Utils;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.catalyst.expressions.GenericInternalRow;
import org.apache.spark.sql.catalyst.util.GenericArrayData;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructType;
import org.apache.spark.unsafe.types.UTF8String;

/** The project's record schema (kcompact_nb.spark RECORD_SCHEMA) and one row per record. */
final class SegmentRows {
    static final StructType SCHEMA = new StructType()
            .add("key", DataTypes.BinaryType)
            .add("value", DataTypes.BinaryType)
            .add("topic", DataTypes.StringType)
            .add("partition", DataTypes.IntegerType)
            .add("offset", DataTypes.LongType)
            .add("timestamp", DataTypes.TimestampType)
            .add("timestampType", DataTypes.IntegerType)
            .add("headers", DataTypes.createArrayType(new StructType()
                    .add("key", DataTypes.StringType)
                    .add("value", DataTypes.BinaryType)))
            .add("segment_base_offset", DataTypes.LongType)
            .add("batch_base_offset", DataTypes.LongType)
            .add("batch_last_offset", DataTypes.LongType)
            .add("producer_id", DataTypes.LongType)
            .add("producer_epoch", DataTypes.IntegerType)
            .add("is_transactional", DataTypes.BooleanType)
            .add("is_control", DataTypes.BooleanType)
            .add("delete_horizon_ms", DataTypes.LongType)
            .add("record_size_bytes", DataTypes.IntegerType);

    private final UTF8String topic;
    private final int partition;
    private final long segmentBaseOffset;
    private Object[] batchFields;

    SegmentRows(String topic, int partition, long segmentBaseOffset) {
        this.topic = UTF8String.fromString(topic);
        this.partition = partition;
        this.segmentBaseOffset = segmentBaseOffset;
    }

    /** The batch the next records belong to. */
    void startBatch(RecordBatch batch) {
        OptionalLong horizon = batch.deleteHorizonMs();
        batchFields = new Object[] {
            batch.timestampType() == TimestampType.LOG_APPEND_TIME ? 1 : 0,
            segmentBaseOffset,
            batch.baseOffset(),
            batch.lastOffset(),
            batch.producerId(),
            (int) batch.producerEpoch(),
            batch.isTransactional(),
            batch.isControlBatch(),
            horizon.isPresent() ? horizon.getAsLong() : null,
        };
    }

    /** One record as a row; its timestamp is what a consumer reads (the max timestamp for LogAppendTime). */
    InternalRow row(Record record) {
        Object[] b = batchFields;
        return new GenericInternalRow(new Object[] {
            record.hasKey() ? Utils.toArray(record.key()) : null,
            record.hasValue() ? Utils.toArray(record.value()) : null,
            topic,
            partition,
            record.offset(),
            record.timestamp() * 1000L,
            b[0],
            headers(record.headers()),
            b[1], b[2], b[3], b[4], b[5], b[6], b[7], b[8],
            record.sizeInBytes(),
        });
    }

    private static GenericArrayData headers(Header[] headers) {
        if (headers.length == 0) {
            return null;
        }
        Object[] rows = new Object[headers.length];
        for (int i = 0; i < headers.length; i++) {
            rows[i] = new GenericInternalRow(new Object[] {UTF8String.fromString(headers[i].key()), headers[i].value()});
        }
        return new GenericArrayData(rows);
    }
}
