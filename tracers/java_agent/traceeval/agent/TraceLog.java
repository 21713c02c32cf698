package traceeval.agent;

import java.io.FileInputStream;
import java.io.FileOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * This JVM's trace log: the lines of tracers/python_runtime/log.py, written to the FIFO {@code records} in
 * {@code $TRACEEVAL_LOG}, each tagged with HMAC-SHA256 of this process's key, at most 4096 bytes a write.
 *
 * <p>The key comes before the program runs: from the supervisor's pipe ({@code fd:N}, read through
 * /proc/self/fd: Java cannot read a descriptor by number) for the program's own JVM, or for a traced child
 * from the supervisor's socket {@code keys} for the one-time ticket its parent put in its environment
 * ({@code ticket:T}). SHA-256 is written out: the JDK's MessageDigest costs every JVM some 25 ms to load.
 */
final class TraceLog {
    static final String LOG_ENV = "TRACEEVAL_LOG";
    static final String KEY_ENV = "TRACEEVAL_KEY";
    static final String STREAM_ENV = "TRACEEVAL_STREAM";
    private static final int PIPE_BUF = 4096;

    private static FileOutputStream out;
    private static int[] inner;  // SHA-256 states after the key's two pads (null: no key)
    private static int[] outer;
    private static byte[] key;
    private static String lineage = "0";
    private static String stream = "";
    private static long seq;
    private static int children;
    private static boolean closed;

    private TraceLog() {
    }

    /** Open the log and take this process's key (the program has not run yet). */
    static synchronized void open() {
        String folder = System.getenv(LOG_ENV);
        if (folder == null || folder.isEmpty()) {
            return;
        }
        String given = System.getenv(STREAM_ENV);
        lineage = given == null || given.isEmpty() ? "0" : given;
        stream = lineage + "@" + pid();
        try {
            out = new FileOutputStream(folder + "/records", true);
        } catch (IOException error) {
            return;
        }
        key = key(System.getenv(KEY_ENV), folder);
        if (key != null) {
            inner = padded(key, 0x36);
            outer = padded(key, 0x5c);
        }
    }

    /** This process's id, from /proc/self (ProcessHandle costs a JVM some 10 ms to load). */
    static long pid() {
        try {
            return Long.parseLong(new java.io.File("/proc/self").getCanonicalFile().getName());
        } catch (IOException | NumberFormatException error) {
            return ProcessHandle.current().pid();
        }
    }

    /** Whether this JVM is a traced child of the program (the program's own JVM is lineage 0). */
    static boolean isChild() {
        return !lineage.equals("0");
    }

    private static byte[] key(String spec, String folder) {
        if (spec == null) {
            return null;
        }
        String text = null;
        try {
            if (spec.startsWith("fd:")) {
                try (InputStream in = new FileInputStream("/proc/self/fd/" + spec.substring(3))) {
                    byte[] read = new byte[128];  // (not readNBytes: FileInputStream's seeks, and a pipe cannot)
                    int size = 0;
                    for (int got; size < read.length && (got = in.read(read, size, read.length - size)) > 0; ) {
                        size += got;
                    }
                    text = new String(read, 0, size, StandardCharsets.US_ASCII);
                }
            } else if (spec.startsWith("ticket:")) {
                text = ask(folder + "/keys", lineage + " " + spec.substring(7) + "\n");
            }
        } catch (IOException | RuntimeException error) {
            return null;
        }
        text = text == null ? "" : text.trim();
        if (text.length() != 64) {
            return null;
        }
        byte[] bytes = new byte[32];
        for (int i = 0; i < 32; i++) {
            int high = Character.digit(text.charAt(2 * i), 16);
            int low = Character.digit(text.charAt(2 * i + 1), 16);
            if (high < 0 || low < 0) {
                return null;
            }
            bytes[i] = (byte) ((high << 4) | low);
        }
        return bytes;
    }

    private static String ask(String socket, String request) throws IOException {
        try (SocketChannel channel = SocketChannel.open(StandardProtocolFamily.UNIX)) {
            channel.connect(UnixDomainSocketAddress.of(socket));
            channel.write(ByteBuffer.wrap(request.getBytes(StandardCharsets.US_ASCII)));
            ByteBuffer answer = ByteBuffer.allocate(256);
            while (answer.hasRemaining() && channel.read(answer) > 0) {
                if (answer.get(answer.position() - 1) == '\n') {
                    break;
                }
            }
            return new String(answer.array(), 0, answer.position(), StandardCharsets.US_ASCII);
        }
    }

    static void write(String record) {
        writeAll(List.of(record));
    }

    /** Records in order, as few writes as fit PIPE_BUF (each holding whole lines). */
    static synchronized void writeAll(List<String> records) {
        if (out == null || closed) {
            return;
        }
        try {
            java.io.ByteArrayOutputStream chunk = new java.io.ByteArrayOutputStream();
            for (String record : records) {
                byte[] line = line(record);
                if (chunk.size() + line.length > PIPE_BUF) {
                    out.write(chunk.toByteArray());
                    chunk.reset();
                }
                chunk.write(line);
            }
            if (chunk.size() > 0) {
                out.write(chunk.toByteArray());
            }
        } catch (IOException error) {
            out = null;  // the supervisor sees what is missing
        }
    }

