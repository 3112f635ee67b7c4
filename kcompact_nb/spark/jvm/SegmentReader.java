package kcompact.spark;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Iterator;
import java.util.List;

import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FSDataInputStream;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.LocalFileSystem;
import org.apache.hadoop.fs.Path;
import org.apache.kafka.common.compress.Compression;
import org.apache.kafka.common.record.CompressionType;
import org.apache.kafka.common.record.MemoryRecords;
import org.apache.kafka.common.record.RecordBatch;
import org.apache.kafka.common.record.Record;
import org.apache.kafka.common.utils.BufferSupplier;
import org.apache.kafka.common.utils.Crc32C;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.connector.read.PartitionReader;

/**
 * The records of one segment file, read once from start to end through Hadoop's filesystem API (so on any
 * filesystem Spark reads), one batch in memory at a time. Batches are framed and checked as kcompact_nb's io
 * reader (SegmentFileReader) does, with the same reasons; kafka-clients decodes the records.
 */
final class SegmentReader implements PartitionReader<InternalRow> {
    private static final int LOG_OVERHEAD = 12;
    private static final int LENGTH_POSITION = 8;
    private static final int RECORDS_POSITION = 61;
    private static final int MAGIC_POSITION = 16;
    private static final int CRC_POSITION = 17;
    private static final int ATTRIBUTES_POSITION = 21;
    private static final int LAST_DELTA_POSITION = 23;
    private static final int COUNT_POSITION = 57;
    private static final int MIN_BATCH_LENGTH = RECORDS_POSITION - LOG_OVERHEAD;
    private static final int CODEC_MASK = 0x07;
    private static final int CODECS = 5;
    private static final String[] CODEC_NAMES = {"none", "gzip", "snappy", "lz4", "zstd"};
    private static final int READ_BUFFER_BYTES = 1 << 16;

    private final SegmentFile file;
    private final Configuration conf;
    private final SegmentRows rows;
    private FSDataInputStream in;
    private int size;
    /** The current batch's bytes (reused from batch to batch: rows copy what they keep). */
    private byte[] buffer = new byte[READ_BUFFER_BYTES];
    private ByteBuffer data;
    private int position;
    private long nextOffset;
    private int batchPosition;
    private String codec;
    private Iterator<Record> records;
    private InternalRow row;

    SegmentReader(SegmentFile file, Configuration conf) {
        this.file = file;
        this.conf = conf;
        this.rows = new SegmentRows(file.topic, file.partition, file.baseOffset);
        this.nextOffset = file.baseOffset;
    }

    @Override
    public boolean next() throws IOException {
        if (in == null) {
            open();
        }
        while (records == null || !records.hasNext()) {
            if (position >= size) {
                return false;
            }
            startBatch();
        }
        row = rows.row(records.next());
        return true;
    }

    @Override
    public InternalRow get() {
        return row;
    }

    @Override
    public void close() throws IOException {
        if (in != null) {
            in.close();  // the FileSystem itself is Hadoop's shared, cached instance: never closed here
        }
    }

    private void open() throws IOException {
        Path path = new Path(file.path);
        FileSystem fs = path.getFileSystem(conf);
        if (fs instanceof LocalFileSystem local) {
            fs = local.getRawFileSystem();  // no checksum layer: Kafka writes no .crc side files to check
        }
        long length = fs.getFileStatus(path).getLen();
        if (length > Integer.MAX_VALUE) {
            throw new IOException(file.name + ": " + length + " bytes is larger than a Kafka segment can be");
        }
        size = (int) length;
        in = fs.open(path, READ_BUFFER_BYTES);
    }

    private IOException undecodable(RuntimeException error) {
        String reason = "cannot decode the " + codec + " records: " + error.getClass().getSimpleName() + ": " + error.getMessage();
        return failure("CorruptBatchError", batchPosition, reason);
    }

