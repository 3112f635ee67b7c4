package kcompact.spark;

import java.io.FileNotFoundException;
import java.io.IOException;
import java.io.InputStream;
import java.math.BigInteger;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileStatus;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;

/**
 * A broker's log dir on any Hadoop filesystem, listed on the driver with the rules of kcompact_nb's Python
 * listing ({@code kcompact_nb/spark/_load_log_dir.py}, {@code segment_tasks}): every {@code <topic>-<partition>}
 * directory (hidden names such as {@code __consumer_offsets-0} included), its {@code <20 digits>.log} files in
 * name order; other directories and files are skipped.
 */
final class LogDir {
    static final Pattern PARTITION_DIR = Pattern.compile("^(.+)-([0-9]+)$");
    static final Pattern SEGMENT_NAME = Pattern.compile("^([0-9]{20})\\.log$");
    private static final BigInteger MAX_OFFSET = BigInteger.valueOf(Long.MAX_VALUE);
    private static final BigInteger MAX_PARTITION = BigInteger.valueOf(Integer.MAX_VALUE);

    /** One listed segment file. */
    record Segment(FileStatus status, String topic, int partition, long baseOffset, long endOffset) {
        SegmentFile toPartition(boolean verifyCrc) {
            return new SegmentFile(status.getPath().toString(), displayName(status.getPath()), topic, partition, baseOffset, endOffset, verifyCrc);
        }
    }

    final Configuration conf;
    final Path root;
    private final FileSystem fs;

    LogDir(Configuration conf, String location) throws IOException {
        this.conf = conf;
        Path path = new Path(location);
        this.fs = path.getFileSystem(conf);
        this.root = fs.makeQualified(path);
    }

    /** The file as errors name it: the local path for {@code file:} URIs, else the whole URI. */
    static String displayName(Path path) {
        return "file".equals(path.toUri().getScheme()) ? path.toUri().getPath() : path.toString();
    }

    /** The segment files of every partition directory (of {@code topics} only, unless null), in offset order. */
    List<Segment> segments(Set<String> topics) throws IOException {
        List<Segment> segments = new ArrayList<>();
        for (FileStatus directory : sortedListing(requireDirectory())) {
            Matcher match = PARTITION_DIR.matcher(directory.getPath().getName());
            if (!directory.isDirectory() || !match.matches() || new BigInteger(match.group(2)).compareTo(MAX_PARTITION) > 0) {
                continue;
            }
            if (topics == null || topics.contains(match.group(1))) {
                addPartition(directory.getPath(), match.group(1), Integer.parseInt(match.group(2)), segments);
            }
        }
        return segments;
    }

    private void addPartition(Path directory, String topic, int partition, List<Segment> segments) throws IOException {
        List<FileStatus> files = new ArrayList<>();
        List<Long> bases = new ArrayList<>();
        for (FileStatus file : sortedListing(directory)) {
            Matcher match = SEGMENT_NAME.matcher(file.getPath().getName());
            if (file.isFile() && match.matches()) {
                files.add(file);
                bases.add(baseOffset(file.getPath(), match.group(1)));
            }
        }
        for (int i = 0; i < files.size(); i++) {
            long end = i + 1 < files.size() ? bases.get(i + 1) : -1L;
            segments.add(new Segment(files.get(i), topic, partition, bases.get(i), end));
        }
    }

    private static long baseOffset(Path file, String digits) {
        BigInteger offset = new BigInteger(digits);
        if (offset.compareTo(MAX_OFFSET) > 0) {
            throw notASegment(file, "the offset in the file name, " + offset + ", is beyond " + Long.MAX_VALUE
                    + ", the largest offset (Long.MAX_VALUE)");
        }
        return offset.longValue();
    }

    /** The bytes of the file {@code name} in the log dir, or null when there is none. */
    byte[] read(String name) throws IOException {
        Path file = new Path(requireDirectory(), name);
        try (InputStream in = fs.open(file)) {
            return in.readAllBytes();
        } catch (FileNotFoundException missing) {
            return null;
        }
    }

    private Path requireDirectory() throws IOException {
        FileStatus status;
        try {
            status = fs.getFileStatus(root);
        } catch (FileNotFoundException missing) {
            throw notASegment(root, "not a log directory: it does not exist");
        }
        if (!status.isDirectory()) {
            throw notASegment(root, "not a log directory: it is a file");
        }
        return root;
    }

    private List<FileStatus> sortedListing(Path directory) throws IOException {
        FileStatus[] children = fs.listStatus(directory);
        Arrays.sort(children, Comparator.comparing(status -> status.getPath().getName()));
        return Arrays.asList(children);
    }

    /** The io layer's NotASegmentError (no byte position: the problem is the name), so Python can raise it again. */
    static IllegalArgumentException notASegment(Path path, String reason) {
        return new IllegalArgumentException("NotASegmentError: " + displayName(path) + ": " + reason);
    }
}