    private static byte[] line(String record) {
        byte[] body = (stream + " " + seq++ + " " + record).getBytes(StandardCharsets.UTF_8);
        String tag = inner == null ? "-" : hex(hmac(body), 16);
        byte[] head = (tag + " ").getBytes(StandardCharsets.US_ASCII);
        if (head.length + body.length + 1 > PIPE_BUF) {
            seq--;
            return line("[\"W\",\"a trace record of " + body.length + " bytes was left out (over 4096 bytes a line)\"]");
        }
        byte[] line = new byte[head.length + body.length + 1];
        System.arraycopy(head, 0, line, 0, head.length);
        System.arraycopy(body, 0, line, head.length, body.length);
        line[line.length - 1] = '\n';
        return line;
    }

    /** The closing record, then nothing more (the shutdown hook's last step). */
    static synchronized void close() {
        writeAll(List.of("[\"Z\"]"));
        closed = true;
    }

    /** A traced child's environment: the log, its lineage and a one-time ticket for its key. */
    static synchronized Map<String, String> childEnvironment() {
        Map<String, String> env = new HashMap<>();
        String folder = System.getenv(LOG_ENV);
        if (folder == null) {
            return env;
        }
        children++;
        String component = pid() + "_" + children;
        env.put(LOG_ENV, folder);
        env.put(STREAM_ENV, lineage + "." + component);
        if (key != null) {
            env.put(KEY_ENV, "ticket:" + hex(hmac(padded(key, 0x36), padded(key, 0x5c),
                    ("ticket " + component).getBytes(StandardCharsets.US_ASCII)), 16));
        }
        return env;
    }

    // HMAC-SHA256 (RFC 2104, FIPS 180-4) --------------------------------------------------------------

    private static final int[] K = {
        0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5,
        0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174,
        0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
        0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967,
        0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85,
        0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
        0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
        0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2,
    };
    private static final int[] START = {
        0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a, 0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19,
    };

    private static byte[] hmac(byte[] message) {
        return hmac(inner, outer, message);
    }

    private static byte[] hmac(int[] innerState, int[] outerState, byte[] message) {
        return sha256(outerState, sha256(innerState, message));
    }

    /** The SHA-256 state after one block: the key xor `pad` (keys are 32 bytes). */
    private static int[] padded(byte[] secret, int pad) {
        byte[] block = new byte[64];
        for (int i = 0; i < 64; i++) {
            block[i] = (byte) ((i < secret.length ? secret[i] : 0) ^ pad);
        }
        int[] state = START.clone();
        compress(state, block, 0, new int[64]);
        return state;
    }

    /** SHA-256 of the 64 bytes already in `state`, then `message`. */
    private static byte[] sha256(int[] state, byte[] message) {
        int[] h = state.clone();
        int size = ((message.length + 9 + 63) / 64) * 64;
        byte[] data = new byte[size];
        System.arraycopy(message, 0, data, 0, message.length);
        data[message.length] = (byte) 0x80;
        long bits = (64L + message.length) * 8;
        for (int i = 0; i < 8; i++) {
            data[size - 1 - i] = (byte) (bits >>> (8 * i));
        }
        int[] w = new int[64];
        for (int at = 0; at < size; at += 64) {
            compress(h, data, at, w);
        }
        byte[] digest = new byte[32];
        for (int i = 0; i < 8; i++) {
            digest[4 * i] = (byte) (h[i] >>> 24);
            digest[4 * i + 1] = (byte) (h[i] >>> 16);
            digest[4 * i + 2] = (byte) (h[i] >>> 8);
            digest[4 * i + 3] = (byte) h[i];
        }
        return digest;
    }

    private static void compress(int[] h, byte[] data, int at, int[] w) {
        for (int i = 0; i < 16; i++, at += 4) {
            w[i] = ((data[at] & 0xFF) << 24) | ((data[at + 1] & 0xFF) << 16) | ((data[at + 2] & 0xFF) << 8)
                    | (data[at + 3] & 0xFF);
        }
        for (int i = 16; i < 64; i++) {
            int x = w[i - 15];
            int y = w[i - 2];
            w[i] = w[i - 16] + (Integer.rotateRight(x, 7) ^ Integer.rotateRight(x, 18) ^ (x >>> 3)) + w[i - 7]
                    + (Integer.rotateRight(y, 17) ^ Integer.rotateRight(y, 19) ^ (y >>> 10));
        }
        int a = h[0], b = h[1], c = h[2], d = h[3], e = h[4], f = h[5], g = h[6], k = h[7];
        for (int i = 0; i < 64; i++) {
            int t1 = k + (Integer.rotateRight(e, 6) ^ Integer.rotateRight(e, 11) ^ Integer.rotateRight(e, 25))
                    + ((e & f) ^ (~e & g)) + K[i] + w[i];
            int t2 = (Integer.rotateRight(a, 2) ^ Integer.rotateRight(a, 13) ^ Integer.rotateRight(a, 22))
                    + ((a & b) ^ (a & c) ^ (b & c));
            k = g;
            g = f;
            f = e;
            e = d + t1;
            d = c;
            c = b;
            b = a;
            a = t1 + t2;
        }
        h[0] += a;
        h[1] += b;
        h[2] += c;
        h[3] += d;
        h[4] += e;
        h[5] += f;
        h[6] += g;
        h[7] += k;
    }

    private static String hex(byte[] bytes, int count) {
        StringBuilder text = new StringBuilder(2 * count);
        for (int i = 0; i < count; i++) {
            text.append(Character.forDigit((bytes[i] >>> 4) & 0xF, 16)).append(Character.forDigit(bytes[i] & 0xF, 16));
        }
        return text.toString();
    }
}