    /** Frames and checks the batch at {@code position} and starts iterating its records. */
    private void startBatch() throws IOException {
        int at = position;
        int length = frame();
        long base = data.getLong(0);
        int lastDelta = data.getInt(LAST_DELTA_POSITION);
        int count = data.getInt(COUNT_POSITION);
        checkOffsets(base, lastDelta, at);
        if (count < 0) {
            fail("CorruptBatchError", at, "negative records count " + count);
        }
        int codecId = data.getShort(ATTRIBUTES_POSITION) & CODEC_MASK;
        if (codecId >= CODECS) {
            fail("CorruptBatchError", at, "unknown compression codec id " + codecId);
        }
        RecordBatch batch = MemoryRecords.readableRecords(data.duplicate()).firstBatch();
        rows.startBatch(batch);
        batchPosition = at;
        codec = CODEC_NAMES[codecId];
        List<Record> decoded = new ArrayList<>();
        try {
            Iterator<Record> iterator = (codecId == 0 || count == 0 ? batch : decompressed(data.duplicate(), codecId)).iterator();
            while (iterator.hasNext()) {
                decoded.add(iterator.next());
            }
        } catch (RuntimeException error) {
            throw undecodable(error);
        }
        checkRecordOffsets(decoded, base, base + lastDelta);
        records = decoded.iterator();
        position = at + length;
        nextOffset = base + lastDelta + 1;
    }

    /** As the io reader: the whole batch decodes first, then its record offsets must rise inside its range. */
    private void checkRecordOffsets(List<Record> decoded, long base, long last) throws IOException {
        long previous = base - 1;
        for (Record record : decoded) {
            long offset = record.offset();
            if (offset <= previous || offset > last) {
                fail("OffsetOrderError", batchPosition, "record offset " + offset + " is outside the batch range ["
                        + base + ", " + last + "] or out of order");
            }
            previous = offset;
        }
    }

    /**
     * An uncompressed copy of a compressed batch. Its records are then read from a buffer, which bounds every
     * length by the bytes there; kafka-clients' compressed iterator would first allocate {@code recordsCount}
     * slots and a buffer of each record's stated length, so a corrupt count or length could exhaust the heap.
     */
    private RecordBatch decompressed(ByteBuffer batch, int codecId) throws IOException {
        ByteArrayOutputStream out = new ByteArrayOutputStream(Math.max(4 * batch.remaining(), RECORDS_POSITION));
        byte[] header = new byte[RECORDS_POSITION];
        batch.duplicate().get(header);
        out.write(header);
        ByteBuffer payload = batch.duplicate().position(RECORDS_POSITION).slice();
        Compression compression = Compression.of(CompressionType.forId(codecId)).build();
        try (InputStream in = compression.wrapForInput(payload, RecordBatch.MAGIC_VALUE_V2, BufferSupplier.NO_CACHING)) {
            in.transferTo(out);
        } catch (IOException | RuntimeException error) {
            throw failure("CorruptBatchError", batchPosition, "cannot decode the " + codec + " records: "
                    + error.getClass().getSimpleName() + ": " + error.getMessage());
        } catch (OutOfMemoryError error) {  // only this copy's buffer grew: nothing else is lost
            throw failure("CorruptBatchError", batchPosition, "the " + codec + " records decompress to more than the heap holds");
        }
        ByteBuffer copy = ByteBuffer.wrap(out.toByteArray());
        copy.putInt(LENGTH_POSITION, copy.capacity() - LOG_OVERHEAD);
        copy.putShort(ATTRIBUTES_POSITION, (short) (copy.getShort(ATTRIBUTES_POSITION) & ~CODEC_MASK));
        return MemoryRecords.readableRecords(copy).firstBatch();
    }

