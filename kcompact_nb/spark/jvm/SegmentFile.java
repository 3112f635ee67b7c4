package kcompact.spark;

import org.apache.spark.sql.connector.read.InputPartition;

/** One segment file to decode: its partition, its base offset and the next segment's base offset (or -1). */
final class SegmentFile implements InputPartition {
    private static final long serialVersionUID = 2L;

    /** The file as a Hadoop path URI ({@code file:/...}, {@code hdfs://...}, {@code s3a://...}). */
    final String path;
    /** The file as errors name it: the local path for {@code file:} URIs, else the URI. */
    final String name;
    final String topic;
    final int partition;
    final long baseOffset;
    final long endOffset;
    final boolean verifyCrc;

    SegmentFile(String path, String name, String topic, int partition, long baseOffset, long endOffset, boolean verifyCrc) {
        this.path = path;
        this.name = name;
        this.topic = topic;
        this.partition = partition;
        this.baseOffset = baseOffset;
        this.endOffset = endOffset;
        this.verifyCrc = verifyCrc;
    }
}
