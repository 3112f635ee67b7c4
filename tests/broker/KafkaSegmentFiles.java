// Writes .index, .timeindex, .txnindex and .snapshot files with Kafka's own classes, for
// tests/broker/test_index_files_kafka.py to compare with kcompact_nb.io's writers byte for byte.
// Run as a single-file program on a broker classpath: java -cp 'classpath/<version>/*' KafkaSegmentFiles.java JOBS
// JOBS holds one job per line (fields separated by spaces):
//   segment OUT_DIR BATCHES_FILE BASE_OFFSET INDEX_INTERVAL_BYTES SEGMENT_INDEX_BYTES closed|active CHUNK_BYTES,...
//       appends BATCHES_FILE's bytes to a new LogSegment in chunks (one LogSegment.append per chunk, with the
//       chunk's largest offset, timestamp and offset of that timestamp before 3.9.1 and 4.0.1), then
//       closes it (onBecomeInactiveSegment + close) or only flushes it, as an active segment stays
//   txn OUT_FILE BASE_OFFSET PID:FIRST:LAST:LSO ...     appends each aborted transaction to a TransactionIndex
//   snapshot IN_FILE OUT_FILE                           reads IN_FILE with readSnapshot, puts its producers in a
//                                                       HashMap in file order and writes them with writeSnapshot
// Classes that moved between Kafka 3.9 and 4.x (MemoryRecords, AbortedTxn) are found by reflection.

import java.io.File;
import java.lang.reflect.Method;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import org.apache.kafka.common.utils.Time;
import org.apache.kafka.storage.internals.log.LogConfig;
import org.apache.kafka.storage.internals.log.LogSegment;
import org.apache.kafka.storage.internals.log.ProducerStateEntry;
import org.apache.kafka.storage.internals.log.ProducerStateManager;
import org.apache.kafka.storage.internals.log.TransactionIndex;

public class KafkaSegmentFiles {
    public static void main(String[] args) throws Exception {
        for (String line : Files.readAllLines(new File(args[0]).toPath())) {
            String[] job = line.trim().split(" ");
            switch (job[0]) {
                case "segment" -> segment(job);
                case "txn" -> txn(job);
                case "snapshot" -> snapshot(job);
                default -> throw new IllegalArgumentException("unknown job " + job[0]);
            }
        }
    }

    static Class<?> firstClass(String... names) throws ClassNotFoundException {
        for (String name : names) {
            try {
                return Class.forName(name);
            } catch (ClassNotFoundException e) {
                // try the next name
            }
        }
        throw new ClassNotFoundException(String.join(" or ", names));
    }

    static void segment(String[] job) throws Exception {
        File dir = new File(job[1]);
        byte[] batches = Files.readAllBytes(new File(job[2]).toPath());
        long baseOffset = Long.parseLong(job[3]);
        LogConfig config = new LogConfig(Map.of("index.interval.bytes", job[4], "segment.index.bytes", job[5]));
        Class<?> memoryRecords = firstClass(
            "org.apache.kafka.common.record.internal.MemoryRecords", "org.apache.kafka.common.record.MemoryRecords");
        Method readable = memoryRecords.getMethod("readableRecords", ByteBuffer.class);
        // append(largestOffset, records) from 3.9.1 and 4.0.1 (KAFKA-806); before, append(largestOffset,
        // largestTimestampMs, shallowOffsetOfMaxTimestamp, records), as the cleaner's cleanInto calls it
        Method append = Arrays.stream(LogSegment.class.getMethods())
            .filter(m -> m.getName().equals("append") && m.getParameterTypes()[m.getParameterCount() - 1] == memoryRecords)
            .findFirst().orElseThrow();
        LogSegment segment = LogSegment.open(dir, baseOffset, config, Time.SYSTEM, 0, false);
        int position = 0;
        for (String chunk : job[7].split(",")) {
            int size = Integer.parseInt(chunk);
            ByteBuffer bytes = ByteBuffer.wrap(Arrays.copyOfRange(batches, position, position + size));
            long[] largest = largestOffsetAndTimestamp(bytes);
            Object records = readable.invoke(null, bytes);
            if (append.getParameterCount() == 2) {
                append.invoke(segment, largest[0], records);
            } else {
                append.invoke(segment, largest[0], largest[1], largest[2], records);
            }
            position += size;
        }
        if (job[6].equals("closed")) {
            segment.onBecomeInactiveSegment();
            segment.close();
        } else {
            segment.flush();
        }
    }

    // The chunk's last offset (its last batch's: baseOffset, 8 bytes, + lastOffsetDelta at byte 23), largest
    // timestamp (a batch's maxTimestamp is at byte 35) and the last offset of the first batch holding it.
    static long[] largestOffsetAndTimestamp(ByteBuffer bytes) {
        int position = 0;
        long[] largest = {-1, -1, -1};
        while (position < bytes.limit()) {
            long last = bytes.getLong(position) + bytes.getInt(position + 23);
            long maxTimestamp = bytes.getLong(position + 35);
            largest[0] = last;
            if (maxTimestamp > largest[1]) {
                largest[1] = maxTimestamp;
                largest[2] = last;
            }
            position += 12 + bytes.getInt(position + 8);
        }
        return largest;
    }

    static void txn(String[] job) throws Exception {
        TransactionIndex index = new TransactionIndex(Long.parseLong(job[2]), new File(job[1]));
        Method append = Arrays.stream(TransactionIndex.class.getMethods())
            .filter(m -> m.getName().equals("append") && m.getParameterCount() == 1).findFirst().orElseThrow();
        for (int i = 3; i < job.length; i++) {
            long[] f = Arrays.stream(job[i].split(":")).mapToLong(Long::parseLong).toArray();
            append.invoke(index, abortedTxn(f[0], f[1], f[2], f[3]));
        }
        index.close();
    }

    static Object abortedTxn(long producerId, long first, long last, long lso) throws Exception {
        try {
            Class<?> old = Class.forName("org.apache.kafka.storage.internals.log.AbortedTxn");
            return old.getConstructor(long.class, long.class, long.class, long.class).newInstance(producerId, first, last, lso);
        } catch (ClassNotFoundException e) {
            Class<?> message = Class.forName("org.apache.kafka.common.message.AbortedTxn");
            Object txn = message.getConstructor().newInstance();
            message.getMethod("setProducerId", long.class).invoke(txn, producerId);
            message.getMethod("setFirstOffset", long.class).invoke(txn, first);
            message.getMethod("setLastOffset", long.class).invoke(txn, last);
            message.getMethod("setLastStableOffset", long.class).invoke(txn, lso);
            return txn;
        }
    }

    static void snapshot(String[] job) throws Exception {
        List<ProducerStateEntry> entries = ProducerStateManager.readSnapshot(new File(job[1]));
        Map<Long, ProducerStateEntry> producers = new HashMap<>();
        for (ProducerStateEntry entry : entries) {
            producers.put(entry.producerId(), entry);
        }
        // public from 3.9; private before
        Method write = ProducerStateManager.class.getDeclaredMethod("writeSnapshot", File.class, Map.class, boolean.class);
        write.setAccessible(true);
        write.invoke(null, new File(job[2]), producers, true);
    }
}