    /**
     * Reads the batch at {@code position} into {@code data} (which then starts at the batch) and returns its
     * length once its framing, magic and CRC are valid; only the header is read before the length is checked.
     */
    private int frame() throws IOException {
        int at = position;
        int remaining = size - at;
        if (remaining < LOG_OVERHEAD) {
            fail("TruncatedBatchError", at, remaining + " trailing bytes are too few for a batch header");
        }
        int head = Math.min(remaining, MAGIC_POSITION + 1);
        in.readFully(buffer, 0, head);
        data = ByteBuffer.wrap(buffer, 0, head);
        int length = data.getInt(LENGTH_POSITION);
        if (length < MIN_BATCH_LENGTH) {
            if (length >= MAGIC_POSITION - LOG_OVERHEAD + 1 && remaining > MAGIC_POSITION) {
                checkMagic(at);
            }
            fail("CorruptBatchError", at, "batch length " + length + " is below the minimum " + MIN_BATCH_LENGTH + " of a v2 batch");
        }
        if (length > remaining - LOG_OVERHEAD) {
            if (remaining > MAGIC_POSITION) {
                checkMagic(at);
            }
            fail("TruncatedBatchError", at, "batch of " + (length + LOG_OVERHEAD) + " bytes is truncated: only " + remaining + " bytes remain in the file");
        }
        checkMagic(at);
        int batchSize = length + LOG_OVERHEAD;
        if (buffer.length < batchSize) {
            buffer = Arrays.copyOf(buffer, Math.max(batchSize, 2 * buffer.length));
        }
        in.readFully(buffer, head, batchSize - head);
        data = ByteBuffer.wrap(buffer, 0, batchSize).slice();
        if (file.verifyCrc) {
            long stored = Integer.toUnsignedLong(data.getInt(CRC_POSITION));
            long computed = Crc32C.compute(data, ATTRIBUTES_POSITION, batchSize - ATTRIBUTES_POSITION);
            if (stored != computed) {
                fail("CrcMismatchError", at, "batch CRC mismatch: stored " + stored + ", computed " + computed);
            }
        }
        return batchSize;
    }

    private void checkMagic(int at) throws IOException {
        int magic = data.get(MAGIC_POSITION) & 0xFF;
        if (magic != 2) {
            String kind = magic == 0 || magic == 1 ? "a legacy (magic 0/1) message set, which is not supported" : "invalid";
            fail("InvalidMagicError", at, "magic byte " + magic + " is " + kind + "; expected 2");
        }
    }

    private void checkOffsets(long base, int lastDelta, int at) throws IOException {
        long last = base + lastDelta;
        if (lastDelta < 0) {
            fail("CorruptBatchError", at, "negative lastOffsetDelta " + lastDelta);
        }
        if (base < nextOffset) {
            fail("OffsetOrderError", at, "batch base offset " + base + " is below " + nextOffset
                    + ", the next offset after the previous batch or the segment's base offset: offsets must increase");
        }
        if (base >= Long.MAX_VALUE - lastDelta) {
            String shown = java.math.BigInteger.valueOf(base).add(java.math.BigInteger.valueOf(lastDelta)).toString();
            fail("OffsetOrderError", at, "batch last offset " + shown + " leaves no next offset: the log end offset would pass "
                    + Long.MAX_VALUE + " (Long.MAX_VALUE)");
        }
        if (last - file.baseOffset > Integer.MAX_VALUE) {
            fail("OffsetOrderError", at, "batch last offset " + last + " does not fit the segment's 32-bit relative offsets");
        }
        if (file.endOffset >= 0 && last >= file.endOffset) {
            fail("OffsetOrderError", at, "batch last offset " + last + " reaches the next segment's base offset " + file.endOffset);
        }
    }

    private void fail(String kind, int at, String reason) throws IOException {
        throw failure(kind, at, reason);
    }

    private IOException failure(String kind, int at, String reason) {
        boolean headOfFile = at == 0 && (kind.equals("InvalidMagicError") || kind.equals("TruncatedBatchError"));
        String hint = headOfFile ? " (is this a Kafka segment file?)" : "";
        return new IOException(kind + ": " + file.name + ": " + reason + hint + " (at byte position " + at + ")");
    }
}
