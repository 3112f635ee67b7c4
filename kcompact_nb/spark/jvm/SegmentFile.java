package kcompact.spark;

import org.apache.spark.sql.connector.read.InputPartition;
import org.apache.spark.sql.util.CaseInsensitiveStringMap;

/**
 * One segment file to decode: its partition, its base offset and the next segment's base offset (or -1).
 * Options: {@code segments} (the count) and, for each index i, {@code segment.i.path}, {@code .topic},
 * {@code .partition}, {@code .base_offset}, {@code .end_offset}; {@code verify_crc} for all.
 */
final class SegmentFile implements InputPartition {
    private static final long serialVersionUID = 1L;

    final String path;
    final String topic;
    final int partition;
    final long baseOffset;
    final long endOffset;
    final boolean verifyCrc;

    SegmentFile(String path, String topic, int partition, long baseOffset, long endOffset, boolean verifyCrc) {
        this.path = path;
        this.topic = topic;
        this.partition = partition;
        this.baseOffset = baseOffset;
        this.endOffset = endOffset;
        this.verifyCrc = verifyCrc;
    }

    static SegmentFile[] fromOptions(CaseInsensitiveStringMap options) {
        int count = options.getInt("segments", -1);
        if (count < 0) {
            throw new IllegalArgumentException("option 'segments' (the number of segment files) is required");
        }
        boolean verifyCrc = options.getBoolean("verify_crc", true);
        SegmentFile[] files = new SegmentFile[count];
        for (int i = 0; i < count; i++) {
            String prefix = "segment." + i + ".";
            files[i] = new SegmentFile(
                    required(options, prefix + "path"),
                    required(options, prefix + "topic"),
                    Integer.parseInt(required(options, prefix + "partition")),
                    Long.parseLong(required(options, prefix + "base_offset")),
                    options.getLong(prefix + "end_offset", -1L),
                    verifyCrc);
        }
        return files;
    }

    private static String required(CaseInsensitiveStringMap options, String key) {
        String value = options.get(key);
        if (value == null) {
            throw new IllegalArgumentException("option '" + key + "' is missing");
        }
        return value;
    }
}
