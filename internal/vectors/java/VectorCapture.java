package org.goredisson.interop;

import org.redisson.Redisson;
import org.redisson.api.RBlockingQueue;
import org.redisson.api.RBucket;
import org.redisson.api.RDelayedQueue;
import org.redisson.api.RDeque;
import org.redisson.api.RList;
import org.redisson.api.RMap;
import org.redisson.api.RMapCache;
import org.redisson.api.RLocalCachedMap;
import org.redisson.api.options.LocalCachedMapOptions;
import org.redisson.api.RPatternTopic;
import org.redisson.api.RQueue;
import org.redisson.api.RReliableTopic;
import org.redisson.api.RScoredSortedSet;
import org.redisson.api.RSet;
import org.redisson.api.RSetCache;
import org.redisson.api.RShardedTopic;
import org.redisson.api.RTopic;
import org.redisson.api.listener.MessageListener;
import org.redisson.api.listener.PatternMessageListener;
import org.redisson.api.map.event.EntryCreatedListener;
import org.redisson.api.map.event.EntryEvent;
import org.redisson.api.map.event.EntryExpiredListener;
import org.redisson.api.map.event.EntryRemovedListener;
import org.redisson.api.map.event.EntryUpdatedListener;
import org.redisson.api.RCountDownLatch;
import org.redisson.api.RFencedLock;
import org.redisson.api.RLock;
import org.redisson.api.RObject;
import org.redisson.api.RPermitExpirableSemaphore;
import org.redisson.api.RRateLimiter;
import org.redisson.api.RReadWriteLock;
import org.redisson.api.RSemaphore;
import org.redisson.api.RateLimiterConfig;
import org.redisson.api.RateType;
import org.redisson.api.RedissonClient;
import org.redisson.client.codec.Codec;
import org.redisson.client.codec.LongCodec;
import org.redisson.client.codec.StringCodec;
import org.redisson.codec.JsonJacksonCodec;
import org.redisson.codec.TypedJsonJacksonCodec;
import org.redisson.config.Config;

import java.io.BufferedInputStream;
import java.io.ByteArrayOutputStream;
import java.io.Closeable;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.lang.reflect.Constructor;
import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.security.MessageDigest;
import java.net.Socket;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.time.Duration;
import java.time.Instant;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.LocalTime;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.time.ZonedDateTime;
import java.util.Collection;
import java.util.Date;
import java.util.HashSet;
import java.util.Iterator;
import java.util.LinkedHashSet;
import java.util.Set;
import java.util.TreeSet;
import java.util.UUID;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Consumer;
import java.util.function.Function;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Captures golden "interop vectors" from genuine Java Redisson.
 *
 * <p>Every scenario starts from an empty Redis database, creates two Redisson clients (C1, C2) and three actors
 * (T1 and T2 on C1, T3 on C2; each actor is one dedicated Java thread). After each step it records the step's
 * return value, the pub/sub messages the step caused (seen through a raw {@code PSUBSCRIBE *} connection), and the
 * whole normalized Redis state (read through a raw RESP socket, never through Redisson). The normalization and the
 * output format are specified in shared/interop-vectors/README.md.
 *
 * <p>Usage: {@code java -cp classes:<redisson classpath> org.goredisson.interop.VectorCapture
 * --port 6399 --out DIR [--only PREFIX[,PREFIX...]] [--verbose]}
 *
 * <p>The scenario families added later (files codecs2, topics, collections, delayedqueue, mapcache; see
 * shared/interop-vectors/README.md section 8) also record raw commands the recorder sends itself ("raw" steps), a
 * MONITOR-based command log per step (scenarios with a command mode: the recorder then SCRIPT FLUSHes first and names
 * the clients' connections C1/C2), pub/sub registrations, streams, and a few more normalizations. They were recorded
 * with upstream jackson-core 2.14.1 on the classpath instead of Debian's patched 2.14.1 (which misreads 19-digit
 * integers).
 */
public final class VectorCapture {

    // ------------------------------------------------------------------------------------------------ settings
    static int port = 6399;
    static Path outDir = Paths.get("interop-vectors");
    static String only = null;
    static boolean verbose = false;

    /** Default granularity of TTL / relative-score buckets (ms). All scenario timings are multiples of it. */
    static final int GRID = 250;
    /** How long a "start" step lets a blocking operation run before the state is read (ms). */
    static final int SETTLE = 250;
    /** Upper bound of Redisson 3.52's random unlock-latch TTL: (timeout 3000 + EqualJitterDelay(4) <= 2000) * 4. */
    static final long LATCH_TTL_MAX = 20000;
    static final String MARKER = "__vectorcapture_marker__";
    static final Object VOID = new Object() { public String toString() { return "void"; } };

    static final List<String> WARNINGS = new ArrayList<>();

    static synchronized void warn(String s) {
        WARNINGS.add(s);
        System.out.println("WARNING: " + s);
    }

    static void log(String s) {
        if (verbose) {
            System.out.println(s);
        }
    }

    // ------------------------------------------------------------------------------------------------ RESP client
    /** A Redis error reply. */
    static final class RespError {
        final String text;
        RespError(String text) { this.text = text; }
        public String toString() { return "ERR(" + text + ")"; }
    }

    /** Minimal binary-safe RESP2 client: bulk strings come back as byte[]. */
    static final class Resp implements Closeable {
        final Socket sock;
        final BufferedInputStream in;
        final OutputStream out;

        Resp() throws IOException {
            sock = new Socket("127.0.0.1", port);
            sock.setTcpNoDelay(true);
            in = new BufferedInputStream(sock.getInputStream());
            out = sock.getOutputStream();
        }

        synchronized Object cmd(Object... args) throws IOException {
            send(args);
            return read();
        }

        synchronized void send(Object... args) throws IOException {
            ByteArrayOutputStream b = new ByteArrayOutputStream();
            b.write(("*" + args.length + "\r\n").getBytes(StandardCharsets.US_ASCII));
            for (Object a : args) {
                byte[] v = a instanceof byte[] ? (byte[]) a : String.valueOf(a).getBytes(StandardCharsets.UTF_8);
                b.write(("$" + v.length + "\r\n").getBytes(StandardCharsets.US_ASCII));
                b.write(v);
                b.write('\r');
                b.write('\n');
            }
            out.write(b.toByteArray());
            out.flush();
        }

        private String line() throws IOException {
            ByteArrayOutputStream b = new ByteArrayOutputStream();
            int c;
            while ((c = in.read()) != '\r') {
                if (c < 0) {
                    throw new EOFException();
                }
                b.write(c);
            }
            if (in.read() != '\n') {
                throw new IOException("bad RESP line ending");
            }
            return b.toString("UTF-8");
        }

        Object read() throws IOException {
            int t = in.read();
            if (t < 0) {
                throw new EOFException();
            }
            String l = line();
            switch (t) {
                case '+': return l;
                case '-': return new RespError(l);
                case ':': return Long.parseLong(l);
                case '$': {
                    int n = Integer.parseInt(l);
                    if (n < 0) {
                        return null;
                    }
                    byte[] v = new byte[n];
                    int o = 0;
                    while (o < n) {
                        int r = in.read(v, o, n - o);
                        if (r < 0) {
                            throw new EOFException();
                        }
                        o += r;
                    }
                    in.read();
                    in.read();
                    return v;
                }
                case '*': {
                    int n = Integer.parseInt(l);
                    if (n < 0) {
                        return null;
                    }
                    List<Object> list = new ArrayList<>(n);
                    for (int i = 0; i < n; i++) {
                        list.add(read());
                    }
                    return list;
                }
                default:
                    throw new IOException("bad RESP type " + (char) t);
            }
        }

        public void close() throws IOException {
            sock.close();
        }
    }

    static String str(Object o) {
        if (o == null) {
            return null;
        }
        if (o instanceof byte[]) {
            return new String((byte[]) o, StandardCharsets.UTF_8);
        }
        return o.toString();
    }

    @SuppressWarnings("unchecked")
    static List<Object> list(Object o) {
        return (List<Object>) o;
    }

    static String hex(byte[] b) {
        StringBuilder sb = new StringBuilder(b.length * 2);
        for (byte x : b) {
            sb.append(Character.forDigit((x >> 4) & 0xf, 16)).append(Character.forDigit(x & 0xf, 16));
        }
        return sb.toString();
    }

    /** Text if the bytes are valid UTF-8 without control characters, else null. */
    static String asText(byte[] b) {
        try {
            String s = StandardCharsets.UTF_8.newDecoder()
                    .onMalformedInput(CodingErrorAction.REPORT)
                    .onUnmappableCharacter(CodingErrorAction.REPORT)
                    .decode(ByteBuffer.wrap(b)).toString();
            for (int i = 0; i < s.length(); i++) {
                char c = s.charAt(i);
                if (c < 0x20 || c == 0x7f) {
                    return null;
                }
            }
            return s;
        } catch (CharacterCodingException e) {
            return null;
        }
    }

    // ------------------------------------------------------------------------------------------------ pub/sub monitor
    /** One raw connection in PSUBSCRIBE * mode; collects (channel, payload) pairs in arrival order. */
    static final class Monitor implements Closeable {
        final Resp conn;
        final BlockingQueue<byte[][]> queue = new LinkedBlockingQueue<>();
        final Thread thread;

        Monitor() throws IOException {
            this("*");
        }

        /** pattern "*" sees every message; the quiet scenarios use MARKER only (see Scenario.quiet). */
        Monitor(String pattern) throws IOException {
            conn = new Resp();
            conn.send("PSUBSCRIBE", pattern);
            conn.read();
            thread = new Thread(() -> {
                try {
                    while (true) {
                        List<Object> m = list(conn.read());
                        if ("pmessage".equals(str(m.get(0)))) {
                            queue.add(new byte[][] {(byte[]) m.get(2), (byte[]) m.get(3),
                                String.valueOf(System.currentTimeMillis()).getBytes(StandardCharsets.US_ASCII)});
                        }
                    }
                } catch (IOException e) {
                    // closed
                }
            }, "psubscribe-monitor");
            thread.setDaemon(true);
            thread.start();
        }

        /** Publishes sync markers until one arrives (after a pattern change of this connection); drops the rest. */
        void sync(Resp inspector, String token) throws Exception {
            long deadline = System.currentTimeMillis() + 10000;
            for (int n = 0; System.currentTimeMillis() < deadline; n++) {
                String t = token + "#sync" + n;
                inspector.cmd("PUBLISH", MARKER, t);
                byte[][] m = queue.poll(100, TimeUnit.MILLISECONDS);
                while (m != null) {
                    if (MARKER.equals(str(m[0])) && t.equals(str(m[1]))) {
                        queue.clear();
                        return;
                    }
                    m = queue.poll(100, TimeUnit.MILLISECONDS);
                }
            }
            throw new IllegalStateException("sync marker " + token + " not received");
        }

        /** Publishes a marker and returns every message that arrived before it. */
        List<byte[][]> drain(Resp inspector, String token) throws Exception {
            inspector.cmd("PUBLISH", MARKER, token);
            List<byte[][]> got = new ArrayList<>();
            long deadline = System.currentTimeMillis() + 10000;
            while (true) {
                byte[][] m = queue.poll(Math.max(1, deadline - System.currentTimeMillis()), TimeUnit.MILLISECONDS);
                if (m == null) {
                    throw new IllegalStateException("marker " + token + " not received");
                }
                String ch = str(m[0]);
                if (MARKER.equals(ch)) {
                    if (token.equals(str(m[1]))) {
                        return got;
                    }
                    continue;
                }
                got.add(m);
            }
        }

        public void close() throws IOException {
            conn.close();
        }
    }

    // ------------------------------------------------------------------------------------------------ command log
    /** One parsed MONITOR line: the source ("lua" or ip:port) and the raw arguments. */
    static final class MonLine {
        final String source;
        final List<byte[]> args;
        /** Redis's time of the command (ms since the epoch, from the MONITOR line). */
        long tsMs;
        MonLine(String source, List<byte[]> args) { this.source = source; this.args = args; }

        String name() { return args.isEmpty() ? "" : str(args.get(0)).toUpperCase(); }
    }

    /** Parses "1700000000.123456 [0 127.0.0.1:1234] \"CMD\" \"arg\" ..." (sdscatrepr quoting). */
    static MonLine parseMonitor(String line) {
        int lb = line.indexOf('[');
        int rb = line.indexOf(']', lb);
        if (lb < 0 || rb < 0) {
            return null;
        }
        String inside = line.substring(lb + 1, rb);
        int sp = inside.indexOf(' ');
        String source = sp < 0 ? inside : inside.substring(sp + 1);
        List<byte[]> args = new ArrayList<>();
        int i = rb + 1;
        int n = line.length();
        while (i < n) {
            char c = line.charAt(i);
            if (c == ' ') {
                i++;
                continue;
            }
            if (c != '"') {
                throw new IllegalStateException("bad MONITOR line: " + line);
            }
            i++;
            ByteArrayOutputStream b = new ByteArrayOutputStream();
            while (true) {
                char d = line.charAt(i++);
                if (d == '"') {
                    break;
                }
                if (d == '\\') {
                    char e = line.charAt(i++);
                    switch (e) {
                        case 'n': b.write('\n'); break;
                        case 'r': b.write('\r'); break;
                        case 't': b.write('\t'); break;
                        case 'a': b.write(7); break;
                        case 'b': b.write(8); break;
                        case 'x':
                            b.write(Integer.parseInt(line.substring(i, i + 2), 16));
                            i += 2;
                            break;
                        default: b.write(e);
                    }
                } else {
                    b.write(d);
                }
            }
            args.add(b.toByteArray());
        }
        MonLine ml = new MonLine(source, args);
        String ts = line.substring(0, line.indexOf(' '));
        int dot = ts.indexOf('.');
        ml.tsMs = Long.parseLong(ts.substring(0, dot)) * 1000 + Long.parseLong(ts.substring(dot + 1)) / 1000;
        return ml;
    }

    /** A raw connection in MONITOR mode (only for scenarios that record commands). */
    static final class CmdMonitor implements Closeable {
        final Resp conn;
        final BlockingQueue<String> queue = new LinkedBlockingQueue<>();
        final Thread thread;

        CmdMonitor() throws IOException {
            conn = new Resp();
            conn.send("MONITOR");
            conn.read();
            thread = new Thread(() -> {
                try {
                    while (true) {
                        Object o = conn.read();
                        if (o instanceof String) {
                            queue.add((String) o);
                        }
                    }
                } catch (IOException e) {
                    // closed
                }
            }, "command-monitor");
            thread.setDaemon(true);
            thread.start();
        }

        /** Every line before the marker PUBLISH with this token (which the pub/sub drain has just sent). */
        List<MonLine> drain(String token) throws Exception {
            List<MonLine> got = new ArrayList<>();
            long deadline = System.currentTimeMillis() + 10000;
            while (true) {
                String l = queue.poll(Math.max(1, deadline - System.currentTimeMillis()), TimeUnit.MILLISECONDS);
                if (l == null) {
                    throw new IllegalStateException("MONITOR marker " + token + " not received");
                }
                MonLine m = parseMonitor(l);
                if (m == null) {
                    continue;
                }
                if (m.args.size() == 3 && "PUBLISH".equals(m.name()) && MARKER.equals(str(m.args.get(1)))) {
                    if (token.equals(str(m.args.get(2)))) {
                        return got;
                    }
                    continue;
                }
                got.add(m);
            }
        }

        public void close() throws IOException {
            conn.close();
        }
    }

    static final Set<String> CMD_IGNORED = new HashSet<>(Arrays.asList("PING", "CLIENT", "HELLO", "SELECT", "INFO",
            "COMMAND", "READONLY", "ASKING", "QUIT", "ECHO", "AUTH", "CONFIG", "MONITOR"));
    static final Set<String> CMD_PUBSUB = new HashSet<>(Arrays.asList("SUBSCRIBE", "PSUBSCRIBE", "SSUBSCRIBE",
            "UNSUBSCRIBE", "PUNSUBSCRIBE", "SUNSUBSCRIBE", "PUBLISH", "SPUBLISH"));

    static String sha1(byte[] b) {
        try {
            return hex(MessageDigest.getInstance("SHA-1").digest(b));
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }

    /** Script texts seen in SCRIPT LOAD, per output file (sha1 -> text). */
    static final Map<String, TreeMap<String, String>> SCRIPTS = new HashMap<>();

    // ------------------------------------------------------------------------------------------------ normalization
    static final Pattern UUID_RE = Pattern.compile("[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}");
    static final Pattern OWNER_RE = Pattern.compile("<(C\\d+)>:(\\d+)");
    static final Pattern THREAD_ID_MSG_RE = Pattern.compile("thread-id: (\\d+)");
    /** RedissonNonReentrantLock's message: "... is non-reentrant and is already held by thread <id>". */
    static final Pattern HELD_BY_THREAD_RE = Pattern.compile("held by thread (\\d+)");
    static final Pattern HEX32_RE = Pattern.compile("(?<![0-9a-f])[0-9a-f]{32}(?![0-9a-f])");
    static final Pattern LATCH_KEY_RE = Pattern.compile("^(redisson_unlock_latch:.*):([0-9a-f]{32})$");
    /** Normalized name of a rate limiter's grants zset: {@code W:permits} or {@code W:permits:<Cn>}. */
    static final Pattern RL_PERMITS_KEY_RE = Pattern.compile("^.*:permits(:<C\\d+>)?$");
    static final Pattern STREAM_ID_RE = Pattern.compile("^1\\d{12}-\\d+$");
    static final Pattern INT_RE = Pattern.compile("^-?\\d+$");

    /** Maps the random parts of Redis data to stable placeholders; one instance per scenario. */
    static final class Norm {
        final Map<String, String> clients = new HashMap<>();     // uuid -> C1
        final Map<Long, String> threads = new HashMap<>();       // java thread id -> T1
        final Map<String, String> actorClient = new HashMap<>(); // T1 -> C1
        final Map<String, String> reqs = new LinkedHashMap<>();  // 32 hex -> R1
        final Map<String, String> permits = new LinkedHashMap<>(); // 32 hex -> P1
        final String scenario;
        // extended scenarios only (see Scenario.extended())
        boolean extended;
        final Map<String, String> subs = new LinkedHashMap<>();    // 32 hex (reliable topic subscriber) -> S1
        final Map<String, String> streamIds = new LinkedHashMap<>(); // stream entry id -> X1
        final Map<String, String> delayIds = new LinkedHashMap<>(); // 8 random bytes (hex) -> D1
        // localcachedmap file only
        final Map<String, String> lcmInstances = new LinkedHashMap<>(); // 16-byte instance id (hex) -> I1
        final Map<String, String> lcmReqs = new LinkedHashMap<>();      // 16-byte clear request id (hex) -> Q1
        final Map<String, String> logIds = new LinkedHashMap<>();       // 8 random bytes of an updates-log entry -> L1
        boolean lcm;

        Norm(String scenario) { this.scenario = scenario; }

        String sub(String hexId) {
            return subs.computeIfAbsent(hexId, k -> "S" + (subs.size() + 1));
        }

        String delayId(String hex) {
            return delayIds.computeIfAbsent(hex, k -> "D" + (delayIds.size() + 1));
        }

        /** A stream entry id (ms-seq with a wall-clock ms part) -> <Xn>; other text unchanged. */
        String streamId(String s) {
            if (s != null && STREAM_ID_RE.matcher(s).matches()) {
                return "<" + streamIds.computeIfAbsent(s, k -> "X" + (streamIds.size() + 1)) + ">";
            }
            return s;
        }

        /** Extended scenarios: a decimal wall-clock time (|v - now| < 1e10 ms) -> {"rel": bucket}. */
        Object wall(String s, long now, int grid) {
            if (s != null && INT_RE.matcher(s).matches() && s.length() < 19) {
                long v = Long.parseLong(s);
                if (Math.abs(v - now) < 10_000_000_000L) {
                    return one("rel", relBucket(v - now, grid));
                }
            }
            return s;
        }

        String permit(String hexId) {
            return permits.computeIfAbsent(hexId, k -> "P" + (permits.size() + 1));
        }

        String req(String hexId) {
            return reqs.computeIfAbsent(hexId, k -> "R" + (reqs.size() + 1));
        }

        /** Client ids, owner thread ids and already known request/permit ids inside any text. */
        String text(String s) {
            if (s == null) {
                return null;
            }
            Matcher m = UUID_RE.matcher(s);
            StringBuffer sb = new StringBuffer();
            while (m.find()) {
                String c = clients.get(m.group());
                if (c == null && extended) {
                    // the extended scenarios write fixed UUID values of their own: kept as they are
                    m.appendReplacement(sb, Matcher.quoteReplacement(m.group()));
                    continue;
                }
                if (c == null) {
                    warn(scenario + ": unknown UUID " + m.group());
                    c = "U?";
                }
                m.appendReplacement(sb, Matcher.quoteReplacement("<" + c + ">"));
            }
            m.appendTail(sb);
            s = sb.toString();

            m = OWNER_RE.matcher(s);
            sb = new StringBuffer();
            while (m.find()) {
                String t = threads.get(Long.parseLong(m.group(2)));
                String rep = m.group();
                if (t != null) {
                    if (!m.group(1).equals(actorClient.get(t))) {
                        warn(scenario + ": thread " + t + " seen with client " + m.group(1));
                    }
                    rep = "<" + m.group(1) + ">:<" + t + ">";
                } else {
                    warn(scenario + ": unknown thread id in " + s);
                }
                m.appendReplacement(sb, Matcher.quoteReplacement(rep));
            }
            m.appendTail(sb);
            s = sb.toString();

            m = THREAD_ID_MSG_RE.matcher(s);
            sb = new StringBuffer();
            while (m.find()) {
                String t = threads.get(Long.parseLong(m.group(1)));
                m.appendReplacement(sb, Matcher.quoteReplacement(t == null ? m.group() : "thread-id: <" + t + ">"));
            }
            m.appendTail(sb);
            s = sb.toString();

            m = HELD_BY_THREAD_RE.matcher(s);
            sb = new StringBuffer();
            while (m.find()) {
                String t = threads.get(Long.parseLong(m.group(1)));
                // Redisson names the thread that completed the command's future: one of its own or, when the
                // future was already complete, the caller's, so the id is not stable
                m.appendReplacement(sb, Matcher.quoteReplacement("held by thread <thread>"));
            }
            m.appendTail(sb);
            s = sb.toString();

            m = HEX32_RE.matcher(s);
            sb = new StringBuffer();
            while (m.find()) {
                String p = permits.get(m.group());
                String r = reqs.get(m.group());
                if (p == null && r == null) {
                    r = lcmReqs.get(m.group());
                }
                String rep = p != null ? "<" + p + ">" : r != null ? "<" + r + ">" : m.group();
                if (p == null && r == null && lcm) {
                    // in the local cached map file the only 32-hex tokens are clear request ids ({N}:clear:<hex>)
                    rep = "<" + lcmReqs.computeIfAbsent(m.group(), k -> "Q" + (lcmReqs.size() + 1)) + ">";
                } else if (p == null && r == null && extended) {
                    rep = "<" + sub(m.group()) + ">";
                }
                m.appendReplacement(sb, Matcher.quoteReplacement(rep));
            }
            m.appendTail(sb);
            return sb.toString();
        }

        /** A Redis key name; unlock-latch request ids get the next R number if new. */
        String key(String k) {
            Matcher m = LATCH_KEY_RE.matcher(k);
            if (m.matches()) {
                return text(m.group(1)) + ":<" + req(m.group(2)) + ">";
            }
            return text(k);
        }

        /** Key name with an unknown latch id masked (used only to order new ids deterministically). */
        String maskedKey(String k) {
            Matcher m = LATCH_KEY_RE.matcher(k);
            if (m.matches()) {
                String r = reqs.get(m.group(2));
                return text(m.group(1)) + ":<" + (r == null ? "R?" : r) + ">";
            }
            return text(k);
        }

        /** A value stored in Redis: text (normalized) or {"hex": ...}. */
        Object value(byte[] v) {
            String t = asText(v);
            if (t == null) {
                return one("hex", hex(v));
            }
            return text(t);
        }

        /**
         * A zset member: 16-byte permit ids (known, or new in a "...:timeout" zset) become <Pn>; a rate limiter
         * grant (21 bytes in a ":permits" zset: length byte 16, 16 random bytes, uint32 LE permits) becomes
         * {@code <grant n=K>}.
         */
        Object member(String key, byte[] v) {
            if (extended && key.startsWith("redisson_delay_queue_timeout:")) {
                Object d = delayed(v);
                if (d != null) {
                    return d;
                }
            }
            if (lcm && key.startsWith("redisson__cache_updates_log:")) {
                Object d = logEntry(v);
                if (d != null) {
                    return d;
                }
            }
            if (RL_PERMITS_KEY_RE.matcher(text(key)).matches()) {
                if (v.length == 21 && v[0] == 16) {
                    long n = (v[17] & 0xffL) | (v[18] & 0xffL) << 8 | (v[19] & 0xffL) << 16 | (v[20] & 0xffL) << 24;
                    return "<grant n=" + n + ">";
                }
                warn(scenario + ": unexpected member in rate limiter zset " + key + ": " + hex(v));
            }
            if (v.length == 16) {
                String h = hex(v);
                if (permits.containsKey(h) || key.endsWith(":timeout")) {
                    return "<" + permit(h) + ">";
                }
            }
            return value(v);
        }

        String lcmInstance(String hex) {
            String i = lcmInstances.get(hex);
            if (i == null) {
                warn(scenario + ": unknown local cached map instance id " + hex);
                i = "I" + (lcmInstances.size() + 1);
                lcmInstances.put(hex, i);
            }
            return i;
        }

        static int int32(byte[] v, int off) {
            return (v[off] & 0xff) << 24 | (v[off + 1] & 0xff) << 16 | (v[off + 2] & 0xff) << 8 | (v[off + 3] & 0xff);
        }

        /**
         * A message of Redisson's LocalCachedMessageCodec on {NAME}:topic: 0x00 clear (instance id, request id,
         * releaseSemaphore byte), 0x01 invalidate (instance id, int32 count, 16-byte key hashes), 0x02 update
         * (instance id, then per entry int32 key length, key, int32 value length, value). Rendered as {"lcm":
         * {decoded, ids as placeholders}, "hex": the whole message with the ids replaced}; null for other bytes.
         */
        Object lcmMessage(byte[] v) {
            if (v.length < 17) {
                return null;
            }
            int type = v[0] & 0xff;
            String inst = hex(Arrays.copyOfRange(v, 1, 17));
            Map<String, Object> d = new LinkedHashMap<>();
            String tail;
            if (type == 0 && v.length == 34) {
                String req = hex(Arrays.copyOfRange(v, 17, 33));
                d.put("type", "clear");
                d.put("instance", "<" + lcmInstance(inst) + ">");
                String q = lcmReqs.computeIfAbsent(req, k -> "Q" + (lcmReqs.size() + 1));
                d.put("request", "<" + q + ">");
                d.put("release_semaphore", v[33] != 0);
                tail = "<" + q + ">" + hex(Arrays.copyOfRange(v, 33, 34));
            } else if (type == 1 && v.length >= 21 && v.length == 21 + 16L * int32(v, 17)) {
                int n = int32(v, 17);
                List<Object> hashes = new ArrayList<>();
                for (int i = 0; i < n; i++) {
                    hashes.add(hex(Arrays.copyOfRange(v, 21 + 16 * i, 37 + 16 * i)));
                }
                d.put("type", "invalidate");
                d.put("instance", "<" + lcmInstance(inst) + ">");
                d.put("key_hashes", hashes);
                tail = hex(Arrays.copyOfRange(v, 17, v.length));
            } else if (type == 2 && v.length > 17) {
                List<Object> entries = new ArrayList<>();
                int off = 17;
                while (off < v.length) {
                    if (off + 4 > v.length) {
                        return null;
                    }
                    int kl = int32(v, off);
                    if (kl < 0 || off + 4 + kl + 4 > v.length) {
                        return null;
                    }
                    byte[] k = Arrays.copyOfRange(v, off + 4, off + 4 + kl);
                    off += 4 + kl;
                    int vl = int32(v, off);
                    if (vl < 0 || off + 4 + vl > v.length) {
                        return null;
                    }
                    byte[] val = Arrays.copyOfRange(v, off + 4, off + 4 + vl);
                    off += 4 + vl;
                    entries.add(Arrays.asList(value(k), value(val)));
                }
                d.put("type", "update");
                d.put("instance", "<" + lcmInstance(inst) + ">");
                d.put("entries", entries);
                tail = hex(Arrays.copyOfRange(v, 17, v.length));
            } else {
                return null;
            }
            Map<String, Object> m = new LinkedHashMap<>();
            m.put("lcm", d);
            m.put("hex", String.format("%02x", type) + "<" + lcmInstance(inst) + ">" + tail);
            return m;
        }

        /**
         * A member of redisson__cache_updates_log:{NAME}: the 16-byte key hash, ':', 8 random bytes. Rendered as
         * {"log_entry": {"key_hash": hex, "id": "<Ln>"}, "hex": "<hash hex>3a<Ln>"}; null for other bytes.
         */
        Object logEntry(byte[] v) {
            if (v.length != 25 || v[16] != ':') {
                return null;
            }
            String h = hex(Arrays.copyOfRange(v, 0, 16));
            String id = logIds.computeIfAbsent(hex(Arrays.copyOfRange(v, 17, 25)), k -> "L" + (logIds.size() + 1));
            Map<String, Object> d = new LinkedHashMap<>();
            d.put("key_hash", h);
            d.put("id", "<" + id + ">");
            Map<String, Object> m = new LinkedHashMap<>();
            m.put("log_entry", d);
            m.put("hex", h + "3a<" + id + ">");
            return m;
        }

        /**
         * A delayed-queue entry: struct.pack('Bc0Lc0', 8, <8 random bytes>, len(value), value), i.e. one length byte
         * (8), the random id, the value length as 8-byte little-endian unsigned, the encoded value. Rendered as
         * {"delayed": {"id": "<Dn>", "value": <value as in 4.1>, "hex": <the whole member in hex, id bytes replaced by
         * <Dn>>}}; null if the bytes do not have this layout.
         */
        Object delayed(byte[] v) {
            if (v.length < 17 || (v[0] & 0xff) != 8) {
                return null;
            }
            long len = 0;
            for (int i = 0; i < 8; i++) {
                len |= (v[9 + i] & 0xffL) << (8 * i);
            }
            if (len != v.length - 17) {
                return null;
            }
            byte[] id = Arrays.copyOfRange(v, 1, 9);
            byte[] val = Arrays.copyOfRange(v, 17, v.length);
            String d = delayId(hex(id));
            Map<String, Object> m = new LinkedHashMap<>();
            m.put("id", "<" + d + ">");
            m.put("value", value(val));
            m.put("hex", "08<" + d + ">" + hex(Arrays.copyOfRange(v, 9, 17)) + hex(val));
            return one("delayed", m);
        }
    }

    static Map<String, Object> one(String k, Object v) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put(k, v);
        return m;
    }

    /** Interval bucket for a TTL or a relative time: negative values kept, else (G*(k-1), G*k] with k=ceil(v/G). */
    static Object bucket(long v, int grid) {
        if (v < 0) {
            return v;
        }
        long k = (v + grid - 1) / grid;
        return Arrays.asList(k * grid - grid, k * grid);
    }

    static Object relBucket(long v, int grid) {
        long k = Math.floorDiv(v + grid - 1, grid);
        return Arrays.asList(k * grid - grid, k * grid);
    }

    // ------------------------------------------------------------------------------------------------ result markers
    /** A returned TTL in ms (bucketed like PTTL). */
    static final class Ttl {
        final long v;
        Ttl(long v) { this.v = v; }
    }

    /** A returned permit id (or list of them) of a permit-expirable semaphore. */
    static final class Permit {
        final Object v;
        Permit(Object v) { this.v = v; }
    }

    /** A value read back through a codec: rendered with its Java class and an equality check. */
    static final class Decoded {
        final Object v;
        final Object written;
        Decoded(Object v, Object written) { this.v = v; this.written = written; }
    }

    /**
     * Extended scenarios: a value read back through a codec, rendered as {"class", "value", "types" (classes of
     * nested values, for containers and POJOs), and "equals_written"/"equals_expected" when a comparison value is
     * given}.
     */
    static final class Got {
        final Object v;
        final Object expected;
        final String label;
        Got(Object v, Object expected, String label) { this.v = v; this.expected = expected; this.label = label; }
    }

    static Got got(Object v) { return new Got(v, null, null); }

    static Got gotWritten(Object v, Object written) { return new Got(v, written, "equals_written"); }

    static Got gotExpected(Object v, Object expected) { return new Got(v, expected, "equals_expected"); }

    /** Deep equality that compares arrays by content. */
    static boolean deepEq(Object a, Object b) {
        return Objects.deepEquals(a, b);
    }

    static Ttl ttl(long v) { return new Ttl(v); }

    /** A raw-command argument: the recorder's wall clock (ms) plus ms, recorded as {"now_plus_ms": ms}. */
    static final class NowPlus {
        final long ms;
        NowPlus(long ms) { this.ms = ms; }
    }

    static Permit permit(Object v) { return new Permit(v); }

    // ------------------------------------------------------------------------------------------------ scenario model
    interface Body {
        void run(Run r) throws Exception;
    }

    static final class Scenario {
        final String file;
        final String name;
        final String description;
        final Body body;
        long watchdogMs = 30000;
        int grid = GRID;
        final List<String> notes = new ArrayList<>();

        Scenario(String file, String name, String description, Body body) {
            this.file = file;
            this.name = name;
            this.description = description;
            this.body = body;
        }

        Scenario watchdog(long ms) { this.watchdogMs = ms; return this; }

        Scenario grid(int g) { this.grid = g; return this; }

        Scenario note(String n) { notes.add(n); return this; }

        // ---- options used only by the scenario families added later (codecs2, topics, collections,
        // delayedqueue, mapcache); the original scenarios never set them, so their records are unchanged
        /** Extra client configuration, applied to both clients and listed in the record's config. */
        final Map<String, Object> extraConfig = new LinkedHashMap<>();
        final List<Consumer<Config>> configurers = new ArrayList<>();
        /** null: no command log; "data": every data command of the clients (and inside their scripts);
         *  "pubsub": only (S|P)SUBSCRIBE/(S|P)UNSUBSCRIBE/(S)PUBLISH. Needs MONITOR. */
        String commands;
        /** Record the pub/sub registrations (PUBSUB CHANNELS / NUMPAT / SHARDCHANNELS) after every step. */
        boolean pubsub;

        Scenario config(String key, Object value, Consumer<Config> c) {
            extraConfig.put(key, value);
            configurers.add(c);
            return this;
        }

        Scenario commands(String mode) { this.commands = mode; return this; }

        Scenario pubsub() { this.pubsub = true; return this; }

        /**
         * The recorder does not subscribe to the objects' channels (its pub/sub connection listens to its marker
         * only): for objects that wait for as many answers as PUBLISH counted receivers (adders' sum/reset, a local
         * cached map's clearLocalCache), a PSUBSCRIBE * would be counted and never answer. The step's messages are
         * then the PUBLISH commands seen by MONITOR (needs a command mode).
         */
        boolean quiet;

        Scenario quiet() { this.quiet = true; if (commands == null) { commands = "data"; } return this; }

        /**
         * A quiet scenario whose command log is recorded without the parts that depend on timing: RSemaphore acquire
         * attempts (EVALSHA with one key ending in ":semaphore", with their script lines), (UN)SUBSCRIBEs of
         * redisson_sc:* channels, and the permit count a release PUBLISHes ("<permits>"). Used by the adders.
         */
        boolean semaphoreFilter;

        Scenario semaphoreFilter() { this.semaphoreFilter = true; return this; }

        /** Command arguments that are wall-clock times more than one grid step in the past: {"clock_ms": "past"}. */
        boolean pastClock;

        Scenario pastClock() { this.pastClock = true; return this; }

        boolean extended() { return EXTENDED_FILES.contains(file); }
    }

    /** Files written by the scenario families added after the first 53 scenarios (extended record rules). */
    static final Set<String> EXTENDED_FILES = new HashSet<>(Arrays.asList(
            "codecs2", "topics", "collections", "delayedqueue", "mapcache", "localcachedmap", "spinlock",
            "nonreentrantlock", "nonreentrantfairlock", "idgenerator", "atomicdouble", "longadder", "doubleadder",
            "buckets",
            "bloomfilter", "bitset", "hyperloglog"));
    /** Files whose string values also carry their exact bytes as "hex". */
    static final Set<String> HEX_FILES = new HashSet<>(Arrays.asList("codecs", "codecs2"));

    static final List<Scenario> ALL = new ArrayList<>();

    static Scenario sc(String file, String name, String description, Body body) {
        Scenario s = new Scenario(file, name, description, body);
        ALL.add(s);
        return s;
    }

    static Map<String, Object> A(Object... kv) {
        Map<String, Object> m = new LinkedHashMap<>();
        for (int i = 0; i < kv.length; i += 2) {
            m.put((String) kv[i], kv[i + 1]);
        }
        return m;
    }

    /** One actor: a dedicated thread bound to one client. */
    static final class Actor {
        final String name;
        final String client;
        final ExecutorService ex;
        final long tid;
        Future<Object> pending;
        String pendingOp;
        String pendingObject;

        Actor(String name, String client) throws Exception {
            this.name = name;
            this.client = client;
            this.ex = Executors.newSingleThreadExecutor(r -> {
                Thread t = new Thread(r, "actor-" + name);
                t.setDaemon(true);
                return t;
            });
            this.tid = ex.submit(() -> Thread.currentThread().getId()).get();
        }
    }

    /** Running state of one scenario; the scenario bodies call its step methods. */
    static final class Run {
        final Scenario sc;
        final Resp insp;
        final Monitor mon;
        final Norm norm;
        final Map<String, RedissonClient> clients = new LinkedHashMap<>();
        final Map<String, Actor> actors = new LinkedHashMap<>();
        final Map<String, Object> objects = new HashMap<>();
        final List<Object> steps = new ArrayList<>();
        int stepNo = 0;
        /** MONITOR connection of a scenario that records commands (else null). */
        CmdMonitor cmdMon;
        /** Marker-only pub/sub connection of a quiet scenario (else null; see Scenario.quiet). */
        Monitor quietMon;
        /** ip:port of every connection seen in MONITOR -> "C1"/"C2" (client name) or "-" (the recorder). */
        final Map<String, String> connOwner = new HashMap<>();

        Run(Scenario sc, Resp insp, Monitor mon) {
            this.sc = sc;
            this.insp = insp;
            this.mon = mon;
            this.norm = new Norm(sc.name);
            this.norm.extended = sc.extended();
            this.norm.lcm = sc.file.equals("localcachedmap");
        }

        void setUp() throws Exception {
            for (String c : Arrays.asList("C1", "C2")) {
                Config cfg = new Config();
                cfg.setCodec(StringCodec.INSTANCE);
                cfg.setLockWatchdogTimeout(sc.watchdogMs);
                cfg.useSingleServer().setAddress("redis://127.0.0.1:" + port);
                for (Consumer<Config> k : sc.configurers) {
                    k.accept(cfg);
                }
                if (sc.commands != null) {
                    // names the connections, so that the MONITOR lines can be attributed to C1 / C2
                    cfg.useSingleServer().setClientName(c);
                }
                RedissonClient rc = Redisson.create(cfg);
                clients.put(c, rc);
                norm.clients.put(rc.getId(), c);
            }
            String[][] spec = {{"T1", "C1"}, {"T2", "C1"}, {"T3", "C2"}};
            for (String[] a : spec) {
                Actor actor = new Actor(a[0], a[1]);
                actors.put(a[0], actor);
                norm.threads.put(actor.tid, a[0]);
                norm.actorClient.put(a[0], a[1]);
            }
        }

        void tearDown() {
            for (Actor a : actors.values()) {
                if (a.pending != null && !a.pending.isDone()) {
                    warn(sc.name + ": " + a.name + " still pending at the end: " + a.pendingOp);
                    a.pending.cancel(true);
                }
                a.ex.shutdownNow();
            }
            for (RedissonClient c : clients.values()) {
                c.shutdown();
            }
            if (cmdMon != null) {
                try {
                    cmdMon.close();
                } catch (IOException e) {
                    // ignore
                }
            }
        }

        RedissonClient client(String actor) {
            return clients.get(actors.get(actor).client);
        }

        @SuppressWarnings("unchecked")
        <T> T obj(String actor, String kind, String name, Function<RedissonClient, T> f) {
            return (T) objects.computeIfAbsent(actor + "|" + kind + "|" + name, k -> f.apply(client(actor)));
        }

        RLock lock(String actor, String name) { return obj(actor, "lock", name, c -> c.getLock(name)); }

        RLock fair(String actor, String name) { return obj(actor, "fair", name, c -> c.getFairLock(name)); }

        RReadWriteLock rw(String actor, String name) { return obj(actor, "rw", name, c -> c.getReadWriteLock(name)); }

        RSemaphore sem(String actor, String name) { return obj(actor, "sem", name, c -> c.getSemaphore(name)); }

        RPermitExpirableSemaphore pes(String actor, String name) {
            return obj(actor, "pes", name, c -> c.getPermitExpirableSemaphore(name));
        }

        RCountDownLatch latch(String actor, String name) {
            return obj(actor, "latch", name, c -> c.getCountDownLatch(name));
        }

        RFencedLock fenced(String actor, String name) { return obj(actor, "fenced", name, c -> c.getFencedLock(name)); }

        RRateLimiter rl(String actor, String name) { return obj(actor, "rl", name, c -> c.getRateLimiter(name)); }

        // -------------------------------------------------------------------- steps
        private Map<String, Object> newRec(String kind, String actor, String object, String op,
                                           Map<String, Object> args, String java) {
            Map<String, Object> rec = new LinkedHashMap<>();
            rec.put("step", ++stepNo);
            rec.put("kind", kind);
            if (actor != null) {
                rec.put("actor", actor);
                rec.put("client", actors.get(actor).client);
            }
            if (object != null) {
                rec.put("object", object);
            }
            if (op != null) {
                rec.put("op", op);
            }
            if (args != null && !args.isEmpty()) {
                Map<String, Object> na = new LinkedHashMap<>();
                for (Map.Entry<String, Object> e : args.entrySet()) {
                    na.put(e.getKey(), renderArg(e.getValue()));
                }
                rec.put("args", na);
            }
            if (java != null) {
                rec.put("java", java);
            }
            return rec;
        }

        Object renderArg(Object v) {
            if (v instanceof String) {
                return norm.text((String) v);
            }
            if (v instanceof List) {
                List<Object> out = new ArrayList<>();
                for (Object o : (List<?>) v) {
                    out.add(renderArg(o));
                }
                return out;
            }
            return v;
        }

        private void putOutcome(Map<String, Object> rec, Object result, Throwable err, String prefix) {
            if (err != null) {
                rec.put(prefix + "ok", false);
                rec.put(prefix + "error", renderError(err));
            } else {
                rec.put(prefix + "ok", true);
                if (result != VOID) {
                    rec.put(prefix + "result", render(result));
                }
            }
        }

        /** Exception class and normalized message, with its cause chain (Redisson often wraps the real error). */
        Map<String, Object> renderError(Throwable err) {
            Map<String, Object> e = new LinkedHashMap<>();
            e.put("class", err.getClass().getName());
            String msg = err.getMessage();
            // Redisson appends the connection (ids, local port) and the command with its arguments to a Redis
            // error reply: "<reply>. channel: [id: ...] command: ..., params: [...]"; only the reply is kept
            int cut = msg == null ? -1 : msg.indexOf(". channel: [id: ");
            if (cut >= 0) {
                msg = msg.substring(0, cut);
            }
            e.put("message", norm.text(msg));
            if (err.getCause() != null && err.getCause() != err) {
                e.put("cause", renderError(err.getCause()));
            }
            return e;
        }

        Object render(Object v) {
            if (sc.extended() && (v instanceof Double || v instanceof Float || v instanceof BigDecimal
                    || v instanceof BigInteger)) {
                return plain2(v);
            }
            if (v == null || v instanceof Boolean || v instanceof Number) {
                return v;
            }
            if (v instanceof Ttl) {
                return bucket(((Ttl) v).v, sc.grid);
            }
            if (v instanceof Permit) {
                Object p = ((Permit) v).v;
                if (p == null) {
                    return null;
                }
                if (p instanceof List) {
                    List<Object> out = new ArrayList<>();
                    for (Object o : (List<?>) p) {
                        out.add("<" + norm.permit((String) o) + ">");
                    }
                    return out;
                }
                return "<" + norm.permit((String) p) + ">";
            }
            if (v instanceof Got) {
                Got g = (Got) v;
                Map<String, Object> m = new LinkedHashMap<>();
                m.put("class", g.v == null ? null : g.v.getClass().getName());
                m.put("value", textify(plain2(g.v)));
                if (isStructured(g.v)) {
                    m.put("types", types(g.v));
                }
                if (g.label != null) {
                    m.put(g.label, deepEq(g.v, g.expected));
                }
                return m;
            }
            if (sc.extended()) {
                if (v instanceof Collection && !(v instanceof List)) {
                    return render(new ArrayList<>((Collection<?>) v));
                }
                if (v instanceof byte[]) {
                    return norm.value((byte[]) v);
                }
                if (v instanceof Date || v instanceof UUID || v instanceof Enum) {
                    return textify(plain2(v));
                }
            }
            if (v instanceof Decoded) {
                Decoded d = (Decoded) v;
                Map<String, Object> m = new LinkedHashMap<>();
                m.put("class", d.v == null ? null : d.v.getClass().getName());
                m.put("value", plain(d.v));
                m.put("equals_written", Objects.equals(d.v, d.written));
                return m;
            }
            if (v instanceof String) {
                return norm.text((String) v);
            }
            if (v instanceof Map) {
                Map<String, Object> m = new LinkedHashMap<>();
                for (Map.Entry<?, ?> e : ((Map<?, ?>) v).entrySet()) {
                    m.put(String.valueOf(e.getKey()), render(e.getValue()));
                }
                return m;
            }
            if (v instanceof List) {
                List<Object> out = new ArrayList<>();
                for (Object o : (List<?>) v) {
                    out.add(render(o));
                }
                return out;
            }
            return norm.text(v.toString());
        }

        /** Applies the text normalization to every string inside a plain2() result. */
        Object textify(Object o) {
            if (o instanceof String) {
                return norm.text((String) o);
            }
            if (o instanceof Map) {
                Map<String, Object> m = new LinkedHashMap<>();
                for (Map.Entry<?, ?> e : ((Map<?, ?>) o).entrySet()) {
                    m.put(norm.text(String.valueOf(e.getKey())), textify(e.getValue()));
                }
                return m;
            }
            if (o instanceof List) {
                List<Object> out = new ArrayList<>();
                for (Object x : (List<?>) o) {
                    out.add(textify(x));
                }
                return out;
            }
            return o;
        }

        private static Throwable unwrap(Throwable t) {
            while ((t instanceof ExecutionException || t instanceof java.util.concurrent.CompletionException)
                    && t.getCause() != null) {
                t = t.getCause();
            }
            return t;
        }

        private void complete(Map<String, Object> rec, String... awaitActors) throws Exception {
            if (awaitActors.length > 0) {
                List<Object> done = new ArrayList<>();
                for (String w : awaitActors) {
                    Actor a = actors.get(w);
                    Map<String, Object> c = new LinkedHashMap<>();
                    c.put("actor", w);
                    c.put("object", a.pendingObject);
                    c.put("op", a.pendingOp);
                    Object res = null;
                    Throwable err = null;
                    try {
                        res = a.pending.get(30, TimeUnit.SECONDS);
                    } catch (ExecutionException e) {
                        err = unwrap(e);
                    } catch (TimeoutException e) {
                        err = e;
                        warn(sc.name + " step " + rec.get("step") + ": " + w + " did not complete");
                    }
                    a.pending = null;
                    a.pendingOp = null;
                    putOutcome(c, res, err, "");
                    done.add(c);
                }
                rec.put("completed", done);
            }
            finish(rec);
        }

        private void finish(Map<String, Object> rec) throws Exception {
            Object settle = rec.get("settle_ms");
            if (settle != null) {
                Thread.sleep(((Number) settle).longValue());
            }
            String token = sc.name + "#" + rec.get("step");
            long now = System.currentTimeMillis();
            List<byte[][]> msgs = (quietMon != null ? quietMon : mon).drain(insp, token);
            List<MonLine> lines = cmdMon != null ? cmdMon.drain(token) : null;
            if (quietMon != null) {
                // messages as published (MONITOR: PUBLISH by a client or inside a script), in execution order
                msgs = new ArrayList<>();
                for (MonLine l : lines) {
                    String n = l.name();
                    if ((n.equals("PUBLISH") || n.equals("SPUBLISH")) && l.args.size() == 3
                            && !MARKER.equals(str(l.args.get(1))) && !"-".equals(owner(l.source))) {
                        msgs.add(new byte[][] {l.args.get(1), l.args.get(2),
                            String.valueOf(l.tsMs).getBytes(StandardCharsets.US_ASCII)});
                    }
                }
            }
            List<Object> m = new ArrayList<>();
            for (byte[][] x : msgs) {
                Object lm = norm.lcm ? norm.lcmMessage(x[1]) : null;
                Object payload = lm != null ? lm : norm.value(x[1]);
                if (sc.extended() && payload instanceof String) {
                    // a wall-clock payload (a delayed queue's due time) relative to when the recorder received it
                    payload = norm.wall((String) payload, Long.parseLong(str(x[2])), sc.grid);
                }
                m.add(Arrays.asList(norm.text(str(x[0])), payload));
            }
            rec.put("messages", m);
            if (cmdMon != null && sc.semaphoreFilter) {
                rec.put("commands", semaphoreFiltered(commandLog(lines)));
            } else if (cmdMon != null && !sc.quiet) {
                // quiet scenarios use MONITOR for their messages only: their command logs (semaphore acquire
                // retries, which client releases first) depend on timing
                rec.put("commands", commandLog(lines));
            }
            if (sc.pubsub) {
                rec.put("pubsub", pubsubState());
            }
            rec.put("state", snapshot("step " + rec.get("step")));
            steps.add(rec);
            log("  " + rec.get("step") + " " + rec.get("actor") + " " + rec.get("op") + " -> "
                    + (rec.containsKey("result") ? rec.get("result") : rec.get("ok")) + " msgs=" + m);
        }

        /** Run an operation on the actor's thread and wait for it; optionally wait for other actors' pending ops. */
        Object call(String actor, String object, String op, Map<String, Object> args, String java,
                    Callable<Object> body, String... awaitActors) throws Exception {
            return callSettle(actor, object, op, args, java, 0, body, awaitActors);
        }

        /**
         * As call(); with settleMs > 0 the record gets "settle_ms" and the recorder sleeps that long after the call
         * (and its completed waits) before it reads messages and state: for objects that finish their work
         * asynchronously (listeners, reliable-topic acks, delayed-queue transfer tasks).
         */
        Object callSettle(String actor, String object, String op, Map<String, Object> args, String java,
                          int settleMs, Callable<Object> body, String... awaitActors) throws Exception {
            Map<String, Object> rec = newRec("call", actor, object, op, args, java);
            Actor a = actors.get(actor);
            if (a.pending != null) {
                throw new IllegalStateException(actor + " is busy with " + a.pendingOp);
            }
            Object res = null;
            Throwable err = null;
            try {
                res = a.ex.submit(body).get(30, TimeUnit.SECONDS);
            } catch (ExecutionException e) {
                err = unwrap(e);
            }
            putOutcome(rec, res, err, "");
            if (settleMs > 0) {
                rec.put("settle_ms", settleMs);
            }
            complete(rec, awaitActors);
            return res instanceof Permit ? ((Permit) res).v : res;
        }

        /** A command the recorder itself sends over its raw connection (what another client, e.g. Go, would send). */
        Object raw(String why, Object... cmd) throws Exception {
            Map<String, Object> rec = newRec("raw", null, null, null, null, null);
            long now = System.currentTimeMillis();
            List<Object> shown = new ArrayList<>();
            Object[] sent = new Object[cmd.length];
            for (int i = 0; i < cmd.length; i++) {
                Object a = cmd[i];
                if (a instanceof NowPlus) {
                    sent[i] = String.valueOf(now + ((NowPlus) a).ms);
                    shown.add(one("now_plus_ms", ((NowPlus) a).ms));
                } else if (a instanceof byte[]) {
                    sent[i] = a;
                    Object d = norm.lcm ? norm.lcmMessage((byte[]) a) : norm.delayed((byte[]) a);
                    shown.add(d != null ? d : norm.value((byte[]) a));
                } else {
                    sent[i] = String.valueOf(a);
                    shown.add(norm.text(String.valueOf(a)));
                }
            }
            rec.put("command", shown);
            rec.put("why", why);
            Object reply = insp.cmd(sent);
            Object r = reply instanceof byte[] ? norm.value((byte[]) reply)
                    : reply instanceof RespError ? one("error", ((RespError) reply).text) : reply;
            rec.put("reply", r);
            finish(rec);
            return reply;
        }

        /**
         * Cuts a client's subscriber connection (the one subscribed to channel) and keeps it from reconnecting: sets
         * maxclients to one below the number of connections, then CLIENT KILLs it, so Redis refuses every new
         * connection until maxclients is restored (reconnect(): a raw CONFIG SET maxclients 10000).
         */
        void cutSubscriber(String client, String channel) throws Exception {
            Map<String, Object> rec = newRec("raw", null, null, null, null, null);
            String id = null;
            for (String l : str(insp.cmd("CLIENT", "LIST")).split("\n")) {
                String cid = null;
                String name = "";
                for (String f : l.trim().split(" ")) {
                    if (f.startsWith("id=")) {
                        cid = f.substring(3);
                    } else if (f.startsWith("name=")) {
                        name = f.substring(5);
                    }
                }
                if (name.equals(client) && cid != null) {
                    // the client's connection with channel subscriptions (its pattern subscriptions may be on another)
                    if (l.matches(".* sub=[1-9]\\d* .*")) {
                        id = cid;
                    }
                }
            }
            if (id == null) {
                throw new IllegalStateException("no subscriber connection of " + client);
            }
            String info = str(insp.cmd("INFO", "clients"));
            long connected = 0;
            for (String l : info.split("\r\n")) {
                if (l.startsWith("connected_clients:")) {
                    connected = Long.parseLong(l.substring("connected_clients:".length()).trim());
                }
            }
            insp.cmd("CONFIG", "SET", "maxclients", String.valueOf(connected - 1));
            Object reply = insp.cmd("CLIENT", "KILL", "ID", id);
            rec.put("command", Arrays.asList("CONFIG", "SET", "maxclients", "<connected clients - 1>", "+",
                    "CLIENT", "KILL", "ID", "<" + client + "'s connection subscribed to " + channel + ">"));
            rec.put("why", "cut " + client + "'s subscriber connection and refuse new connections, so that it"
                    + " misses the next messages and cannot resubscribe until maxclients is restored");
            rec.put("reply", reply instanceof RespError ? one("error", ((RespError) reply).text) : reply);
            finish(rec);
        }

        /** Channels with subscribers, number of patterns (without the recorder's own "*") and shard channels. */
        Map<String, Object> pubsubState() throws IOException {
            Map<String, Object> p = new LinkedHashMap<>();
            List<String> ch = new ArrayList<>();
            for (Object o : list(insp.cmd("PUBSUB", "CHANNELS"))) {
                if (!MARKER.equals(str(o))) {
                    ch.add(norm.text(str(o)));
                }
            }
            Collections.sort(ch);
            p.put("channels", ch);
            p.put("patterns", (Long) insp.cmd("PUBSUB", "NUMPAT") - 1);
            List<String> sch = new ArrayList<>();
            for (Object o : list(insp.cmd("PUBSUB", "SHARDCHANNELS"))) {
                sch.add(norm.text(str(o)));
            }
            Collections.sort(sch);
            p.put("shard_channels", sch);
            return p;
        }

        /** ip:port -> C1/C2 by the connections' names (CLIENT LIST); the recorder's own connections -> "-". */
        String owner(String addr) throws IOException {
            if ("lua".equals(addr)) {
                return "lua";
            }
            String o = connOwner.get(addr);
            if (o == null) {
                for (String l : str(insp.cmd("CLIENT", "LIST")).split("\n")) {
                    String a = null;
                    String name = "";
                    for (String f : l.trim().split(" ")) {
                        if (f.startsWith("addr=")) {
                            a = f.substring(5);
                        } else if (f.startsWith("name=")) {
                            name = f.substring(5);
                        }
                    }
                    if (a != null) {
                        connOwner.put(a, name.isEmpty() ? "-" : name);
                    }
                }
                o = connOwner.get(addr);
                if (o == null) {
                    warn(sc.name + ": unknown connection " + addr + " in MONITOR");
                    o = "?";
                    connOwner.put(addr, o);
                }
            }
            return o;
        }

        /** The step's commands: [source, name, args...], source C1/C2 or "lua" (inside a script). */
        List<Object> commandLog(List<MonLine> lines) throws IOException {
            List<List<Object>> out = new ArrayList<>();
            List<String> owners = new ArrayList<>();   // per entry of out: the client it belongs to
            String lastClient = "?";
            for (MonLine l : lines) {
                if (!"lua".equals(l.source) && CMD_IGNORED.contains(l.name())) {
                    // connection housekeeping (also of connections that closed before CLIENT LIST could name them)
                    continue;
                }
                String who = "lua".equals(l.source) ? "lua" : owner(l.source);
                if ("-".equals(who)) {
                    continue;
                }
                String name = l.name();
                if (!"lua".equals(who) && "SCRIPT".equals(name) && l.args.size() == 3
                        && "LOAD".equalsIgnoreCase(str(l.args.get(1)))) {
                    // Redisson sends EVALSHA, and on NOSCRIPT loads the script and sends EVALSHA again:
                    // keep one EVALSHA per call (the recorder flushes the script cache before the scenario)
                    String sha = sha1(l.args.get(2));
                    SCRIPTS.computeIfAbsent(sc.file, k -> new TreeMap<>()).put(sha, str(l.args.get(2)));
                    for (int i = out.size() - 1; i >= 0; i--) {
                        List<Object> c = out.get(i);
                        if (who.equals(c.get(0)) && String.valueOf(c.get(1)).startsWith("EVALSHA")
                                && sha.equals(c.get(2))) {
                            out.remove(i);
                            owners.remove(i);
                            break;
                        }
                    }
                    continue;
                }
                if (!"lua".equals(who)) {
                    lastClient = who;
                }
                if (CMD_IGNORED.contains(name)) {
                    continue;
                }
                if ("pubsub".equals(sc.commands) && !CMD_PUBSUB.contains(name)) {
                    continue;
                }
                List<Object> c = new ArrayList<>();
                c.add(who);
                c.add(str(l.args.get(0)));
                for (int i = 1; i < l.args.size(); i++) {
                    c.add(cmdArg(l.args.get(i), l.tsMs));
                }
                out.add(c);
                owners.add(lastClient);
            }
            // grouped by client (C1's, then C2's), each client's commands in execution order; a script's
            // commands ("lua") stay after the EVALSHA that ran them
            List<Integer> idx = new ArrayList<>();
            for (int i = 0; i < out.size(); i++) {
                idx.add(i);
            }
            idx.sort((x, y) -> {
                int c = owners.get(x).compareTo(owners.get(y));
                return c != 0 ? c : Integer.compare(x, y);
            });
            List<Object> res = new ArrayList<>();
            for (int i : idx) {
                res.add(latchTtl(out.get(i)));
            }
            return res;
        }

        /** See Scenario.semaphoreFilter. */
        List<Object> semaphoreFiltered(List<Object> log) {
            List<Object> out = new ArrayList<>();
            boolean dropping = false;
            for (Object o : log) {
                @SuppressWarnings("unchecked")
                List<Object> c = (List<Object>) o;
                String src = String.valueOf(c.get(0));
                String name = String.valueOf(c.get(1)).toUpperCase();
                if (!src.equals("lua")) {
                    dropping = false;
                }
                if (dropping) {
                    continue;
                }
                if (name.startsWith("EVALSHA") && c.size() == 6 && "1".equals(c.get(3))
                        && String.valueOf(c.get(4)).endsWith(":semaphore")) {
                    dropping = true;
                    continue;
                }
                if ((name.equals("SUBSCRIBE") || name.equals("UNSUBSCRIBE"))
                        && String.valueOf(c.get(2)).startsWith("redisson_sc:")) {
                    continue;
                }
                if (name.equals("PUBLISH") && c.size() == 4 && String.valueOf(c.get(2)).startsWith("redisson_sc:")) {
                    c = new ArrayList<>(c);
                    c.set(3, "<permits>");
                }
                out.add(c);
            }
            return out;
        }

        /**
         * A command that names an unlock latch (redisson_unlock_latch:...): its TTL argument is a random 16000-20000 ms
         * (README 4.7), recorded as "<latch ttl>".
         */
        List<Object> latchTtl(List<Object> c) {
            boolean latch = false;
            for (Object o : c) {
                latch |= o instanceof String && ((String) o).startsWith("redisson_unlock_latch:");
            }
            if (!latch) {
                return c;
            }
            List<Object> out = new ArrayList<>();
            for (Object o : c) {
                if (o instanceof String && INT_RE.matcher((String) o).matches() && ((String) o).length() == 5) {
                    long v = Long.parseLong((String) o);
                    if (v >= 16000 && v <= LATCH_TTL_MAX) {
                        o = "<latch ttl>";
                    }
                }
                out.add(o);
            }
            return out;
        }

        Object cmdArg(byte[] a, long now) {
            if (norm.lcm) {
                Object d = norm.logEntry(a);
                if (d == null && asText(a) == null) {
                    d = norm.lcmMessage(a);
                }
                if (d != null) {
                    return d;
                }
            }
            if (sc.file.equals("delayedqueue")) {
                Object d = norm.delayed(a);
                if (d != null) {
                    return d;
                }
            }
            String t = asText(a);
            if (t == null) {
                if (a.length == 8 && sc.file.equals("delayedqueue")) {
                    return "<" + norm.delayId(hex(a)) + ">";
                }
                return one("hex", hex(a));
            }
            String x = norm.streamId(t);
            if (!x.equals(t)) {
                return x;
            }
            Object w = norm.wall(t, now, sc.grid);
            if (w != t) {
                if (sc.pastClock && Long.parseLong(t) < now - sc.grid) {
                    // e.g. a local cached map's time of its last message, read back after a reconnection
                    return one("clock_ms", "past");
                }
                return w;
            }
            return norm.key(t);
        }

        /** Read-only queries run one after another on the actor's thread, recorded as one step. */
        void query(String actor, String object, Object... namesAndBodies) throws Exception {
            Map<String, Object> rec = newRec("query", actor, object, "query", null, null);
            Actor a = actors.get(actor);
            Map<String, Object> results = new LinkedHashMap<>();
            for (int i = 0; i < namesAndBodies.length; i += 2) {
                String name = (String) namesAndBodies[i];
                @SuppressWarnings("unchecked")
                Callable<Object> body = (Callable<Object>) namesAndBodies[i + 1];
                Object res;
                try {
                    res = render(a.ex.submit(body).get(30, TimeUnit.SECONDS));
                } catch (ExecutionException e) {
                    Throwable t = unwrap(e);
                    res = one("error", renderError(t));
                }
                results.put(name, res);
            }
            rec.put("ok", true);
            rec.put("result", results);
            finish(rec);
        }

        /** Start a (blocking) operation on the actor's thread, let it run SETTLE ms, then record the state. */
        void start(String actor, String object, String op, Map<String, Object> args, String java,
                   Callable<Object> body) throws Exception {
            Map<String, Object> rec = newRec("start", actor, object, op, args, java);
            Actor a = actors.get(actor);
            a.pending = a.ex.submit(body);
            a.pendingOp = op;
            a.pendingObject = object;
            Thread.sleep(SETTLE);
            if (a.pending.isDone()) {
                warn(sc.name + " step " + rec.get("step") + ": started op finished within the settle time");
                Object res = null;
                Throwable err = null;
                try {
                    res = a.pending.get();
                } catch (ExecutionException e) {
                    err = unwrap(e);
                }
                putOutcome(rec, res, err, "");
                a.pending = null;
                a.pendingOp = null;
            } else {
                rec.put("pending", true);
            }
            List<Object> subs = new ArrayList<>();
            for (Object ch : list(insp.cmd("PUBSUB", "CHANNELS"))) {
                String c = str(ch);
                if (!MARKER.equals(c)) {
                    subs.add(norm.text(c));
                }
            }
            subs.sort((x, y) -> ((String) x).compareTo((String) y));
            rec.put("subscribed_channels", subs);
            finish(rec);
        }

        /** Wait for an actor's pending operation to finish and record its outcome. */
        void await(String actor) throws Exception {
            Actor a = actors.get(actor);
            Map<String, Object> rec = newRec("await", actor, a.pendingObject, a.pendingOp, null, null);
            Object res = null;
            Throwable err = null;
            try {
                res = a.pending.get(30, TimeUnit.SECONDS);
            } catch (ExecutionException e) {
                err = unwrap(e);
            }
            a.pending = null;
            a.pendingOp = null;
            putOutcome(rec, res, err, "");
            finish(rec);
        }

        void sleep(long ms, String why) throws Exception {
            Map<String, Object> rec = newRec("sleep", null, null, null, null, null);
            rec.put("ms", ms);
            rec.put("why", why);
            Thread.sleep(ms);
            finish(rec);
        }

        // -------------------------------------------------------------------- state
        Map<String, Object> snapshot(String where) throws IOException {
            long now = System.currentTimeMillis();
            List<String> keys = new ArrayList<>();
            for (Object k : list(insp.cmd("KEYS", "*"))) {
                keys.add(str(k));
            }
            // deterministic numbering of new latch ids: order by the masked name
            keys.sort((x, y) -> {
                int c = norm.maskedKey(x).compareTo(norm.maskedKey(y));
                return c != 0 ? c : x.compareTo(y);
            });
            Map<String, Integer> newLatchGroups = new HashMap<>();
            for (String k : keys) {
                String mk = norm.maskedKey(k);
                if (mk.endsWith(":<R?>")) {
                    newLatchGroups.merge(mk, 1, Integer::sum);
                }
            }
            for (Map.Entry<String, Integer> e : newLatchGroups.entrySet()) {
                if (e.getValue() > 1) {
                    warn(sc.name + " " + where + ": several new unlock latches for one lock: " + e.getKey());
                }
            }
            TreeMap<String, Object> out = new TreeMap<>();
            for (String k : keys) {
                if (sc.extended() && k.startsWith("redisson__execute_task_once_latch:")) {
                    // the eviction task's run-once latch (SETNX + EXPIRE min(delay, 30) s): its presence depends
                    // on when the periodic task last ran, so it is left out (README: mapcache)
                    continue;
                }
                String nk = norm.key(k);
                String type = str(insp.cmd("TYPE", k));
                long pttl = (Long) insp.cmd("PTTL", k);
                Map<String, Object> e = new LinkedHashMap<>();
                e.put("type", type);
                switch (type) {
                    case "string": {
                        byte[] v = (byte[]) insp.cmd("GET", k);
                        e.put("value", norm.value(v));
                        if (HEX_FILES.contains(sc.file)) {
                            e.put("hex", hex(v));
                        }
                        break;
                    }
                    case "hash": {
                        List<Object> l = list(insp.cmd("HGETALL", k));
                        TreeMap<String, Object> h = new TreeMap<>();
                        for (int i = 0; i < l.size(); i += 2) {
                            h.put(norm.text(str(l.get(i))), norm.value((byte[]) l.get(i + 1)));
                        }
                        e.put("value", h);
                        break;
                    }
                    case "list": {
                        List<Object> vals = new ArrayList<>();
                        for (Object o : list(insp.cmd("LRANGE", k, "0", "-1"))) {
                            Object d = sc.extended() && k.startsWith("redisson_delay_queue:")
                                    ? norm.delayed((byte[]) o) : null;
                            vals.add(d != null ? d : norm.value((byte[]) o));
                        }
                        e.put("value", vals);
                        break;
                    }
                    case "set": {
                        List<String> vals = new ArrayList<>();
                        for (Object o : list(insp.cmd("SMEMBERS", k))) {
                            vals.add(String.valueOf(norm.value((byte[]) o)));
                        }
                        Collections.sort(vals);
                        e.put("value", vals);
                        break;
                    }
                    case "zset": {
                        List<Object> l = list(insp.cmd("ZRANGE", k, "0", "-1", "WITHSCORES"));
                        List<Object[]> entries = new ArrayList<>();
                        for (int i = 0; i < l.size(); i += 2) {
                            double score = Double.parseDouble(str(l.get(i + 1)));
                            entries.add(new Object[] {norm.member(k, (byte[]) l.get(i)), score});
                        }
                        // ZRANGE order (score, then member bytes); exact ties ordered by the normalized member
                        entries.sort((x, y) -> {
                            int c = Double.compare((Double) x[1], (Double) y[1]);
                            return c != 0 ? c : String.valueOf(x[0]).compareTo(String.valueOf(y[0]));
                        });
                        List<Object> vals = new ArrayList<>();
                        for (Object[] x : entries) {
                            double s = (Double) x[1];
                            Object score;
                            if (norm.lcm && k.startsWith("redisson__cache_updates_log:") && s <= now && s > now - 600000) {
                                // the writer's clock at the write: its distance to "now" grows with every later
                                // step, so no bucket stays stable; recorded as a marker (README: localcachedmap)
                                score = one("clock_ms", "past");
                            } else if (Math.abs(s - now) < 1e10) {
                                long rel = (long) s - now;
                                score = one("rel", relBucket(rel, sc.grid));
                                checkMargin(where, nk + " score", rel);
                                log("     " + nk + " member " + x[0] + " rel=" + rel);
                            } else if (s == Math.rint(s) && Math.abs(s) < 9e15) {
                                score = (long) s;
                            } else if (sc.extended() && s == Math.rint(s) && Math.abs(s) < 1e18) {
                                // e.g. RSetCache's "no TTL" score 92233720368547758, stored as the double
                                // 92233720368547760 (what ZRANGE WITHSCORES prints)
                                score = new BigDecimal(s).toBigIntegerExact();
                            } else {
                                score = s;
                            }
                            vals.add(Arrays.asList(x[0], score));
                        }
                        e.put("value", vals);
                        break;
                    }
                    case "stream":
                        e.put("value", streamState(k));
                        break;
                    default:
                        e.put("value", "?unsupported type");
                }
                if (nk.startsWith("redisson_unlock_latch:") && pttl > 0) {
                    if (pttl > LATCH_TTL_MAX) {
                        warn(sc.name + " " + where + ": latch TTL " + pttl + " > " + LATCH_TTL_MAX);
                    }
                    if (pttl < 2000) {
                        warn(sc.name + " " + where + ": latch " + nk + " close to expiry (" + pttl + " ms)");
                    }
                    e.put("pttl", Arrays.asList(0L, LATCH_TTL_MAX));
                } else {
                    e.put("pttl", bucket(pttl, sc.grid));
                    if (pttl >= 0) {
                        checkMargin(where, nk + " pttl", pttl);
                    }
                }
                log("     " + nk + " " + type + " pttl=" + pttl);
                out.put(nk, e);
            }
            return out;
        }

        /** A stream: its entries (XRANGE), last-generated-id and entries-added (XINFO STREAM) and consumer groups. */
        Map<String, Object> streamState(String k) throws IOException {
            Map<String, Object> sv = new LinkedHashMap<>();
            List<Object> entries = new ArrayList<>();
            for (Object o : list(insp.cmd("XRANGE", k, "-", "+"))) {
                List<Object> en = list(o);
                Map<String, Object> fields = new LinkedHashMap<>();
                List<Object> fl = list(en.get(1));
                for (int i = 0; i < fl.size(); i += 2) {
                    fields.put(norm.text(str(fl.get(i))), norm.value((byte[]) fl.get(i + 1)));
                }
                entries.add(Arrays.asList(norm.streamId(str(en.get(0))), fields));
            }
            sv.put("entries", entries);
            List<Object> info = list(insp.cmd("XINFO", "STREAM", k));
            for (int i = 0; i < info.size(); i += 2) {
                String f = str(info.get(i));
                if (f.equals("last-generated-id") || f.equals("entries-added")) {
                    Object x = info.get(i + 1);
                    sv.put(f, x instanceof byte[] ? norm.streamId(str(x)) : x);
                }
            }
            List<Map<String, Object>> groups = new ArrayList<>();
            for (Object o : list(insp.cmd("XINFO", "GROUPS", k))) {
                List<Object> gl = list(o);
                Map<String, Object> g = new LinkedHashMap<>();
                String rawName = null;
                for (int i = 0; i < gl.size(); i += 2) {
                    String f = str(gl.get(i));
                    Object x = gl.get(i + 1);
                    if (f.equals("name")) {
                        rawName = str(x);
                        g.put("name", norm.text(rawName));
                    } else if (f.equals("last-delivered-id")) {
                        g.put(f, norm.streamId(str(x)));
                    } else {
                        g.put(f, x instanceof byte[] ? norm.text(str(x)) : x);
                    }
                }
                List<Object> consumers = new ArrayList<>();
                for (Object c : list(insp.cmd("XINFO", "CONSUMERS", k, rawName))) {
                    List<Object> cl = list(c);
                    Map<String, Object> cm = new LinkedHashMap<>();
                    for (int i = 0; i < cl.size(); i += 2) {
                        String f = str(cl.get(i));
                        if (f.equals("name") || f.equals("pending")) {
                            Object x = cl.get(i + 1);
                            cm.put(f, x instanceof byte[] ? norm.text(str(x)) : x);
                        }
                    }
                    consumers.add(cm);
                }
                g.put("consumer_list", consumers);
                groups.add(g);
            }
            groups.sort((x, y) -> String.valueOf(x.get("name")).compareTo(String.valueOf(y.get("name"))));
            sv.put("groups", groups);
            return sv;
        }

        /** Warn when a raw value is so close to a bucket's lower edge that a slower replay could change bucket. */
        void checkMargin(String where, String what, long raw) {
            long lo = Math.floorDiv(raw + sc.grid - 1, sc.grid) * sc.grid - sc.grid;
            long margin = raw - lo;
            if (margin < 40) {
                warn(sc.name + " " + where + ": " + what + " raw " + raw + " is only " + margin
                        + " ms above its bucket's lower edge");
            }
        }

        Map<String, Object> toJson() {
            Map<String, Object> m = new LinkedHashMap<>();
            m.put("name", sc.name);
            m.put("description", sc.description);
            Map<String, Object> cfg = new LinkedHashMap<>();
            if (sc.extended()) {
                cfg.put("codec", "StringCodec (client default; every object in these scenarios names its codec)");
                cfg.putAll(sc.extraConfig);
                if (sc.commands != null) {
                    cfg.put("clientName", "C1 / C2 (names the connections for the command log)");
                }
                cfg.put("other", "Redisson " + redissonVersion() + " defaults (single server)");
            } else {
                cfg.put("lockWatchdogTimeout_ms", sc.watchdogMs);
                cfg.put("codec", "StringCodec");
                cfg.put("other", "Redisson 3.52.0 defaults (single server)");
            }
            m.put("config", cfg);
            m.put("ttl_grid_ms", sc.grid);
            Map<String, Object> act = new LinkedHashMap<>();
            for (Actor a : actors.values()) {
                act.put(a.name, a.client);
            }
            m.put("actors", act);
            if (!sc.notes.isEmpty()) {
                m.put("notes", sc.notes);
            }
            m.put("steps", steps);
            return m;
        }
    }

    static Object plain(Object v) {
        if (v == null || v instanceof Boolean || v instanceof Number || v instanceof String) {
            return v;
        }
        if (v instanceof Map) {
            Map<String, Object> m = new LinkedHashMap<>();
            for (Map.Entry<?, ?> e : ((Map<?, ?>) v).entrySet()) {
                m.put(String.valueOf(e.getKey()), plain(e.getValue()));
            }
            return m;
        }
        if (v instanceof List) {
            List<Object> out = new ArrayList<>();
            for (Object o : (List<?>) v) {
                out.add(plain(o));
            }
            return out;
        }
        if (v instanceof Person) {
            return ((Person) v).describe();
        }
        return v.toString();
    }

    /** Classes rendered field by field (declaration order) by plain2()/types(). */
    static boolean isPojo(Object v) {
        return v instanceof Person || v instanceof Order || v instanceof Item;
    }

    static boolean isStructured(Object v) {
        return v instanceof Map || v instanceof Collection || v instanceof Object[] || isPojo(v);
    }

    static List<Field> pojoFields(Class<?> c) {
        List<Field> out = new ArrayList<>();
        for (Field f : c.getDeclaredFields()) {
            if (!Modifier.isStatic(f.getModifiers()) && !f.isSynthetic()) {
                f.setAccessible(true);
                out.add(f);
            }
        }
        return out;
    }

    /** Extended rendering of a decoded value as JSON (see README: codecs2). */
    static Object plain2(Object v) {
        if (v == null || v instanceof Boolean || v instanceof String) {
            return v;
        }
        if (v instanceof Double || v instanceof Float) {
            double d = ((Number) v).doubleValue();
            if (Double.isNaN(d) || Double.isInfinite(d) || (d == 0 && 1 / d < 0)) {
                return String.valueOf(d);
            }
            return v;
        }
        if (v instanceof BigDecimal) {
            return ((BigDecimal) v).toString();
        }
        if (v instanceof BigInteger) {
            return v.toString();
        }
        if (v instanceof Number) {
            return v;
        }
        if (v instanceof Character) {
            return v.toString();
        }
        if (v instanceof Date) {
            Date d = (Date) v;
            return "Date " + d.getTime() + " = " + Instant.ofEpochMilli(d.getTime());
        }
        if (v instanceof UUID) {
            return v.toString();
        }
        if (v instanceof Enum) {
            return ((Enum<?>) v).name();
        }
        if (v instanceof byte[]) {
            return one("hex", hex((byte[]) v));
        }
        if (v instanceof Map) {
            Map<String, Object> m = new LinkedHashMap<>();
            for (Map.Entry<?, ?> e : ((Map<?, ?>) v).entrySet()) {
                m.put(String.valueOf(e.getKey()), plain2(e.getValue()));
            }
            return m;
        }
        if (v instanceof Collection) {
            List<Object> out = new ArrayList<>();
            for (Object o : (Collection<?>) v) {
                out.add(plain2(o));
            }
            return out;
        }
        if (v instanceof Object[]) {
            return plain2(Arrays.asList((Object[]) v));
        }
        if (isPojo(v)) {
            Map<String, Object> m = new LinkedHashMap<>();
            try {
                for (Field f : pojoFields(v.getClass())) {
                    m.put(f.getName(), plain2(f.get(v)));
                }
            } catch (IllegalAccessException e) {
                throw new IllegalStateException(e);
            }
            return m;
        }
        return v.toString();
    }

    /** The Java classes inside a decoded container/POJO: scalars as class names. */
    static Object types(Object v) {
        if (v == null) {
            return null;
        }
        if (v instanceof Map) {
            Map<String, Object> m = new LinkedHashMap<>();
            m.put("class", v.getClass().getName());
            Map<String, Object> vals = new LinkedHashMap<>();
            for (Map.Entry<?, ?> e : ((Map<?, ?>) v).entrySet()) {
                vals.put(String.valueOf(e.getKey()), types(e.getValue()));
            }
            m.put("values", vals);
            return m;
        }
        if (v instanceof Collection || v instanceof Object[]) {
            Collection<?> c = v instanceof Object[] ? Arrays.asList((Object[]) v) : (Collection<?>) v;
            Map<String, Object> m = new LinkedHashMap<>();
            m.put("class", v.getClass().getName());
            List<Object> el = new ArrayList<>();
            for (Object o : c) {
                el.add(types(o));
            }
            m.put("elements", el);
            return m;
        }
        if (isPojo(v)) {
            Map<String, Object> m = new LinkedHashMap<>();
            m.put("class", v.getClass().getName());
            Map<String, Object> fs = new LinkedHashMap<>();
            try {
                for (Field f : pojoFields(v.getClass())) {
                    fs.put(f.getName(), types(f.get(v)));
                }
            } catch (IllegalAccessException e) {
                throw new IllegalStateException(e);
            }
            m.put("fields", fs);
            return m;
        }
        return v.getClass().getName();
    }

    // ------------------------------------------------------------------------------------------------ JSON output
    static String json(Object o) {
        StringBuilder sb = new StringBuilder();
        write(sb, o, 0);
        sb.append('\n');
        return sb.toString();
    }

    static String compact(Object o) {
        StringBuilder sb = new StringBuilder();
        if (o instanceof Map) {
            sb.append('{');
            boolean first = true;
            for (Map.Entry<?, ?> e : ((Map<?, ?>) o).entrySet()) {
                if (!first) {
                    sb.append(", ");
                }
                first = false;
                quote(sb, String.valueOf(e.getKey()));
                sb.append(": ").append(compact(e.getValue()));
            }
            sb.append('}');
        } else if (o instanceof List) {
            sb.append('[');
            boolean first = true;
            for (Object x : (List<?>) o) {
                if (!first) {
                    sb.append(", ");
                }
                first = false;
                sb.append(compact(x));
            }
            sb.append(']');
        } else if (o == null) {
            sb.append("null");
        } else if (o instanceof String) {
            quote(sb, (String) o);
        } else if (o instanceof Double || o instanceof Float) {
            double d = ((Number) o).doubleValue();
            if (d == Math.rint(d) && Math.abs(d) < 9e15) {
                sb.append((long) d);
            } else {
                sb.append(d);
            }
        } else {
            sb.append(o);
        }
        return sb.toString();
    }

    static void write(StringBuilder sb, Object o, int ind) {
        String c = compact(o);
        if (c.length() + ind <= 118 || !(o instanceof Map || o instanceof List)) {
            sb.append(c);
            return;
        }
        String pad = spaces(ind + 2);
        if (o instanceof Map) {
            Map<?, ?> m = (Map<?, ?>) o;
            sb.append("{\n");
            int i = 0;
            for (Map.Entry<?, ?> e : m.entrySet()) {
                sb.append(pad);
                quote(sb, String.valueOf(e.getKey()));
                sb.append(": ");
                write(sb, e.getValue(), ind + 2);
                sb.append(++i < m.size() ? ",\n" : "\n");
            }
            sb.append(spaces(ind)).append('}');
        } else {
            List<?> l = (List<?>) o;
            sb.append("[\n");
            int i = 0;
            for (Object x : l) {
                sb.append(pad);
                write(sb, x, ind + 2);
                sb.append(++i < l.size() ? ",\n" : "\n");
            }
            sb.append(spaces(ind)).append(']');
        }
    }

    static String spaces(int n) {
        char[] c = new char[n];
        Arrays.fill(c, ' ');
        return new String(c);
    }

    static void quote(StringBuilder sb, String s) {
        sb.append('"');
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            switch (c) {
                case '"': sb.append("\\\""); break;
                case '\\': sb.append("\\\\"); break;
                case '\n': sb.append("\\n"); break;
                case '\r': sb.append("\\r"); break;
                case '\t': sb.append("\\t"); break;
                default:
                    if (c < 0x20 || c == 0x7f) {
                        sb.append(String.format("\\u%04x", (int) c));
                    } else {
                        sb.append(c);
                    }
            }
        }
        sb.append('"');
    }

    // ------------------------------------------------------------------------------------------------ main
    public static void main(String[] args) throws Exception {
        for (int i = 0; i < args.length; i++) {
            switch (args[i]) {
                case "--port": port = Integer.parseInt(args[++i]); break;
                case "--out": outDir = Paths.get(args[++i]); break;
                case "--only": only = args[++i]; break;
                case "--verbose": verbose = true; break;
                default: throw new IllegalArgumentException("unknown argument " + args[i]);
            }
        }
        Files.createDirectories(outDir);
        defineScenarios();

        Resp insp = new Resp();
        String info = str(insp.cmd("INFO", "server"));
        String redisVersion = "?";
        for (String l : info.split("\r\n")) {
            if (l.startsWith("redis_version:")) {
                redisVersion = l.substring("redis_version:".length());
            }
        }
        String redissonVersion = redissonVersion();
        System.out.println("redis " + redisVersion + " on 127.0.0.1:" + port + ", Redisson " + redissonVersion
                + ", java " + System.getProperty("java.version"));
        Monitor mon = new Monitor();

        // warm-up (not recorded): class loading and JIT would otherwise stretch the first scenario's timings
        runScenario(new Scenario("warmup", "warmup", "", r -> {
            RLock l = r.lock("T1", "warmup");
            r.call("T1", "warmup", "lock", null, null, () -> { l.lock(); return VOID; });
            r.start("T3", "warmup", "tryLock", null, null, () -> r.lock("T3", "warmup").tryLock(2, 1, TimeUnit.SECONDS));
            r.call("T1", "warmup", "unlock", null, null, () -> { l.unlock(); return VOID; }, "T3");
            r.call("T3", "warmup", "unlock", null, null, () -> { r.lock("T3", "warmup").unlock(); return VOID; });
        }), insp, mon);

        Map<String, List<Object>> byFile = new LinkedHashMap<>();
        int count = 0;
        for (Scenario s : ALL) {
            if (only != null && !selected(s)) {
                continue;
            }
            Run r = runScenario(s, insp, mon);
            byFile.computeIfAbsent(s.file, k -> new ArrayList<>()).add(r.toJson());
            count++;
        }
        for (Map.Entry<String, List<Object>> e : byFile.entrySet()) {
            Map<String, Object> doc = new LinkedHashMap<>();
            doc.put("format", "redisson-interop-vectors/1");
            doc.put("object", e.getKey());
            doc.put("redisson_version", redissonVersion);
            doc.put("redis_version", redisVersion);
            doc.put("generated_by", "a Java capture program using only Redisson's public API");
            doc.put("scenarios", e.getValue());
            if (SCRIPTS.containsKey(e.getKey())) {
                doc.put("scripts", SCRIPTS.get(e.getKey()));
            }
            Path p = outDir.resolve(e.getKey() + ".json");
            Files.write(p, json(doc).getBytes(StandardCharsets.UTF_8));
            System.out.println("wrote " + p + " (" + e.getValue().size() + " scenarios)");
        }
        insp.cmd("FLUSHALL");
        mon.close();
        insp.close();
        System.out.println(count + " scenarios, " + WARNINGS.size() + " warnings");
        for (String w : WARNINGS) {
            System.out.println("  " + w);
        }
        System.exit(0);
    }

    /** --only: a comma-separated list of prefixes of scenario or file names. */
    static boolean selected(Scenario s) {
        for (String p : only.split(",")) {
            if (s.name.startsWith(p) || s.file.startsWith(p)) {
                return true;
            }
        }
        return false;
    }

    static String redissonVersion() {
        String v = Redisson.class.getPackage().getImplementationVersion();
        if (v == null) {
            try (InputStream in = Redisson.class.getResourceAsStream("/META-INF/MANIFEST.MF")) {
                if (in != null) {
                    java.util.jar.Manifest mf = new java.util.jar.Manifest(in);
                    v = mf.getMainAttributes().getValue("Bundle-Version");
                }
            } catch (IOException e) {
                // ignore
            }
        }
        return v == null ? "?" : v;
    }

    static Run runScenario(Scenario s, Resp insp, Monitor mon) throws Exception {
        System.out.println("== " + s.name);
        insp.cmd("FLUSHALL");
        mon.drain(insp, s.name + "#start");
        Run r = new Run(s, insp, mon);
        if (s.quiet) {
            mon.conn.send("PUNSUBSCRIBE", "*");
            r.quietMon = new Monitor(MARKER);
            long deadline = System.currentTimeMillis() + 10000;
            while ((Long) insp.cmd("PUBSUB", "NUMPAT") != 1) {
                if (System.currentTimeMillis() > deadline) {
                    throw new IllegalStateException("PUNSUBSCRIBE * not done");
                }
                Thread.sleep(5);
            }
            r.quietMon.sync(insp, s.name + "#quiet");
        }
        if (s.commands != null) {
            insp.cmd("SCRIPT", "FLUSH");
            r.cmdMon = new CmdMonitor();
            r.connOwner.put("127.0.0.1:" + insp.sock.getLocalPort(), "-");
        }
        r.setUp();
        if (r.cmdMon != null) {
            // the clients' start-up commands (connection set-up; 4.x: a cluster-detection EVAL) are not recorded
            String token = s.name + "#setup";
            (r.quietMon != null ? r.quietMon : mon).drain(insp, token);
            r.cmdMon.drain(token);
        }
        try {
            s.body.run(r);
        } finally {
            r.tearDown();
            if (r.quietMon != null) {
                r.quietMon.close();
                mon.conn.send("PSUBSCRIBE", "*");
                mon.sync(insp, s.name + "#loud");
            }
        }
        return r;
    }

    // ================================================================================================ scenarios
    static Callable<Object> v(ThrowingRunnable r) {
        return () -> {
            r.run();
            return VOID;
        };
    }

    interface ThrowingRunnable {
        void run() throws Exception;
    }

    static final TimeUnit MS = TimeUnit.MILLISECONDS;

    static void defineScenarios() {
        defineRLock();
        defineFairLock();
        defineReadWriteLock();
        defineSemaphore();
        definePermitExpirableSemaphore();
        defineCountDownLatch();
        defineFencedLock();
        defineMultiLock();
        defineRateLimiter();
        defineCodecs();
        defineCodecs2();
        defineTopics();
        defineCollections();
        defineDelayedQueue();
        defineMapCache();
        defineLocalCachedMap();
        defineIssue38();
    }

    // ------------------------------------------------------------------------------------------------ RLock
    static void defineRLock() {
        sc("rlock", "rlock.lock_watchdog",
                "lock() without lease (watchdog lease 30000 ms); queries from the holder, another thread of the same"
                        + " client and another client; the final unlock publishes 0 and leaves an unlock latch key",
                r -> {
                    RLock t1 = r.lock("T1", "plain"), t2 = r.lock("T2", "plain"), t3 = r.lock("T3", "plain");
                    r.call("T1", "plain", "lock", null, "lock.lock()", v(t1::lock));
                    r.query("T1", "plain", "isLocked", (Callable<Object>) t1::isLocked,
                            "isHeldByCurrentThread", (Callable<Object>) t1::isHeldByCurrentThread,
                            "getHoldCount", (Callable<Object>) t1::getHoldCount,
                            "remainTimeToLive", (Callable<Object>) () -> ttl(t1.remainTimeToLive()));
                    long tid1 = r.actors.get("T1").tid;
                    r.query("T2", "plain", "isLocked", (Callable<Object>) t2::isLocked,
                            "isHeldByCurrentThread", (Callable<Object>) t2::isHeldByCurrentThread,
                            "getHoldCount", (Callable<Object>) t2::getHoldCount,
                            "isHeldByThread(T1)", (Callable<Object>) () -> t2.isHeldByThread(tid1));
                    r.query("T3", "plain", "isLocked", (Callable<Object>) t3::isLocked,
                            "isHeldByCurrentThread", (Callable<Object>) t3::isHeldByCurrentThread,
                            "getHoldCount", (Callable<Object>) t3::getHoldCount,
                            "remainTimeToLive", (Callable<Object>) () -> ttl(t3.remainTimeToLive()));
                    r.call("T1", "plain", "unlock", null, "lock.unlock()", v(t1::unlock));
                    r.query("T1", "plain", "isLocked", (Callable<Object>) t1::isLocked,
                            "getHoldCount", (Callable<Object>) t1::getHoldCount,
                            "remainTimeToLive", (Callable<Object>) () -> ttl(t1.remainTimeToLive()));
                });

        sc("rlock", "rlock.reentrant",
                "lock() twice by the same thread (hold count 2), then unlock() twice: the first unlock only"
                        + " decrements (latch value 0, no message), the second deletes and publishes",
                r -> {
                    RLock t1 = r.lock("T1", "plain");
                    r.call("T1", "plain", "lock", null, "lock.lock()", v(t1::lock));
                    r.call("T1", "plain", "lock", null, "lock.lock()", v(t1::lock));
                    r.query("T1", "plain", "getHoldCount", (Callable<Object>) t1::getHoldCount);
                    r.call("T1", "plain", "unlock", null, "lock.unlock()", v(t1::unlock));
                    r.query("T1", "plain", "getHoldCount", (Callable<Object>) t1::getHoldCount,
                            "isLocked", (Callable<Object>) t1::isLocked);
                    r.call("T1", "plain", "unlock", null, "lock.unlock()", v(t1::unlock));
                });

        sc("rlock", "rlock.lease",
                "lock(10 s lease): no watchdog; re-entry with a 20 s lease resets the TTL; a partial unlock"
                        + " re-applies the lease last used by this Java lock object (20000)",
                r -> {
                    RLock t1 = r.lock("T1", "plain");
                    r.call("T1", "plain", "lock", A("lease_ms", 10000), "lock.lock(10000, MILLISECONDS)",
                            v(() -> t1.lock(10000, MS)));
                    r.query("T1", "plain", "remainTimeToLive", (Callable<Object>) () -> ttl(t1.remainTimeToLive()));
                    r.call("T1", "plain", "lock", A("lease_ms", 20000), "lock.lock(20000, MILLISECONDS)",
                            v(() -> t1.lock(20000, MS)));
                    r.call("T1", "plain", "unlock", null, "lock.unlock()", v(t1::unlock));
                    r.call("T1", "plain", "unlock", null, "lock.unlock()", v(t1::unlock));
                });

        sc("rlock", "rlock.trylock_contention",
                "T1 holds; tryLock() by T3 (other client) and T2 (same client) fail; tryLock(wait 250 ms, lease 5 s)"
                        + " by T3 fails after waiting; after T1 unlocks, tryLock(wait 200 ms, lease 5 s) by T3 succeeds",
                r -> {
                    RLock t1 = r.lock("T1", "plain"), t2 = r.lock("T2", "plain"), t3 = r.lock("T3", "plain");
                    r.call("T1", "plain", "lock", null, "lock.lock()", v(t1::lock));
                    r.call("T3", "plain", "tryLock", null, "lock.tryLock()", t3::tryLock);
                    r.call("T2", "plain", "tryLock", null, "lock.tryLock()", t2::tryLock);
                    r.call("T3", "plain", "tryLock", A("wait_ms", 250, "lease_ms", 5000),
                            "lock.tryLock(250, 5000, MILLISECONDS)", () -> t3.tryLock(250, 5000, MS));
                    r.call("T1", "plain", "unlock", null, "lock.unlock()", v(t1::unlock));
                    r.call("T3", "plain", "tryLock", A("wait_ms", 200, "lease_ms", 5000),
                            "lock.tryLock(200, 5000, MILLISECONDS)", () -> t3.tryLock(200, 5000, MS));
                    r.query("T3", "plain", "remainTimeToLive", (Callable<Object>) () -> ttl(t3.remainTimeToLive()),
                            "getHoldCount", (Callable<Object>) t3::getHoldCount);
                    r.call("T3", "plain", "unlock", null, "lock.unlock()", v(t3::unlock));
                });

        sc("rlock", "rlock.blocked_trylock_woken",
                "T3 (other client) blocks in tryLock(wait 5 s, lease 5 s) while T1 holds; T1's unlock message"
                        + " wakes it and it acquires with a 5 s lease",
                r -> {
                    RLock t1 = r.lock("T1", "plain"), t3 = r.lock("T3", "plain");
                    r.call("T1", "plain", "lock", null, "lock.lock()", v(t1::lock));
                    r.start("T3", "plain", "tryLock", A("wait_ms", 5000, "lease_ms", 5000),
                            "lock.tryLock(5000, 5000, MILLISECONDS)", () -> t3.tryLock(5000, 5000, MS));
                    r.call("T1", "plain", "unlock", null, "lock.unlock()", v(t1::unlock), "T3");
                    r.call("T3", "plain", "unlock", null, "lock.unlock()", v(t3::unlock));
                });

        sc("rlock", "rlock.blocked_lock_same_client",
                "T2 (same client as T1) blocks in lock(); T1's unlock wakes it; it acquires with the watchdog",
                r -> {
                    RLock t1 = r.lock("T1", "plain"), t2 = r.lock("T2", "plain");
                    r.call("T1", "plain", "lock", null, "lock.lock()", v(t1::lock));
                    r.start("T2", "plain", "lock", null, "lock.lock()", v(t2::lock));
                    r.call("T1", "plain", "unlock", null, "lock.unlock()", v(t1::unlock), "T2");
                    r.query("T2", "plain", "getHoldCount", (Callable<Object>) t2::getHoldCount,
                            "remainTimeToLive", (Callable<Object>) () -> ttl(t2.remainTimeToLive()));
                    r.call("T2", "plain", "unlock", null, "lock.unlock()", v(t2::unlock));
                });

        sc("rlock", "rlock.force_unlock",
                "forceUnlock() by another client deletes the lock and publishes 0; a second forceUnlock() returns"
                        + " false; the former holder's unlock() then fails",
                r -> {
                    RLock t1 = r.lock("T1", "plain"), t3 = r.lock("T3", "plain");
                    r.call("T1", "plain", "lock", null, "lock.lock()", v(t1::lock));
                    r.call("T3", "plain", "forceUnlock", null, "lock.forceUnlock()", t3::forceUnlock);
                    r.call("T3", "plain", "forceUnlock", null, "lock.forceUnlock()", t3::forceUnlock);
                    r.query("T1", "plain", "isLocked", (Callable<Object>) t1::isLocked);
                    r.call("T1", "plain", "unlock", null, "lock.unlock()", v(t1::unlock));
                });

        sc("rlock", "rlock.non_owner_unlock",
                "unlock() by a thread that does not hold the lock (other client, then same client) fails with"
                        + " IllegalMonitorStateException and changes nothing; unlock() of a never-locked lock fails too",
                r -> {
                    RLock t1 = r.lock("T1", "plain"), t2 = r.lock("T2", "plain"), t3 = r.lock("T3", "plain");
                    RLock other = r.lock("T1", "never");
                    r.call("T1", "plain", "lock", null, "lock.lock()", v(t1::lock));
                    r.call("T3", "plain", "unlock", null, "lock.unlock()", v(t3::unlock));
                    r.call("T2", "plain", "unlock", null, "lock.unlock()", v(t2::unlock));
                    r.call("T1", "plain", "unlock", null, "lock.unlock()", v(t1::unlock));
                    r.call("T1", "never", "unlock", null, "lock.unlock()", v(other::unlock));
                });

        sc("rlock", "rlock.names",
                "lock()+unlock() on names that show the hash-tag rule: braces are added around the name in"
                        + " derived keys/channels only when the name contains no '{'",
                r -> {
                    for (String n : Arrays.asList("plain", "has:colon", "a{b}c", "{tag}x")) {
                        RLock l = r.lock("T1", n);
                        r.call("T1", n, "lock", null, "lock.lock()", v(l::lock));
                        r.call("T1", n, "unlock", null, "lock.unlock()", v(l::unlock));
                    }
                });

        sc("rlock", "rlock.watchdog_renewal",
                "lockWatchdogTimeout = 3000 ms: the watchdog renews every 1000 ms, so 1500 ms after lock() the"
                        + " TTL is back near 3000 (without renewal it would be ~1500, as for the 3 s lease lock on"
                        + " 'leased' held by T2)",
                r -> {
                    RLock t1 = r.lock("T1", "plain"), t2 = r.lock("T2", "leased");
                    r.call("T1", "plain", "lock", null, "lock.lock()", v(t1::lock));
                    r.call("T2", "leased", "lock", A("lease_ms", 3000), "lock.lock(3000, MILLISECONDS)",
                            v(() -> t2.lock(3000, MS)));
                    r.sleep(1500, "watchdog renews 'plain' after ~1000 ms; 'leased' is not renewed");
                    r.query("T1", "plain", "remainTimeToLive", (Callable<Object>) () -> ttl(t1.remainTimeToLive()));
                    r.call("T1", "plain", "unlock", null, "lock.unlock()", v(t1::unlock));
                    r.call("T2", "leased", "unlock", null, "lock.unlock()", v(t2::unlock));
                }).watchdog(3000).grid(1000)
                .note("ttl_grid_ms is 1000 here: the renewal time depends on Redisson's 100 ms timer tick");
    }

    // ------------------------------------------------------------------------------------------------ fair lock
    static void defineFairLock() {
        sc("fairlock", "fairlock.queue_handoff",
                "T1 holds; T2 then T3 wait in tryLock(wait 10 s): queue list + timeout zset; T1's unlock notifies"
                        + " only the head (T2) on its own channel; T2 acquires, decrementing the others' timeouts by"
                        + " its wait; then T2 hands over to T3; the last unlock (empty queue) publishes nothing",
                r -> {
                    RLock t1 = r.fair("T1", "fair"), t2 = r.fair("T2", "fair"), t3 = r.fair("T3", "fair");
                    r.call("T1", "fair", "lock", null, "fairLock.lock()", v(t1::lock));
                    r.start("T2", "fair", "tryLock", A("wait_ms", 10000), "fairLock.tryLock(10000, MILLISECONDS)",
                            () -> t2.tryLock(10000, MS));
                    r.start("T3", "fair", "tryLock", A("wait_ms", 10000), "fairLock.tryLock(10000, MILLISECONDS)",
                            () -> t3.tryLock(10000, MS));
                    r.call("T1", "fair", "unlock", null, "fairLock.unlock()", v(t1::unlock), "T2");
                    r.call("T2", "fair", "unlock", null, "fairLock.unlock()", v(t2::unlock), "T3");
                    r.call("T3", "fair", "unlock", null, "fairLock.unlock()", v(t3::unlock));
                });

        sc("fairlock", "fairlock.waiter_gives_up",
                "T2 waits with tryLock(wait 1 s) behind T1, T3 with tryLock(wait 10 s) behind T2; T2 gives up:"
                        + " its queue/zset entries are removed and T3's timeout is decremented by T2's wait;"
                        + " forceUnlock by T1 then notifies the new head T3",
                r -> {
                    RLock t1 = r.fair("T1", "fair"), t2 = r.fair("T2", "fair"), t3 = r.fair("T3", "fair");
                    r.call("T1", "fair", "lock", null, "fairLock.lock()", v(t1::lock));
                    r.start("T2", "fair", "tryLock", A("wait_ms", 1000), "fairLock.tryLock(1000, MILLISECONDS)",
                            () -> t2.tryLock(1000, MS));
                    r.start("T3", "fair", "tryLock", A("wait_ms", 10000), "fairLock.tryLock(10000, MILLISECONDS)",
                            () -> t3.tryLock(10000, MS));
                    r.await("T2");
                    r.call("T1", "fair", "forceUnlock", null, "fairLock.forceUnlock()", t1::forceUnlock, "T3");
                    r.call("T3", "fair", "unlock", null, "fairLock.unlock()", v(t3::unlock));
                });

        sc("fairlock", "fairlock.trylock_no_wait",
                "tryLock() without wait uses the try-once script: it fails without queueing; after T1's unlock"
                        + " (empty queue: no message) it succeeds",
                r -> {
                    RLock t1 = r.fair("T1", "fair"), t3 = r.fair("T3", "fair");
                    r.call("T1", "fair", "lock", null, "fairLock.lock()", v(t1::lock));
                    r.call("T3", "fair", "tryLock", null, "fairLock.tryLock()", t3::tryLock);
                    r.call("T1", "fair", "unlock", null, "fairLock.unlock()", v(t1::unlock));
                    r.call("T3", "fair", "tryLock", null, "fairLock.tryLock()", t3::tryLock);
                    r.query("T3", "fair", "isHeldByCurrentThread", (Callable<Object>) t3::isHeldByCurrentThread,
                            "remainTimeToLive", (Callable<Object>) () -> ttl(t3.remainTimeToLive()));
                    r.call("T3", "fair", "unlock", null, "fairLock.unlock()", v(t3::unlock));
                });

        sc("fairlock", "fairlock.lock_default_wait",
                "a waiter in lock() (no wait time) is queued with the default fairLockWaitTimeout (300000 ms):"
                        + " its zset score is now + holder's TTL + 300000",
                r -> {
                    RLock t1 = r.fair("T1", "fair"), t2 = r.fair("T2", "fair");
                    r.call("T1", "fair", "lock", null, "fairLock.lock()", v(t1::lock));
                    r.start("T2", "fair", "lock", null, "fairLock.lock()", v(t2::lock));
                    r.call("T1", "fair", "unlock", null, "fairLock.unlock()", v(t1::unlock), "T2");
                    r.call("T2", "fair", "unlock", null, "fairLock.unlock()", v(t2::unlock));
                });
    }

    // ------------------------------------------------------------------------------------------------ RW lock
    static void defineReadWriteLock() {
        sc("rwlock", "rwlock.two_readers",
                "readers on two clients share the lock; each read hold has its own rwlock_timeout key; the first"
                        + " read unlock publishes nothing, the last deletes the hash and publishes 0",
                r -> {
                    RLock r1 = r.rw("T1", "rw").readLock(), r3 = r.rw("T3", "rw").readLock();
                    RLock w1 = r.rw("T1", "rw").writeLock();
                    r.call("T1", "rw", "readLock.lock", null, "rw.readLock().lock()", v(r1::lock));
                    r.call("T3", "rw", "readLock.lock", null, "rw.readLock().lock()", v(r3::lock));
                    r.query("T1", "rw", "readLock.isLocked", (Callable<Object>) r1::isLocked,
                            "writeLock.isLocked", (Callable<Object>) w1::isLocked,
                            "readLock.getHoldCount", (Callable<Object>) r1::getHoldCount,
                            "readLock.remainTimeToLive", (Callable<Object>) () -> ttl(r1.remainTimeToLive()));
                    r.call("T1", "rw", "readLock.unlock", null, "rw.readLock().unlock()", v(r1::unlock));
                    r.call("T3", "rw", "readLock.unlock", null, "rw.readLock().unlock()", v(r3::unlock));
                });

        sc("rwlock", "rwlock.writer_downgrade",
                "the writer takes the read lock too (downgrade allowed); releasing the write lock switches mode to"
                        + " read without publishing; the read unlock then publishes 0",
                r -> {
                    RLock r1 = r.rw("T1", "rw").readLock(), w1 = r.rw("T1", "rw").writeLock();
                    r.call("T1", "rw", "writeLock.lock", null, "rw.writeLock().lock()", v(w1::lock));
                    r.call("T1", "rw", "readLock.lock", null, "rw.readLock().lock()", v(r1::lock));
                    r.query("T1", "rw", "readLock.isLocked", (Callable<Object>) r1::isLocked,
                            "writeLock.isLocked", (Callable<Object>) w1::isLocked,
                            "writeLock.getHoldCount", (Callable<Object>) w1::getHoldCount,
                            "readLock.getHoldCount", (Callable<Object>) r1::getHoldCount);
                    r.call("T1", "rw", "writeLock.unlock", null, "rw.writeLock().unlock()", v(w1::unlock));
                    r.call("T1", "rw", "readLock.unlock", null, "rw.readLock().unlock()", v(r1::unlock));
                });

        sc("rwlock", "rwlock.reader_blocks_writer",
                "a reader blocks writers: its own write tryLock() fails (no upgrade), as does another client's;"
                        + " a writer blocked in lock() is woken by the read unlock (message 0); the write unlock"
                        + " publishes 1",
                r -> {
                    RLock r1 = r.rw("T1", "rw").readLock(), w1 = r.rw("T1", "rw").writeLock();
                    RLock w3 = r.rw("T3", "rw").writeLock();
                    r.call("T1", "rw", "readLock.lock", null, "rw.readLock().lock()", v(r1::lock));
                    r.call("T1", "rw", "writeLock.tryLock", null, "rw.writeLock().tryLock()", w1::tryLock);
                    r.call("T3", "rw", "writeLock.tryLock", null, "rw.writeLock().tryLock()", w3::tryLock);
                    r.start("T3", "rw", "writeLock.lock", null, "rw.writeLock().lock()", v(w3::lock));
                    r.call("T1", "rw", "readLock.unlock", null, "rw.readLock().unlock()", v(r1::unlock), "T3");
                    r.call("T3", "rw", "writeLock.unlock", null, "rw.writeLock().unlock()", v(w3::unlock));
                });

        sc("rwlock", "rwlock.writer_blocks_readers",
                "a writer blocks readers of the same client (T2) and of another client (T3); T3 blocked in"
                        + " readLock().lock() is woken by the write unlock (message 1)",
                r -> {
                    RLock w1 = r.rw("T1", "rw").writeLock(), r2 = r.rw("T2", "rw").readLock();
                    RLock r3 = r.rw("T3", "rw").readLock();
                    r.call("T1", "rw", "writeLock.lock", null, "rw.writeLock().lock()", v(w1::lock));
                    r.call("T2", "rw", "readLock.tryLock", null, "rw.readLock().tryLock()", r2::tryLock);
                    r.call("T3", "rw", "readLock.tryLock", null, "rw.readLock().tryLock()", r3::tryLock);
                    r.start("T3", "rw", "readLock.lock", null, "rw.readLock().lock()", v(r3::lock));
                    r.call("T1", "rw", "writeLock.unlock", null, "rw.writeLock().unlock()", v(w1::unlock), "T3");
                    r.call("T3", "rw", "readLock.unlock", null, "rw.readLock().unlock()", v(r3::unlock));
                });

        sc("rwlock", "rwlock.reentry",
                "write re-entry with a 10 s lease adds the lease to the remaining TTL (~20 s); read re-entry"
                        + " creates a second rwlock_timeout key; unlocks remove the newest timeout key first",
                r -> {
                    RLock w1 = r.rw("T1", "rwW").writeLock();
                    RLock r1 = r.rw("T1", "rwR").readLock();
                    r.call("T1", "rwW", "writeLock.lock", A("lease_ms", 10000),
                            "rw.writeLock().lock(10000, MILLISECONDS)", v(() -> w1.lock(10000, MS)));
                    r.call("T1", "rwW", "writeLock.lock", A("lease_ms", 10000),
                            "rw.writeLock().lock(10000, MILLISECONDS)", v(() -> w1.lock(10000, MS)));
                    r.call("T1", "rwW", "writeLock.unlock", null, "rw.writeLock().unlock()", v(w1::unlock));
                    r.call("T1", "rwW", "writeLock.unlock", null, "rw.writeLock().unlock()", v(w1::unlock));
                    r.call("T1", "rwR", "readLock.lock", null, "rw.readLock().lock()", v(r1::lock));
                    r.call("T1", "rwR", "readLock.lock", null, "rw.readLock().lock()", v(r1::lock));
                    r.call("T1", "rwR", "readLock.unlock", null, "rw.readLock().unlock()", v(r1::unlock));
                    r.call("T1", "rwR", "readLock.unlock", null, "rw.readLock().unlock()", v(r1::unlock));
                });

        sc("rwlock", "rwlock.read_watchdog_renewal",
                "lockWatchdogTimeout = 3000 ms: a read lock's hash and its rwlock_timeout key are renewed by the"
                        + " watchdog (TTL back near 3000 after 1500 ms); a write lock likewise",
                r -> {
                    RLock r1 = r.rw("T1", "rw").readLock(), w3 = r.rw("T3", "rwW").writeLock();
                    r.call("T1", "rw", "readLock.lock", null, "rw.readLock().lock()", v(r1::lock));
                    r.call("T3", "rwW", "writeLock.lock", null, "rw.writeLock().lock()", v(w3::lock));
                    r.sleep(1500, "watchdog renews both after ~1000 ms");
                    r.call("T1", "rw", "readLock.unlock", null, "rw.readLock().unlock()", v(r1::unlock));
                    r.call("T3", "rwW", "writeLock.unlock", null, "rw.writeLock().unlock()", v(w3::unlock));
                }).watchdog(3000).grid(1000)
                .note("ttl_grid_ms is 1000 here: the renewal time depends on Redisson's 100 ms timer tick");

        sc("rwlock", "rwlock.read_watchdog_reentrant_bug",
                "Redisson 3.44.0-3.52.0 bug: when a read lock is held re-entrantly (count 2) the batched read-lock"
                        + " renewal script fails with a Lua error (logged by Redisson) after it has already PEXPIREd"
                        + " the hash (no rollback): the hash is renewed, the rwlock_timeout keys are not (~1500 ms"
                        + " left after 1500 ms); the next read unlock cuts the hash TTL down to theirs",
                r -> {
                    RLock r1 = r.rw("T1", "rw").readLock();
                    r.call("T1", "rw", "readLock.lock", null, "rw.readLock().lock()", v(r1::lock));
                    r.call("T1", "rw", "readLock.lock", null, "rw.readLock().lock()", v(r1::lock));
                    r.sleep(1500, "the renewal attempt after ~1000 ms fails with a script error");
                    r.call("T1", "rw", "readLock.unlock", null, "rw.readLock().unlock()", v(r1::unlock));
                    r.call("T1", "rw", "readLock.unlock", null, "rw.readLock().unlock()", v(r1::unlock));
                }).watchdog(3000).grid(1000)
                .note("ttl_grid_ms is 1000 here: the renewal time depends on Redisson's 100 ms timer tick")
                .note("a Go implementation should renew correctly; this vector documents what Java 3.52 does");
    }

    // ------------------------------------------------------------------------------------------------ semaphore
    static void defineSemaphore() {
        sc("semaphore", "semaphore.permits",
                "trySetPermits twice, acquire/tryAcquire/release, addPermits (also negative), availablePermits,"
                        + " drainPermits",
                r -> {
                    RSemaphore s = r.sem("T1", "sem");
                    r.call("T1", "sem", "trySetPermits", A("permits", 3), "sem.trySetPermits(3)", () -> s.trySetPermits(3));
                    r.call("T1", "sem", "trySetPermits", A("permits", 3), "sem.trySetPermits(3)", () -> s.trySetPermits(3));
                    r.call("T1", "sem", "acquire", A("permits", 2), "sem.acquire(2)", v(() -> s.acquire(2)));
                    r.call("T1", "sem", "tryAcquire", A("permits", 2), "sem.tryAcquire(2)", () -> s.tryAcquire(2));
                    r.call("T1", "sem", "availablePermits", null, "sem.availablePermits()", s::availablePermits);
                    r.call("T1", "sem", "release", A("permits", 2), "sem.release(2)", v(() -> s.release(2)));
                    r.call("T1", "sem", "addPermits", A("permits", 2), "sem.addPermits(2)", v(() -> s.addPermits(2)));
                    r.call("T1", "sem", "availablePermits", null, "sem.availablePermits()", s::availablePermits);
                    r.call("T1", "sem", "drainPermits", null, "sem.drainPermits()", s::drainPermits);
                    r.call("T1", "sem", "availablePermits", null, "sem.availablePermits()", s::availablePermits);
                    r.call("T1", "sem", "addPermits", A("permits", -1), "sem.addPermits(-1)", v(() -> s.addPermits(-1)));
                    r.call("T1", "sem", "tryAcquire", A("permits", 1), "sem.tryAcquire(1)", () -> s.tryAcquire(1));
                    r.call("T1", "sem", "release", A("permits", 1), "sem.release(1)", v(() -> s.release(1)));
                    r.call("T1", "sem", "tryAcquire", A("permits", 0), "sem.tryAcquire(0)", () -> s.tryAcquire(0));
                    r.call("T1", "sem", "release", A("permits", 0), "sem.release(0)", v(() -> s.release(0)));
                }).note("RSemaphore has no setPermits() in 3.52.0 (only RPermitExpirableSemaphore has it)");

        sc("semaphore", "semaphore.blocked_acquire_woken",
                "T3 (other client) blocks in acquire(2) on an empty semaphore; release(1) wakes it but is not"
                        + " enough; the second release(1) lets it acquire",
                r -> {
                    RSemaphore s1 = r.sem("T1", "sem"), s3 = r.sem("T3", "sem");
                    r.call("T1", "sem", "trySetPermits", A("permits", 0), "sem.trySetPermits(0)", () -> s1.trySetPermits(0));
                    r.start("T3", "sem", "acquire", A("permits", 2), "sem.acquire(2)", v(() -> s3.acquire(2)));
                    r.call("T1", "sem", "release", A("permits", 1), "sem.release(1)", v(() -> s1.release(1)));
                    r.call("T1", "sem", "release", A("permits", 1), "sem.release(1)", v(() -> s1.release(1)), "T3");
                    r.call("T1", "sem", "availablePermits", null, "sem.availablePermits()", s1::availablePermits);
                });

        sc("semaphore", "semaphore.tryacquire_wait",
                "tryAcquire(1, wait 250 ms) fails after waiting while no permit is free; after a release it"
                        + " succeeds at once",
                r -> {
                    RSemaphore s1 = r.sem("T1", "sem"), s3 = r.sem("T3", "sem");
                    r.call("T1", "sem", "trySetPermits", A("permits", 1), "sem.trySetPermits(1)", () -> s1.trySetPermits(1));
                    r.call("T1", "sem", "acquire", A("permits", 1), "sem.acquire()", v(s1::acquire));
                    r.call("T3", "sem", "tryAcquire", A("permits", 1, "wait_ms", 250),
                            "sem.tryAcquire(1, Duration.ofMillis(250))", () -> s3.tryAcquire(1, Duration.ofMillis(250)));
                    r.call("T1", "sem", "release", A("permits", 1), "sem.release()", v(s1::release));
                    r.call("T3", "sem", "tryAcquire", A("permits", 1, "wait_ms", 250),
                            "sem.tryAcquire(1, Duration.ofMillis(250))", () -> s3.tryAcquire(1, Duration.ofMillis(250)));
                });

        sc("semaphore", "semaphore.trysetpermits_ttl",
                "trySetPermits(2, 10 s) sets a TTL on the permits key; addPermits uses SET and clears it",
                r -> {
                    RSemaphore s = r.sem("T1", "sem");
                    r.call("T1", "sem", "trySetPermits", A("permits", 2, "ttl_ms", 10000),
                            "sem.trySetPermits(2, Duration.ofMillis(10000))",
                            () -> s.trySetPermits(2, Duration.ofMillis(10000)));
                    r.call("T1", "sem", "acquire", A("permits", 1), "sem.acquire()", v(s::acquire));
                    r.call("T1", "sem", "release", A("permits", 1), "sem.release()", v(s::release));
                    r.call("T1", "sem", "addPermits", A("permits", 1), "sem.addPermits(1)", v(() -> s.addPermits(1)));
                });
    }

    // ------------------------------------------------------------------------------------------------ PES
    static void definePermitExpirableSemaphore() {
        sc("permitexpirablesemaphore", "pes.lease_permits",
                "trySetPermits(2); acquire with a 5 s lease returns a permit id (zset member = 16 raw bytes, score ="
                        + " expiry); tryAcquire fails when exhausted; counts; getLeaseTime; release by id; releasing"
                        + " twice fails",
                r -> {
                    RPermitExpirableSemaphore p1 = r.pes("T1", "pes"), p3 = r.pes("T3", "pes");
                    r.call("T1", "pes", "trySetPermits", A("permits", 2), "pes.trySetPermits(2)", () -> p1.trySetPermits(2));
                    r.call("T1", "pes", "trySetPermits", A("permits", 2), "pes.trySetPermits(2)", () -> p1.trySetPermits(2));
                    String a = (String) r.call("T1", "pes", "acquire", A("lease_ms", 5000),
                            "pes.acquire(5000, MILLISECONDS)", () -> permit(p1.acquire(5000, MS)));
                    String b = (String) r.call("T3", "pes", "acquire", A("lease_ms", 5000),
                            "pes.acquire(5000, MILLISECONDS)", () -> permit(p3.acquire(5000, MS)));
                    r.call("T3", "pes", "tryAcquire", null, "pes.tryAcquire()", () -> permit(p3.tryAcquire()));
                    r.query("T1", "pes", "availablePermits", (Callable<Object>) p1::availablePermits,
                            "getPermits", (Callable<Object>) p1::getPermits,
                            "acquiredPermits", (Callable<Object>) p1::acquiredPermits,
                            "getLeaseTime", (Callable<Object>) () -> ttl(p1.getLeaseTime(a)));
                    r.call("T1", "pes", "release", A("permit", a), "pes.release(id)", v(() -> p1.release(a)));
                    r.call("T3", "pes", "tryRelease", A("permit", a), "pes.tryRelease(id)", () -> p3.tryRelease(a));
                    r.call("T3", "pes", "release", A("permit", a), "pes.release(id)", v(() -> p3.release(a)));
                    r.call("T3", "pes", "release", A("permit", b), "pes.release(id)", v(() -> p3.release(b)));
                });

        sc("permitexpirablesemaphore", "pes.no_lease",
                "acquire() without lease stores the constant score 922337203685477; updateLeaseTime gives it an expiry",
                r -> {
                    RPermitExpirableSemaphore p = r.pes("T1", "pes");
                    r.call("T1", "pes", "trySetPermits", A("permits", 1), "pes.trySetPermits(1)", () -> p.trySetPermits(1));
                    String a = (String) r.call("T1", "pes", "acquire", null, "pes.acquire()", () -> permit(p.acquire()));
                    r.query("T1", "pes", "getLeaseTime", (Callable<Object>) () -> ttl(p.getLeaseTime(a)));
                    r.call("T1", "pes", "updateLeaseTime", A("permit", a, "lease_ms", 5000),
                            "pes.updateLeaseTime(id, 5000, MILLISECONDS)", () -> p.updateLeaseTime(a, 5000, MS));
                    r.call("T1", "pes", "release", A("permit", a), "pes.release(id)", v(() -> p.release(a)));
                });

        sc("permitexpirablesemaphore", "pes.lease_expiry",
                "a permit with a 500 ms lease expires: nothing happens in Redis at expiry (lazy); the next"
                        + " tryAcquire() by another client removes the expired member, returns the permit to the"
                        + " pool (publishing the new count) and then takes it; the old id can no longer be released",
                r -> {
                    RPermitExpirableSemaphore p1 = r.pes("T1", "pes"), p3 = r.pes("T3", "pes");
                    r.call("T1", "pes", "trySetPermits", A("permits", 1), "pes.trySetPermits(1)", () -> p1.trySetPermits(1));
                    String a = (String) r.call("T1", "pes", "acquire", A("lease_ms", 500),
                            "pes.acquire(500, MILLISECONDS)", () -> permit(p1.acquire(500, MS)));
                    r.call("T3", "pes", "tryAcquire", null, "pes.tryAcquire()", () -> permit(p3.tryAcquire()));
                    r.sleep(1000, "the lease ends after 500 ms; the expired member stays in the zset");
                    String b = (String) r.call("T3", "pes", "tryAcquire", null, "pes.tryAcquire()",
                            () -> permit(p3.tryAcquire()));
                    r.call("T1", "pes", "tryRelease", A("permit", a), "pes.tryRelease(id)", () -> p1.tryRelease(a));
                    r.call("T3", "pes", "release", A("permit", b), "pes.release(id)", v(() -> p3.release(b)));
                });

        sc("permitexpirablesemaphore", "pes.expiry_cleanup_by_query",
                "an expired lease is reclaimed by availablePermits() too (it runs the same cleanup and publishes)",
                r -> {
                    RPermitExpirableSemaphore p1 = r.pes("T1", "pes");
                    r.call("T1", "pes", "trySetPermits", A("permits", 2), "pes.trySetPermits(2)", () -> p1.trySetPermits(2));
                    r.call("T1", "pes", "acquire", A("lease_ms", 500), "pes.acquire(500, MILLISECONDS)",
                            () -> permit(p1.acquire(500, MS)));
                    r.sleep(1000, "the lease ends after 500 ms");
                    r.call("T1", "pes", "availablePermits", null, "pes.availablePermits()", p1::availablePermits);
                    r.call("T1", "pes", "availablePermits", null, "pes.availablePermits()", p1::availablePermits);
                });

        sc("permitexpirablesemaphore", "pes.set_and_add_permits",
                "setPermits on an absent key, acquire, setPermits adjusts by (new total - (available + acquired)),"
                        + " addPermits publishes the delta",
                r -> {
                    RPermitExpirableSemaphore p = r.pes("T1", "pes");
                    r.call("T1", "pes", "setPermits", A("permits", 3), "pes.setPermits(3)", v(() -> p.setPermits(3)));
                    String a = (String) r.call("T1", "pes", "acquire", A("lease_ms", 5000),
                            "pes.acquire(5000, MILLISECONDS)", () -> permit(p.acquire(5000, MS)));
                    r.call("T1", "pes", "setPermits", A("permits", 5), "pes.setPermits(5)", v(() -> p.setPermits(5)));
                    r.call("T1", "pes", "addPermits", A("permits", 2), "pes.addPermits(2)", v(() -> p.addPermits(2)));
                    r.query("T1", "pes", "availablePermits", (Callable<Object>) p::availablePermits,
                            "getPermits", (Callable<Object>) p::getPermits,
                            "acquiredPermits", (Callable<Object>) p::acquiredPermits);
                    r.call("T1", "pes", "release", A("permit", a), "pes.release(id)", v(() -> p.release(a)));
                });

        sc("permitexpirablesemaphore", "pes.blocked_acquire_woken",
                "T3 blocks in acquire(lease 5 s) on an exhausted semaphore; T1's release publishes and wakes it",
                r -> {
                    RPermitExpirableSemaphore p1 = r.pes("T1", "pes"), p3 = r.pes("T3", "pes");
                    r.call("T1", "pes", "trySetPermits", A("permits", 1), "pes.trySetPermits(1)", () -> p1.trySetPermits(1));
                    String a = (String) r.call("T1", "pes", "acquire", A("lease_ms", 5000),
                            "pes.acquire(5000, MILLISECONDS)", () -> permit(p1.acquire(5000, MS)));
                    r.start("T3", "pes", "acquire", A("lease_ms", 5000), "pes.acquire(5000, MILLISECONDS)",
                            () -> permit(p3.acquire(5000, MS)));
                    r.call("T1", "pes", "release", A("permit", a), "pes.release(id)", v(() -> p1.release(a)), "T3");
                });
    }

    // ------------------------------------------------------------------------------------------------ latch
    static void defineCountDownLatch() {
        sc("countdownlatch", "latch.count_down",
                "trySetCount(2) twice; T3 blocks in await(); countDown x2 (only the one reaching 0 publishes 0);"
                        + " countDown on an absent latch; trySetCount + delete publish 1",
                r -> {
                    RCountDownLatch l1 = r.latch("T1", "latch"), l3 = r.latch("T3", "latch");
                    r.call("T1", "latch", "trySetCount", A("count", 2), "latch.trySetCount(2)", () -> l1.trySetCount(2));
                    r.call("T1", "latch", "trySetCount", A("count", 2), "latch.trySetCount(2)", () -> l1.trySetCount(2));
                    r.start("T3", "latch", "await", null, "latch.await()", v(l3::await));
                    r.call("T1", "latch", "countDown", null, "latch.countDown()", v(l1::countDown));
                    r.call("T1", "latch", "getCount", null, "latch.getCount()", l1::getCount);
                    r.call("T1", "latch", "countDown", null, "latch.countDown()", v(l1::countDown), "T3");
                    r.call("T1", "latch", "getCount", null, "latch.getCount()", l1::getCount);
                    r.call("T1", "latch", "countDown", null, "latch.countDown()", v(l1::countDown));
                    r.call("T1", "latch", "trySetCount", A("count", 1), "latch.trySetCount(1)", () -> l1.trySetCount(1));
                    r.call("T1", "latch", "delete", null, "latch.delete()", l1::delete);
                    r.call("T1", "latch", "delete", null, "latch.delete()", l1::delete);
                });

        sc("countdownlatch", "latch.await_timeout",
                "await(250 ms) times out while the count is 1; after countDown it returns true at once",
                r -> {
                    RCountDownLatch l1 = r.latch("T1", "latch"), l3 = r.latch("T3", "latch");
                    r.call("T1", "latch", "trySetCount", A("count", 1), "latch.trySetCount(1)", () -> l1.trySetCount(1));
                    r.call("T3", "latch", "await", A("wait_ms", 250), "latch.await(250, MILLISECONDS)",
                            () -> l3.await(250, MS));
                    r.call("T1", "latch", "countDown", null, "latch.countDown()", v(l1::countDown));
                    r.call("T3", "latch", "await", A("wait_ms", 250), "latch.await(250, MILLISECONDS)",
                            () -> l3.await(250, MS));
                });

        sc("countdownlatch", "latch.names",
                "the latch channel always wraps the raw name in braces, even when it already contains '{'",
                r -> {
                    for (String n : Arrays.asList("has:colon", "a{b}c", "{tag}x")) {
                        RCountDownLatch l = r.latch("T1", n);
                        r.call("T1", n, "trySetCount", A("count", 1), "latch.trySetCount(1)", () -> l.trySetCount(1));
                        r.call("T1", n, "countDown", null, "latch.countDown()", v(l::countDown));
                    }
                });
    }

    // ------------------------------------------------------------------------------------------------ fenced lock
    static void defineFencedLock() {
        sc("fencedlock", "fencedlock.tokens",
                "every acquisition (also re-entry and plain lock()) increments redisson_lock_token:{name};"
                        + " tryLockAndGetToken(0 wait) fails with null; tryLockAndGetToken() with no arguments waits"
                        + " without limit (like lock)",
                r -> {
                    RFencedLock f1 = r.fenced("T1", "fenced"), f2 = r.fenced("T2", "fenced"), f3 = r.fenced("T3", "fenced");
                    r.call("T1", "fenced", "lockAndGetToken", null, "fenced.lockAndGetToken()", f1::lockAndGetToken);
                    r.call("T1", "fenced", "getToken", null, "fenced.getToken()", f1::getToken);
                    r.call("T3", "fenced", "tryLockAndGetToken", A("wait_ms", 0),
                            "fenced.tryLockAndGetToken(0, MILLISECONDS)", () -> f3.tryLockAndGetToken(0, MS));
                    r.start("T3", "fenced", "tryLockAndGetToken", null, "fenced.tryLockAndGetToken()",
                            f3::tryLockAndGetToken);
                    r.call("T1", "fenced", "unlock", null, "fenced.unlock()", v(f1::unlock), "T3");
                    r.call("T3", "fenced", "lockAndGetToken", null, "fenced.lockAndGetToken()", f3::lockAndGetToken);
                    r.call("T3", "fenced", "unlock", null, "fenced.unlock()", v(f3::unlock));
                    r.call("T3", "fenced", "unlock", null, "fenced.unlock()", v(f3::unlock));
                    r.call("T2", "fenced", "lock", null, "fenced.lock()", v(f2::lock));
                    r.call("T2", "fenced", "unlock", null, "fenced.unlock()", v(f2::unlock));
                    r.call("T2", "fenced", "lockAndGetToken", A("lease_ms", 10000),
                            "fenced.lockAndGetToken(10000, MILLISECONDS)", () -> f2.lockAndGetToken(10000, MS));
                    r.call("T2", "fenced", "unlock", null, "fenced.unlock()", v(f2::unlock));
                    r.call("T1", "fenced", "getToken", null, "fenced.getToken()", f1::getToken);
                    r.call("T1", "fenced", "delete", null, "((RObject) fenced).delete()", ((RObject) f1)::delete);
                }).note("lockAndGetToken(10000, MILLISECONDS) ignores its lease in 3.52.0 (watchdog TTL 30000 is used)");
    }

    // ------------------------------------------------------------------------------------------------ multi-lock
    static void defineMultiLock() {
        sc("multilock", "multilock.lock_unlock",
                "RedissonMultiLock over three RLocks (m1, m2, m3) of client C1: it has no keys of its own; lock()"
                        + " takes each lock (watchdog), another client's tryLock() fails, unlock() releases each"
                        + " (3 messages, 3 latches)",
                r -> {
                    RLock m1 = r.client("T1").getMultiLock(r.lock("T1", "m1"), r.lock("T1", "m2"), r.lock("T1", "m3"));
                    RLock m3 = r.client("T3").getMultiLock(r.lock("T3", "m1"), r.lock("T3", "m2"), r.lock("T3", "m3"));
                    r.call("T1", "[m1,m2,m3]", "lock", null, "multiLock.lock()", v(m1::lock));
                    r.call("T3", "[m1,m2,m3]", "tryLock", null, "multiLock.tryLock()", m3::tryLock);
                    r.call("T1", "[m1,m2,m3]", "unlock", null, "multiLock.unlock()", v(m1::unlock));
                });

        sc("multilock", "multilock.partial_failure_rollback",
                "T3 holds m2; T1's multiLock.tryLock() takes m1, fails on m2, and unlocks m1 again (publishing)",
                r -> {
                    RLock m = r.client("T1").getMultiLock(r.lock("T1", "m1"), r.lock("T1", "m2"), r.lock("T1", "m3"));
                    RLock l2 = r.lock("T3", "m2");
                    r.call("T3", "m2", "lock", null, "lock.lock()", v(l2::lock));
                    r.call("T1", "[m1,m2,m3]", "tryLock", null, "multiLock.tryLock()", m::tryLock);
                    r.call("T3", "m2", "unlock", null, "lock.unlock()", v(l2::unlock));
                });

        sc("multilock", "multilock.trylock_lease",
                "tryLock(wait 1000 ms, lease 10 s): each lock is taken with lease 2*wait = 2000 ms, then all are"
                        + " PEXPIREd to the 10 s lease",
                r -> {
                    RLock m = r.client("T1").getMultiLock(r.lock("T1", "m1"), r.lock("T1", "m2"), r.lock("T1", "m3"));
                    r.call("T1", "[m1,m2,m3]", "tryLock", A("wait_ms", 1000, "lease_ms", 10000),
                            "multiLock.tryLock(1000, 10000, MILLISECONDS)", () -> m.tryLock(1000, 10000, MS));
                    r.call("T1", "[m1,m2,m3]", "unlock", null, "multiLock.unlock()", v(m::unlock));
                });

        @SuppressWarnings("deprecation")
        Body redlock = r -> {
            RLock red = r.client("T1").getRedLock(r.lock("T1", "m1"), r.lock("T1", "m2"), r.lock("T1", "m3"));
            RLock l3 = r.lock("T3", "m3");
            r.call("T3", "m3", "lock", null, "lock.lock()", v(l3::lock));
            r.call("T1", "[m1,m2,m3]", "tryLock", null, "redLock.tryLock()", red::tryLock);
            r.call("T1", "[m1,m2,m3]", "unlock", null, "redLock.unlock()", v(red::unlock));
            r.call("T3", "m3", "unlock", null, "lock.unlock()", v(l3::unlock));
        };
        sc("multilock", "redlock.quorum",
                "RedissonRedLock (deprecated) over m1, m2, m3 while T3 holds m3: 2 of 3 is a quorum, so tryLock()"
                        + " succeeds holding m1 and m2; unlock() unlocks all three, ignoring the failure on m3",
                redlock);
    }

    // ------------------------------------------------------------------------------------------------ rate limiter
    static Callable<Object> rlConfig(RRateLimiter rl) {
        return () -> {
            RateLimiterConfig c = rl.getConfig();
            return A("rateType", c.getRateType().name(), "rate", c.getRate(), "rateInterval", c.getRateInterval());
        };
    }

    static Object rlTrySet(Run r, String actor, RRateLimiter rl, RateType type, long rate, long intervalMs)
            throws Exception {
        return r.call(actor, "rl", "trySetRate", A("type", type.name(), "rate", rate, "interval_ms", intervalMs),
                "rl.trySetRate(RateType." + type.name() + ", " + rate + ", Duration.ofMillis(" + intervalMs + "))",
                () -> rl.trySetRate(type, rate, Duration.ofMillis(intervalMs)));
    }

    static Object rlTryAcquire(Run r, String actor, RRateLimiter rl) throws Exception {
        return r.call(actor, "rl", "tryAcquire", A("permits", 1), "rl.tryAcquire()", rl::tryAcquire);
    }

    static Object rlTryAcquire(Run r, String actor, RRateLimiter rl, long permits) throws Exception {
        return r.call(actor, "rl", "tryAcquire", A("permits", permits), "rl.tryAcquire(" + permits + ")",
                () -> rl.tryAcquire(permits));
    }

    static Object rlAvailable(Run r, String actor, RRateLimiter rl) throws Exception {
        return r.call(actor, "rl", "availablePermits", null, "rl.availablePermits()", rl::availablePermits);
    }

    static Object rlRelease(Run r, String actor, RRateLimiter rl, long permits) throws Exception {
        return r.call(actor, "rl", "release", A("permits", permits), "rl.release(" + permits + ")",
                v(() -> rl.release(permits)));
    }

    static void defineRateLimiter() {
        sc("ratelimiter", "ratelimiter.overall",
                "OVERALL, 3 permits per 1000 ms: trySetRate twice (the second returns false, nothing changes);"
                        + " tryAcquire x3 from both clients share one value key and one grants zset, the fourth fails;"
                        + " tryAcquire(4) > rate is a script error; after the interval tryAcquire(2) returns the"
                        + " expired grants first; T3 blocks in acquire(2) until the grant is 1000 ms old",
                r -> {
                    RRateLimiter a = r.rl("T1", "rl"), c = r.rl("T3", "rl");
                    rlTrySet(r, "T1", a, RateType.OVERALL, 3, 1000);
                    rlTrySet(r, "T3", c, RateType.OVERALL, 5, 2000);
                    rlTryAcquire(r, "T1", a);
                    rlTryAcquire(r, "T1", a);
                    rlTryAcquire(r, "T3", c);
                    rlTryAcquire(r, "T1", a);
                    rlAvailable(r, "T1", a);
                    rlTryAcquire(r, "T1", a, 4);
                    r.sleep(1000, "the interval (1000 ms) elapses: the three grants are now older than it");
                    rlTryAcquire(r, "T1", a, 2);
                    rlTryAcquire(r, "T3", c, 2);
                    r.start("T3", "rl", "acquire", A("permits", 2), "rl.acquire(2)", v(() -> c.acquire(2)));
                    r.await("T3");
                    r.call("T1", "rl", "getConfig", null, "rl.getConfig()", rlConfig(a));
                }).note("the grants zset members are 21 bytes (length byte 16, 16 random bytes, uint32 LE permits),"
                        + " recorded as <grant n=K>; scores are the client's ms clock (relative buckets)")
                .note("a failed tryAcquire() writes nothing; acquire(2) is woken by Redisson's own timer"
                        + " (3 + interval - age of the oldest grant ms), not by a message: the rate limiter uses no pub/sub");

        sc("ratelimiter", "ratelimiter.acquire_blocked",
                "rate 1 per 1000 ms: after T1's grant, T3's tryAcquire(1, wait 250 ms) fails after waiting;"
                        + " T3's acquire() blocks until the grant has expired and then takes the permit",
                r -> {
                    RRateLimiter a = r.rl("T1", "rl"), c = r.rl("T3", "rl");
                    rlTrySet(r, "T1", a, RateType.OVERALL, 1, 1000);
                    rlTryAcquire(r, "T1", a);
                    r.call("T3", "rl", "tryAcquire", A("permits", 1, "wait_ms", 250),
                            "rl.tryAcquire(1, Duration.ofMillis(250))", () -> c.tryAcquire(1, Duration.ofMillis(250)));
                    r.start("T3", "rl", "acquire", A("permits", 1), "rl.acquire()", v(c::acquire));
                    r.await("T3");
                });

        sc("ratelimiter", "ratelimiter.set_rate",
                "setRate overwrites all hash fields and deletes the value and grants keys; the next call starts"
                        + " from the new rate",
                r -> {
                    RRateLimiter a = r.rl("T1", "rl"), c = r.rl("T3", "rl");
                    rlTrySet(r, "T1", a, RateType.OVERALL, 3, 1000);
                    rlTryAcquire(r, "T1", a);
                    r.call("T3", "rl", "setRate", A("type", "OVERALL", "rate", 2, "interval_ms", 2000),
                            "rl.setRate(RateType.OVERALL, 2, Duration.ofMillis(2000))",
                            v(() -> c.setRate(RateType.OVERALL, 2, Duration.ofMillis(2000))));
                    rlAvailable(r, "T1", a);
                    rlTryAcquire(r, "T1", a);
                    r.call("T1", "rl", "getConfig", null, "rl.getConfig()", rlConfig(a));
                }).note("availablePermits() on an absent value key creates it with the full rate");

        sc("ratelimiter", "ratelimiter.per_client",
                "PER_CLIENT, 2 per 1000 ms: each client has its own {rl}:value:<Cn> and {rl}:permits:<Cn> (T1 and T2"
                        + " share C1's); setRate by C1 deletes only C1's keys, C2 keeps its old value; delete() by"
                        + " C1 leaves C2's keys; a tryAcquire() after delete fails (not initialized)",
                r -> {
                    RRateLimiter a = r.rl("T1", "rl"), b = r.rl("T2", "rl"), c = r.rl("T3", "rl");
                    rlTrySet(r, "T1", a, RateType.PER_CLIENT, 2, 1000);
                    rlTryAcquire(r, "T1", a);
                    rlTryAcquire(r, "T2", b);
                    rlTryAcquire(r, "T2", b);
                    rlTryAcquire(r, "T3", c);
                    rlAvailable(r, "T3", c);
                    rlAvailable(r, "T1", a);
                    r.call("T1", "rl", "setRate", A("type", "PER_CLIENT", "rate", 3, "interval_ms", 1000),
                            "rl.setRate(RateType.PER_CLIENT, 3, Duration.ofMillis(1000))",
                            v(() -> a.setRate(RateType.PER_CLIENT, 3, Duration.ofMillis(1000))));
                    rlTryAcquire(r, "T3", c);
                    rlTryAcquire(r, "T1", a);
                    r.call("T1", "rl", "delete", null, "rl.delete()", a::delete);
                    r.call("T3", "rl", "delete", null, "rl.delete()", c::delete);
                    r.call("T3", "rl", "delete", null, "rl.delete()", c::delete);
                    rlTryAcquire(r, "T1", a);
                });

        sc("ratelimiter", "ratelimiter.keep_alive",
                "trySetRate with keepAliveTime 5000 ms: the hash gets PX 5000; every tryAcquire/release re-applies"
                        + " 5000 ms to the hash, the value key and the grants zset; keepAliveTime < interval is"
                        + " rejected on the client",
                r -> {
                    RRateLimiter a = r.rl("T1", "rl"), c = r.rl("T3", "rl");
                    r.call("T1", "rl", "trySetRate",
                            A("type", "OVERALL", "rate", 2, "interval_ms", 1000, "keep_alive_ms", 5000),
                            "rl.trySetRate(RateType.OVERALL, 2, Duration.ofMillis(1000), Duration.ofMillis(5000))",
                            () -> a.trySetRate(RateType.OVERALL, 2, Duration.ofMillis(1000), Duration.ofMillis(5000)));
                    rlTryAcquire(r, "T1", a);
                    r.sleep(1000, "the TTLs run down; the grant becomes older than the interval");
                    rlTryAcquire(r, "T3", c);
                    rlRelease(r, "T1", a, 1);
                    r.call("T1", "rl", "trySetRate",
                            A("type", "OVERALL", "rate", 2, "interval_ms", 1000, "keep_alive_ms", 500),
                            "rl.trySetRate(RateType.OVERALL, 2, Duration.ofMillis(1000), Duration.ofMillis(500))",
                            () -> a.trySetRate(RateType.OVERALL, 2, Duration.ofMillis(1000), Duration.ofMillis(500)));
                });

        sc("ratelimiter", "ratelimiter.inherited_ttl",
                "without keepAliveTime, a TTL on the hash (expire() sets it on every existing key of the limiter)"
                        + " is copied to the value key and the grants zset by each tryAcquire",
                r -> {
                    RRateLimiter a = r.rl("T1", "rl");
                    rlTrySet(r, "T1", a, RateType.OVERALL, 2, 1000);
                    r.call("T1", "rl", "expire", A("ttl_ms", 10000), "rl.expire(Duration.ofMillis(10000))",
                            () -> a.expire(Duration.ofMillis(10000)));
                    rlTryAcquire(r, "T1", a);
                    r.sleep(1000, "the TTLs run down");
                    rlTryAcquire(r, "T1", a);
                });

        sc("ratelimiter", "ratelimiter.release",
                "release(n) adds n to the value key capped at the rate (creating it at the rate if absent) and"
                        + " leaves the grants zset alone; release(0) does nothing, release(-1) is rejected on the"
                        + " client; expired grants are then added back: tryAcquire() clamps to rate - used,"
                        + " availablePermits() does not clamp",
                r -> {
                    RRateLimiter a = r.rl("T1", "rl"), c = r.rl("T3", "rl");
                    rlTrySet(r, "T1", a, RateType.OVERALL, 3, 1000);
                    rlRelease(r, "T1", a, 1);
                    rlTryAcquire(r, "T1", a, 2);
                    rlRelease(r, "T1", a, 1);
                    rlRelease(r, "T3", c, 5);
                    rlRelease(r, "T1", a, 0);
                    rlRelease(r, "T1", a, -1);
                    r.sleep(1000, "the interval elapses: the grant of 2 expires");
                    rlTryAcquire(r, "T1", a);
                    rlRelease(r, "T1", a, 5);
                    r.sleep(1000, "the interval elapses: the grant of 1 expires");
                    rlAvailable(r, "T1", a);
                    rlTryAcquire(r, "T1", a);
                });
    }

    // ------------------------------------------------------------------------------------------------ codecs
    /** Sample value class for the JSON codecs (fields of several kinds; serialized by field, sorted by name). */
    static Person samplePerson() {
        Person p = new Person();
        p.name = "Ann";
        p.age = 42;
        p.id = 7L;
        p.count = 9L;
        p.score = 1.5;
        p.active = true;
        p.tags = new ArrayList<>(Arrays.asList("a", "b"));
        p.nick = null;
        return p;
    }

    static void bucketSteps(Run r, String name, Codec codec, String codecName, Object value, String javaValue)
            throws Exception {
        RBucket<Object> b1 = r.obj("T1", "bucket:" + codecName, name, c -> c.getBucket(name, codec));
        RBucket<Object> b3 = r.obj("T3", "bucket:" + codecName, name, c -> c.getBucket(name, codec));
        r.call("T1", name, "set", A("codec", codecName, "java_value", javaValue,
                        "java_class", value.getClass().getName()),
                "bucket.set(" + javaValue + ")", v(() -> b1.set(value)));
        r.call("T3", name, "get", A("codec", codecName), "bucket.get()", () -> new Decoded(b3.get(), value));
    }

    static void defineCodecs() {
        sc("codecs", "codec.string",
                "StringCodec: UTF-8 bytes of the string",
                r -> bucketSteps(r, "codec:string", StringCodec.INSTANCE, "StringCodec", "héllo", "\"héllo\""));

        sc("codecs", "codec.long",
                "LongCodec: decimal ASCII",
                r -> {
                    bucketSteps(r, "codec:long", LongCodec.INSTANCE, "LongCodec", 42L, "42L");
                    bucketSteps(r, "codec:long-neg", LongCodec.INSTANCE, "LongCodec", -7L, "-7L");
                });

        sc("codecs", "codec.json_scalars",
                "JsonJacksonCodec on scalars: String, Integer, Long (wrapped with its class), Double, Boolean",
                r -> {
                    JsonJacksonCodec c = new JsonJacksonCodec();
                    bucketSteps(r, "json:string", c, "JsonJacksonCodec", "hello", "\"hello\"");
                    bucketSteps(r, "json:int", c, "JsonJacksonCodec", 42, "42 (Integer)");
                    bucketSteps(r, "json:long", c, "JsonJacksonCodec", 42L, "42L (Long)");
                    bucketSteps(r, "json:double", c, "JsonJacksonCodec", 1.5d, "1.5 (Double)");
                    bucketSteps(r, "json:bool", c, "JsonJacksonCodec", Boolean.TRUE, "true (Boolean)");
                });

        sc("codecs", "codec.json_pojo",
                "JsonJacksonCodec on a POJO: \"@class\" property first, fields sorted by name, nulls omitted,"
                        + " Long and non-final collection fields wrapped as [class, value]",
                r -> bucketSteps(r, "json:pojo", new JsonJacksonCodec(), "JsonJacksonCodec", samplePerson(),
                        "Person{name=\"Ann\", age=42, id=7L (Long), count=9L (long), score=1.5, active=true,"
                                + " tags=ArrayList[\"a\",\"b\"], nick=null}"))
                .note("the POJO class is org.goredisson.interop.Person, declared in VectorCapture.java");

        sc("codecs", "codec.json_map_list",
                "JsonJacksonCodec on a HashMap and an ArrayList with mixed element types",
                r -> {
                    Map<String, Object> m = new HashMap<>();
                    m.put("a", 1);
                    m.put("b", "x");
                    m.put("c", 2L);
                    m.put("d", new ArrayList<>(Arrays.asList(1, 2)));
                    bucketSteps(r, "json:map", new JsonJacksonCodec(), "JsonJacksonCodec", m,
                            "HashMap{a=1 (Integer), b=\"x\", c=2L (Long), d=ArrayList[1,2]}");
                    List<Object> l = new ArrayList<>(Arrays.asList(1, "two", 3L, 4.5, true, null));
                    bucketSteps(r, "json:list", new JsonJacksonCodec(), "JsonJacksonCodec", l,
                            "ArrayList[1 (Integer), \"two\", 3L (Long), 4.5, true, null]");
                });

        sc("codecs", "codec.typed_json",
                "TypedJsonJacksonCodec(Person.class): the same mapper settings without type information",
                r -> bucketSteps(r, "typedjson:pojo", new TypedJsonJacksonCodec(Person.class), "TypedJsonJacksonCodec(Person)",
                        samplePerson(), "Person{name=\"Ann\", age=42, id=7L (Long), count=9L (long), score=1.5,"
                                + " active=true, tags=ArrayList[\"a\",\"b\"], nick=null}"));

        // MsgPackJacksonCodec = JsonJacksonCodec over new ObjectMapper(new MessagePackFactory()); only when the
        // msgpack jackson module is on the classpath (it is not part of the Debian-built Redisson jar).
        Codec msgpack = msgPackCodec();
        if (msgpack != null) {
            sc("codecs", "codec.msgpack",
                    "MsgPackJacksonCodec equivalent (JsonJacksonCodec over an ObjectMapper with msgpack-java's"
                            + " MessagePackFactory): same type-info rules as JSON, MessagePack encoding",
                    r -> {
                        bucketSteps(r, "msgpack:string", msgpack, "MsgPackJacksonCodec", "hello", "\"hello\"");
                        bucketSteps(r, "msgpack:int", msgpack, "MsgPackJacksonCodec", 42, "42 (Integer)");
                        bucketSteps(r, "msgpack:long", msgpack, "MsgPackJacksonCodec", 42L, "42L (Long)");
                        bucketSteps(r, "msgpack:double", msgpack, "MsgPackJacksonCodec", 1.5d, "1.5 (Double)");
                        bucketSteps(r, "msgpack:pojo", msgpack, "MsgPackJacksonCodec", samplePerson(),
                                "Person{name=\"Ann\", age=42, id=7L (Long), count=9L (long), score=1.5, active=true,"
                                        + " tags=ArrayList[\"a\",\"b\"], nick=null}");
                        List<Object> l = new ArrayList<>(Arrays.asList(1, "two", 3L, 4.5, true, null));
                        bucketSteps(r, "msgpack:list", msgpack, "MsgPackJacksonCodec", l,
                                "ArrayList[1 (Integer), \"two\", 3L (Long), 4.5, true, null]");
                    }).note("built from msgpack-java sources; see interop/java/README.md");
        }
    }

    static Codec msgPackCodec() {
        try {
            Class<?> f = Class.forName("org.msgpack.jackson.dataformat.MessagePackFactory");
            Object factory = f.getConstructor().newInstance();
            Class<?> omc = Class.forName("com.fasterxml.jackson.databind.ObjectMapper");
            Constructor<?> c = omc.getConstructor(Class.forName("com.fasterxml.jackson.core.JsonFactory"));
            Object om = c.newInstance(factory);
            return new JsonJacksonCodec((com.fasterxml.jackson.databind.ObjectMapper) om);
        } catch (ClassNotFoundException e) {
            System.out.println("msgpack-java jackson module not on the classpath: codec.msgpack skipped");
            return null;
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }

    // ================================================================================================ extended families
    // ------------------------------------------------------------------------------------------------ codecs2
    static final long T_MS = 1700000000123L;                       // 2023-11-14T22:13:20.123Z
    static final UUID SAMPLE_UUID = UUID.fromString("0f8fad5b-d9cb-469f-a165-70867728950e");
    static final String ORDER_CLASS = "org.goredisson.interop.Order";

    static Order sampleOrder() {
        Order o = new Order();
        o.id = SAMPLE_UUID;
        o.created = new Date(T_MS);
        o.amount = new BigDecimal("19.990");
        o.big = new BigInteger("12345678901234567890");
        o.status = Status.ACTIVE;
        o.blob = new byte[] {1, 2, 3, (byte) 0xff};
        o.items = new ArrayList<>(Arrays.asList(new Item("a", 1, 100L), new Item("b", 2, null)));
        Map<String, Object> attrs = new LinkedHashMap<>();
        attrs.put("s", "v");
        attrs.put("i", 1);
        attrs.put("l", 2L);
        attrs.put("u", SAMPLE_UUID);
        attrs.put("d", new Date(T_MS));
        o.attrs = attrs;
        o.tags = new TreeSet<>(Arrays.asList("x", "y"));
        o.note = null;
        o.qty = 3;
        o.total = 5000000000L;
        o.count = 7L;
        o.n = -1;
        o.ratio = 0.5;
        o.main = new Item("m", 9, 1L);
        return o;
    }

    static final String ORDER_DESC = "Order{id=UUID 0f8fad5b-..., created=Date(1700000000123), amount=BigDecimal(\"19.990\"),"
            + " big=BigInteger(12345678901234567890), status=Status.ACTIVE, blob=byte[]{1,2,3,0xff},"
            + " items=ArrayList[Item(a,1,100L), Item(b,2,null)], attrs=LinkedHashMap{s=\"v\", i=1, l=2L, u=UUID, d=Date},"
            + " tags=TreeSet[x,y], note=null, qty=3 (Integer), total=5000000000L (Long), count=7L (long), n=-1 (int),"
            + " ratio=0.5, main=Item(m,9,1L)}";

    /** T1 sets the bucket through the codec; if that worked, T3 reads it back (Got: class, value, types). */
    static void set2(Run r, String name, Codec codec, String codecName, Object value, String javaValue)
            throws Exception {
        RBucket<Object> b1 = r.obj("T1", "bucket:" + codecName, name, c -> c.getBucket(name, codec));
        RBucket<Object> b3 = r.obj("T3", "bucket:" + codecName, name, c -> c.getBucket(name, codec));
        Map<String, Object> a = A("codec", codecName, "java_value", javaValue,
                "java_class", value == null ? null : value.getClass().getName());
        r.call("T1", name, "set", a, "bucket.set(" + javaValue + ")", v(() -> b1.set(value)));
        Map<?, ?> last = (Map<?, ?>) r.steps.get(r.steps.size() - 1);
        if (Boolean.TRUE.equals(last.get("ok"))) {
            r.call("T3", name, "get", A("codec", codecName), "bucket.get()", () -> gotWritten(b3.get(), value));
            r.raw("clean up (each value is shown alone)", "DEL", name);
        }
    }

    /** The recorder writes raw bytes (as another client would), then T3 reads them through the codec. */
    static void rawGet(Run r, String name, Codec codec, String codecName, Object bytes, String why,
                       Object expected, String expectedDesc) throws Exception {
        RBucket<Object> b3 = r.obj("T3", "bucket:" + codecName, name, c -> c.getBucket(name, codec));
        r.raw(why, "SET", name, bytes);
        Map<String, Object> a = A("codec", codecName);
        if (expectedDesc != null) {
            a.put("expected_java_value", expectedDesc);
        }
        r.call("T3", name, "get", a, "bucket.get()",
                () -> expectedDesc != null ? gotExpected(b3.get(), expected) : got(b3.get()));
        r.raw("clean up (each value is shown alone)", "DEL", name);
    }

    static byte[] utf8(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    static void defineCodecs2() {
        JsonJacksonCodec json = new JsonJacksonCodec();
        String J = "JsonJacksonCodec";

        sc("codecs2", "codec2.json_time",
                "JsonJacksonCodec with the time types a Go service maps time.Time / time.Duration to: java.util.Date is"
                        + " written as [\"java.util.Date\", epoch ms]; the java.time types are refused (Redisson's"
                        + " ObjectMapper has no JSR-310 module)",
                r -> {
                    set2(r, "c2:date", json, J, new Date(T_MS), "new Date(1700000000123L)");
                    set2(r, "c2:instant", json, J, Instant.ofEpochMilli(T_MS), "Instant.ofEpochMilli(1700000000123L)");
                    set2(r, "c2:ldt", json, J, LocalDateTime.of(2023, 11, 14, 22, 13, 20, 123_000_000),
                            "LocalDateTime.of(2023, 11, 14, 22, 13, 20, 123000000)");
                    set2(r, "c2:ld", json, J, LocalDate.of(2023, 11, 14), "LocalDate.of(2023, 11, 14)");
                    set2(r, "c2:lt", json, J, LocalTime.of(22, 13, 20), "LocalTime.of(22, 13, 20)");
                    set2(r, "c2:odt", json, J, OffsetDateTime.of(2023, 11, 14, 22, 13, 20, 123_000_000, ZoneOffset.UTC),
                            "OffsetDateTime.of(2023, 11, 14, 22, 13, 20, 123000000, ZoneOffset.UTC)");
                    set2(r, "c2:zdt", json, J, ZonedDateTime.of(2023, 11, 14, 22, 13, 20, 123_000_000, ZoneOffset.UTC),
                            "ZonedDateTime.of(2023, 11, 14, 22, 13, 20, 123000000, ZoneOffset.UTC)");
                    set2(r, "c2:duration", json, J, Duration.ofMillis(1500), "Duration.ofMillis(1500)");
                });

        sc("codecs2", "codec2.json_time_go_bytes",
                "what JsonJacksonCodec and TypedJsonJacksonCodec(Date.class) make of time values written by another"
                        + " client: ISO-8601 text, epoch ms, and the [class, value] form",
                r -> {
                    TypedJsonJacksonCodec td = new TypedJsonJacksonCodec(Date.class);
                    String TD = "TypedJsonJacksonCodec(Date)";
                    Date d = new Date(T_MS);
                    String dd = "new Date(1700000000123L)";
                    rawGet(r, "go:iso", json, J, "\"2023-11-14T22:13:20.123Z\"",
                            "Go: json.Marshal(time.Time) (RFC 3339 text)", d, dd);
                    rawGet(r, "go:ms", json, J, "1700000000123", "Go: epoch milliseconds as a JSON number", d, dd);
                    rawGet(r, "go:date-ms", json, J, "[\"java.util.Date\",1700000000123]",
                            "Go: Java's own form for java.util.Date", d, dd);
                    rawGet(r, "go:date-iso", json, J, "[\"java.util.Date\",\"2023-11-14T22:13:20.123Z\"]",
                            "Go: the [class, value] form with RFC 3339 text", d, dd);
                    rawGet(r, "go:instant", json, J, "[\"java.time.Instant\",\"2023-11-14T22:13:20.123Z\"]",
                            "Go: the [class, value] form naming java.time.Instant", null, null);
                    rawGet(r, "go:t-iso", td, TD, "\"2023-11-14T22:13:20.123Z\"", "Go: RFC 3339, milliseconds, Z", d, dd);
                    rawGet(r, "go:t-nano", td, TD, "\"2023-11-14T22:13:20.123456789Z\"",
                            "Go: time.RFC3339Nano with 9 fraction digits", d, dd);
                    rawGet(r, "go:t-sec", td, TD, "\"2023-11-14T22:13:20Z\"", "Go: RFC 3339 without fraction",
                            new Date(1700000000000L), "new Date(1700000000000L)");
                    rawGet(r, "go:t-off", td, TD, "\"2023-11-14T23:13:20.123+01:00\"", "Go: RFC 3339 with an offset",
                            d, dd);
                    rawGet(r, "go:t-ms", td, TD, "1700000000123", "Go: epoch milliseconds", d, dd);
                    rawGet(r, "go:t-date", td, TD, "\"2023-11-14\"", "Go: a date only",
                            new Date(1699920000000L), "new Date(1699920000000L)");
                    set2(r, "c2:typed-date", td, TD, new Date(T_MS), "new Date(1700000000123L)");
                    set2(r, "c2:typed-instant", new TypedJsonJacksonCodec(Instant.class), "TypedJsonJacksonCodec(Instant)",
                            Instant.ofEpochMilli(T_MS), "Instant.ofEpochMilli(1700000000123L)");
                });

        sc("codecs2", "codec2.json_uuid",
                "java.util.UUID with JsonJacksonCodec at top level, in a POJO field, in a Map value and a List element;"
                        + " TypedJsonJacksonCodec(UUID.class); and the forms another client may write",
                r -> {
                    set2(r, "c2:uuid", json, J, SAMPLE_UUID, "UUID.fromString(\"" + SAMPLE_UUID + "\")");
                    Map<String, Object> m = new HashMap<>();
                    m.put("u", SAMPLE_UUID);
                    set2(r, "c2:uuid-map", json, J, m, "HashMap{u=UUID}");
                    set2(r, "c2:uuid-list", json, J, new ArrayList<>(Arrays.asList(SAMPLE_UUID, "s")),
                            "ArrayList[UUID, \"s\"]");
                    Item it = new Item("u", 1, null);
                    it.ref = SAMPLE_UUID;
                    set2(r, "c2:uuid-pojo", json, J, it, "Item{sku=\"u\", qty=1, price=null, ref=UUID}");
                    TypedJsonJacksonCodec tu = new TypedJsonJacksonCodec(UUID.class);
                    set2(r, "c2:typed-uuid", tu, "TypedJsonJacksonCodec(UUID)", SAMPLE_UUID, "UUID");
                    rawGet(r, "go:uuid-str", json, J, "\"" + SAMPLE_UUID + "\"", "Go: a UUID as a JSON string",
                            SAMPLE_UUID, "UUID");
                    rawGet(r, "go:uuid-wrapped", json, J, "[\"java.util.UUID\",\"" + SAMPLE_UUID + "\"]",
                            "Go: the [class, value] form", SAMPLE_UUID, "UUID");
                    rawGet(r, "go:uuid-typed", tu, "TypedJsonJacksonCodec(UUID)", "\"" + SAMPLE_UUID + "\"",
                            "Go: a UUID as a JSON string", SAMPLE_UUID, "UUID");
                    rawGet(r, "go:uuid-pojo", json, J, "{\"@class\":\"org.goredisson.interop.Item\",\"qty\":1,\"ref\":\""
                            + SAMPLE_UUID + "\",\"sku\":\"u\"}", "Go: the POJO with the UUID field as a plain string",
                            it, "Item{sku=\"u\", qty=1, price=null, ref=UUID}");
                });

        sc("codecs2", "codec2.json_numbers",
                "numbers: BigDecimal/BigInteger (non-final: [class, value]), Integer/Long boundaries, Short, Byte, Float,"
                        + " Double specials; and numbers as another client writes them",
                r -> {
                    set2(r, "c2:bigdec", json, J, new BigDecimal("12345.678900"), "new BigDecimal(\"12345.678900\")");
                    set2(r, "c2:bigdec-exp", json, J, new BigDecimal("1E+3"), "new BigDecimal(\"1E+3\")");
                    set2(r, "c2:bigdec-small", json, J, new BigDecimal("-0.000001"), "new BigDecimal(\"-0.000001\")");
                    set2(r, "c2:bigint", json, J, new BigInteger("123456789012345678901234567890"),
                            "new BigInteger(\"123456789012345678901234567890\")");
                    set2(r, "c2:int-max", json, J, Integer.MAX_VALUE, "Integer.MAX_VALUE");
                    set2(r, "c2:int-min", json, J, Integer.MIN_VALUE, "Integer.MIN_VALUE");
                    set2(r, "c2:long-2p31", json, J, 2147483648L, "2147483648L (Long)");
                    set2(r, "c2:long-max", json, J, Long.MAX_VALUE, "Long.MAX_VALUE");
                    set2(r, "c2:long-min", json, J, Long.MIN_VALUE, "Long.MIN_VALUE");
                    set2(r, "c2:short", json, J, (short) 7, "(short) 7");
                    set2(r, "c2:byte", json, J, (byte) -1, "(byte) -1");
                    set2(r, "c2:float", json, J, 1.25f, "1.25f");
                    set2(r, "c2:double-tenth", json, J, 0.1d, "0.1d");
                    set2(r, "c2:double-big", json, J, 1e300d, "1e300d");
                    set2(r, "c2:double-negzero", json, J, -0.0d, "-0.0d");
                    set2(r, "c2:double-nan", json, J, Double.NaN, "Double.NaN");
                    set2(r, "c2:double-inf", json, J, Double.POSITIVE_INFINITY, "Double.POSITIVE_INFINITY");
                    set2(r, "c2:double-neginf", json, J, Double.NEGATIVE_INFINITY, "Double.NEGATIVE_INFINITY");
                    rawGet(r, "go:n-42", json, J, "42", "Go: a small integer", 42, "42 (Integer)");
                    rawGet(r, "go:n-2p31", json, J, "2147483648", "Go: an integer above Integer.MAX_VALUE",
                            2147483648L, "2147483648L (Long)");
                    rawGet(r, "go:n-long-max", json, J, "9223372036854775807", "Go: math.MaxInt64 as a JSON number",
                            Long.MAX_VALUE, "Long.MAX_VALUE");
                    rawGet(r, "go:n-2p63", json, J, "9223372036854775808", "Go: an integer above Long.MAX_VALUE (uint64)",
                            new BigInteger("9223372036854775808"), "BigInteger 2^63");
                    rawGet(r, "go:n-float", json, J, "12345.678900", "Go: a decimal as a JSON number", 12345.6789d,
                            "12345.6789d (Double)");
                    rawGet(r, "go:n-bigdec", json, J, "[\"java.math.BigDecimal\",12345.678900]",
                            "Go: Java's BigDecimal form", new BigDecimal("12345.678900"), "new BigDecimal(\"12345.678900\")");
                    rawGet(r, "go:n-bigdec-str", json, J, "[\"java.math.BigDecimal\",\"12345.678900\"]",
                            "Go: the BigDecimal form with the number as text", new BigDecimal("12345.678900"),
                            "new BigDecimal(\"12345.678900\")");
                    rawGet(r, "go:n-long", json, J, "[\"java.lang.Long\",42]", "Go: Java's Long form", 42L, "42L (Long)");
                    rawGet(r, "go:n-nan-str", json, J, "\"NaN\"", "Go: NaN as text", null, null);
                    rawGet(r, "go:n-nan", json, J, "NaN", "Go: a bare NaN token (not JSON)", null, null);
                });

        sc("codecs2", "codec2.json_enum_bytes_strings",
                "enums (final: written as the bare name), byte[] (base64 text), Character, and unicode / emoji /"
                        + " control-character strings",
                r -> {
                    set2(r, "c2:enum", json, J, Status.ACTIVE, "Status.ACTIVE (enum org.goredisson.interop.Status)");
                    set2(r, "c2:bytes", json, J, new byte[] {1, 2, 3, (byte) 0xff}, "new byte[]{1, 2, 3, (byte) 0xff}");
                    set2(r, "c2:char", json, J, 'é', "'é' (Character)");
                    set2(r, "c2:unicode", json, J, "héllo wörld — 日本語 😀", "\"héllo wörld — 日本語 😀\"");
                    set2(r, "c2:control", json, J, "tab\tnl\nquote\"bs\\nul\u0000del\u007f",
                            "\"tab\\tnl\\nquote\\\"bs\\\\nul\\u0000del\\u007f\"");
                    rawGet(r, "go:enum", new TypedJsonJacksonCodec(Status.class), "TypedJsonJacksonCodec(Status)",
                            "\"ACTIVE\"", "Go: the enum name as a JSON string", Status.ACTIVE, "Status.ACTIVE");
                    rawGet(r, "go:emoji-escaped", json, J, "\"\\ud83d\\ude00 \\u00e9\"",
                            "Go: json.Marshal with escaped non-ASCII (\\u escapes, surrogate pair)", "😀 é", "\"😀 é\"");
                    rawGet(r, "go:bytes-b64", new TypedJsonJacksonCodec(byte[].class), "TypedJsonJacksonCodec(byte[])",
                            "\"AQID/w==\"", "Go: json.Marshal([]byte) (standard base64)", new byte[] {1, 2, 3, (byte) 0xff},
                            "byte[]{1,2,3,0xff}");
                });

        sc("codecs2", "codec2.json_pojo_nested",
                "JsonJacksonCodec on a POJO with nested List/Map/Set/POJO, UUID, Date, BigDecimal, BigInteger, enum,"
                        + " byte[], Integer/Long/long/int/double and a null field; then JSON another client might write",
                r -> {
                    set2(r, "c2:order", json, J, sampleOrder(), ORDER_DESC);
                    String item = "{\"@class\":\"org.goredisson.interop.Item\",\"price\":[\"java.lang.Long\",100],\"qty\":1,\"sku\":\"a\"}";
                    rawGet(r, "go:order-plain", json, J,
                            "{\"id\":\"" + SAMPLE_UUID + "\",\"created\":1700000000123,\"amount\":19.990,\"status\":\"ACTIVE\"}",
                            "Go: plain JSON object, no \"@class\"", null, null);
                    rawGet(r, "go:order-class-only", json, J,
                            "{\"@class\":\"" + ORDER_CLASS + "\",\"id\":\"" + SAMPLE_UUID + "\",\"created\":1700000000123,"
                                    + "\"amount\":19.990,\"status\":\"ACTIVE\",\"total\":5000000000,\"qty\":3,\"n\":-1}",
                            "Go: \"@class\" first, scalar fields without [class, value] wrappers", null, null);
                    rawGet(r, "go:order-wrapped", json, J,
                            "{\"@class\":\"" + ORDER_CLASS + "\",\"id\":\"" + SAMPLE_UUID + "\","
                                    + "\"created\":[\"java.util.Date\",1700000000123],"
                                    + "\"amount\":[\"java.math.BigDecimal\",19.990],\"status\":\"ACTIVE\","
                                    + "\"total\":[\"java.lang.Long\",5000000000],\"qty\":3,\"n\":-1,\"unknown\":true}",
                            "Go: \"@class\" first, [class, value] for the non-final fields, one unknown field", null, null);
                    rawGet(r, "go:order-list-unwrapped", json, J,
                            "{\"@class\":\"" + ORDER_CLASS + "\",\"items\":[" + item + "]}",
                            "Go: a List field written as a bare JSON array", null, null);
                    rawGet(r, "go:order-list-wrapped", json, J,
                            "{\"@class\":\"" + ORDER_CLASS + "\",\"items\":[\"java.util.ArrayList\",[" + item + "]],"
                                    + "\"tags\":[\"java.util.HashSet\",[\"x\",\"y\"]],"
                                    + "\"attrs\":{\"@class\":\"java.util.HashMap\",\"s\":\"v\"}}",
                            "Go: collections wrapped as Java writes them", null, null);
                });

        sc("codecs2", "codec2.typed_json",
                "TypedJsonJacksonCodec(Order.class): no type information anywhere (Date as epoch ms, UUID text,"
                        + " BigDecimal as a plain number, enum name, byte[] base64, Set as an array); and plain JSON"
                        + " another client writes",
                r -> {
                    TypedJsonJacksonCodec to = new TypedJsonJacksonCodec(Order.class);
                    String TO = "TypedJsonJacksonCodec(Order)";
                    set2(r, "c2:typed-order", to, TO, sampleOrder(), ORDER_DESC);
                    rawGet(r, "go:typed-order", to, TO,
                            "{\"id\":\"" + SAMPLE_UUID + "\",\"created\":\"2023-11-14T22:13:20.123Z\",\"amount\":19.990,"
                                    + "\"big\":12345678901234567890,\"status\":\"ACTIVE\",\"blob\":\"AQID/w==\","
                                    + "\"items\":[{\"sku\":\"a\",\"qty\":1,\"price\":100},{\"sku\":\"b\",\"qty\":2}],"
                                    + "\"attrs\":{\"s\":\"v\",\"i\":1,\"l\":2},\"tags\":[\"x\",\"y\"],\"note\":null,"
                                    + "\"qty\":3,\"total\":5000000000,\"count\":7,\"n\":-1,\"ratio\":0.5,"
                                    + "\"main\":{\"sku\":\"m\",\"qty\":9,\"price\":1},\"extra\":\"ignored\"}",
                            "Go: json.Marshal of the same struct (RFC 3339 time, base64 bytes) plus an unknown field",
                            null, null);
                    set2(r, "c2:typed-bigdec", new TypedJsonJacksonCodec(BigDecimal.class), "TypedJsonJacksonCodec(BigDecimal)",
                            new BigDecimal("12345.678900"), "new BigDecimal(\"12345.678900\")");
                    set2(r, "c2:typed-long", new TypedJsonJacksonCodec(Long.class), "TypedJsonJacksonCodec(Long)",
                            Long.MAX_VALUE, "Long.MAX_VALUE");
                    rawGet(r, "go:typed-bigdec", new TypedJsonJacksonCodec(BigDecimal.class),
                            "TypedJsonJacksonCodec(BigDecimal)", "\"12345.678900\"", "Go: a decimal as JSON text",
                            new BigDecimal("12345.678900"), "new BigDecimal(\"12345.678900\")");
                });

        sc("codecs2", "codec2.string_long",
                "StringCodec writes toString() of any object as UTF-8; LongCodec writes toString() and reads with"
                        + " Long.valueOf (what it accepts and refuses)",
                r -> {
                    String S = "StringCodec", L = "LongCodec";
                    set2(r, "s:instant", StringCodec.INSTANCE, S, Instant.ofEpochMilli(T_MS), "Instant.ofEpochMilli(1700000000123L)");
                    set2(r, "s:date", StringCodec.INSTANCE, S, new Date(T_MS), "new Date(1700000000123L) (JVM time zone UTC)");
                    set2(r, "s:uuid", StringCodec.INSTANCE, S, SAMPLE_UUID, "UUID");
                    set2(r, "s:bigdec", StringCodec.INSTANCE, S, new BigDecimal("12345.678900"), "new BigDecimal(\"12345.678900\")");
                    set2(r, "s:emoji", StringCodec.INSTANCE, S, "héllo 😀", "\"héllo 😀\"");
                    set2(r, "l:max", LongCodec.INSTANCE, L, Long.MAX_VALUE, "Long.MAX_VALUE");
                    set2(r, "l:min", LongCodec.INSTANCE, L, Long.MIN_VALUE, "Long.MIN_VALUE");
                    set2(r, "l:int", LongCodec.INSTANCE, L, 7, "7 (Integer)");
                    rawGet(r, "go:l-ms", LongCodec.INSTANCE, L, "1700000000123", "Go: strconv.FormatInt(ms, 10)",
                            T_MS, "1700000000123L");
                    rawGet(r, "go:l-plus", LongCodec.INSTANCE, L, "+5", "Go: a leading plus sign", 5L, "5L");
                    rawGet(r, "go:l-float", LongCodec.INSTANCE, L, "5.0", "Go: a float text", null, null);
                    rawGet(r, "go:l-space", LongCodec.INSTANCE, L, " 5", "Go: a leading space", null, null);
                    rawGet(r, "go:l-over", LongCodec.INSTANCE, L, "9223372036854775808", "Go: uint64 above Long.MAX_VALUE",
                            null, null);
                    rawGet(r, "go:s-latin1", StringCodec.INSTANCE, S, new byte[] {'c', 'a', 'f', (byte) 0xe9},
                            "Go: bytes that are not UTF-8 (Latin-1 \"café\")", null, null);
                });
    }

    // ------------------------------------------------------------------------------------------------ topics
    /** Messages received by one listener, in arrival order; drained by a "listener.received" query. */
    static final class Inbox {
        final List<Object> items = new ArrayList<>();

        synchronized void add(Object o) { items.add(o); }

        synchronized List<Object> drain() {
            List<Object> l = new ArrayList<>(items);
            items.clear();
            return l;
        }

        void msg(CharSequence pattern, CharSequence channel, Object m) {
            Map<String, Object> e = new LinkedHashMap<>();
            if (pattern != null) {
                e.put("pattern", pattern.toString());
            }
            e.put("channel", channel.toString());
            e.put("class", m == null ? null : m.getClass().getName());
            e.put("value", plain2(m));
            add(e);
        }

        <M> MessageListener<M> listener() {
            return (ch, m) -> msg(null, ch, m);
        }
    }

    static Callable<Object> received(Inbox in) {
        return in::drain;
    }

    static void defineTopics() {
        sc("topics", "topic.publish_string",
                "RTopic with StringCodec: addListener subscribes the client's pub/sub connection (SUBSCRIBE news);"
                        + " publish is PUBLISH news <bytes> and returns the number of receivers, which includes the"
                        + " recorder's PSUBSCRIBE * connection; removeAllListeners unsubscribes",
                r -> {
                    RTopic t1 = r.obj("T1", "topic", "news", c -> c.getTopic("news", StringCodec.INSTANCE));
                    RTopic t3 = r.obj("T3", "topic", "news", c -> c.getTopic("news", StringCodec.INSTANCE));
                    Inbox in = new Inbox();
                    r.call("T3", "news", "addListener", A("codec", "StringCodec", "type", "java.lang.String"),
                            "topic.addListener(String.class, listener)",
                            v(() -> t3.addListener(String.class, in.<String>listener())));
                    r.callSettle("T1", "news", "publish", A("codec", "StringCodec", "message", "hello"),
                            "topic.publish(\"hello\")", SETTLE, () -> t1.publish("hello"));
                    r.query("T3", "news", "listener.received", received(in),
                            "countListeners", (Callable<Object>) t3::countListeners,
                            "countSubscribers", (Callable<Object>) t3::countSubscribers);
                    r.call("T3", "news", "removeAllListeners", null, "topic.removeAllListeners()",
                            v(t3::removeAllListeners));
                    r.callSettle("T1", "news", "publish", A("codec", "StringCodec", "message", "again"),
                            "topic.publish(\"again\")", SETTLE, () -> t1.publish("again"));
                    r.query("T3", "news", "listener.received", received(in),
                            "countSubscribers", (Callable<Object>) t3::countSubscribers);
                }).commands("pubsub").pubsub()
                .note("publish results count the recorder's own PSUBSCRIBE * connection: 1 = no Redisson subscriber");

        sc("topics", "topic.codecs",
                "the message bytes of RTopic.publish with LongCodec and JsonJacksonCodec (String, Long, UUID, POJO),"
                        + " and what the Java listener gets for messages another client publishes",
                r -> {
                    JsonJacksonCodec json = new JsonJacksonCodec();
                    RTopic l1 = r.obj("T1", "topic", "t:long", c -> c.getTopic("t:long", LongCodec.INSTANCE));
                    RTopic l3 = r.obj("T3", "topic", "t:long", c -> c.getTopic("t:long", LongCodec.INSTANCE));
                    RTopic j1 = r.obj("T1", "topic", "t:json", c -> c.getTopic("t:json", json));
                    RTopic j3 = r.obj("T3", "topic", "t:json", c -> c.getTopic("t:json", json));
                    Inbox in = new Inbox();
                    r.call("T3", "t:long", "addListener", A("codec", "LongCodec", "type", "java.lang.Long"),
                            "topic.addListener(Long.class, listener)",
                            v(() -> l3.addListener(Long.class, in.<Long>listener())));
                    r.call("T3", "t:json", "addListener", A("codec", "JsonJacksonCodec", "type", "java.lang.Object"),
                            "topic.addListener(Object.class, listener)",
                            v(() -> j3.addListener(Object.class, in.<Object>listener())));
                    r.callSettle("T1", "t:long", "publish", A("codec", "LongCodec", "message", "42L"),
                            "topic.publish(42L)", SETTLE, () -> l1.publish(42L));
                    r.callSettle("T1", "t:json", "publish", A("codec", "JsonJacksonCodec", "message", "\"hi\""),
                            "topic.publish(\"hi\")", SETTLE, () -> j1.publish("hi"));
                    r.callSettle("T1", "t:json", "publish", A("codec", "JsonJacksonCodec", "message", "7L (Long)"),
                            "topic.publish(7L)", SETTLE, () -> j1.publish(7L));
                    r.callSettle("T1", "t:json", "publish", A("codec", "JsonJacksonCodec", "message", "UUID"),
                            "topic.publish(UUID.fromString(\"" + SAMPLE_UUID + "\"))", SETTLE, () -> j1.publish(SAMPLE_UUID));
                    r.callSettle("T1", "t:json", "publish", A("codec", "JsonJacksonCodec", "message", "Person (codec.json_pojo)"),
                            "topic.publish(person)", SETTLE, () -> j1.publish(samplePerson()));
                    r.query("T3", "t:json", "listener.received", received(in));
                    r.raw("Go: PUBLISH of a decimal to the LongCodec topic", "PUBLISH", "t:long", "1700000000123");
                    r.raw("Go: PUBLISH of a JSON string", "PUBLISH", "t:json", "\"from go\"");
                    r.raw("Go: PUBLISH of the [class, value] UUID form", "PUBLISH", "t:json",
                            "[\"java.util.UUID\",\"" + SAMPLE_UUID + "\"]");
                    r.raw("Go: PUBLISH of a JSON object with \"@class\"", "PUBLISH", "t:json",
                            "{\"@class\":\"org.goredisson.interop.Item\",\"qty\":2,\"sku\":\"go\"}");
                    r.sleep(SETTLE, "let the listener receive the messages published by the recorder");
                    r.query("T3", "t:json", "listener.received", received(in));
                    r.raw("Go: PUBLISH of a plain JSON object without \"@class\" (Java cannot decode it)", "PUBLISH",
                            "t:json", "{\"a\":1}");
                    r.sleep(SETTLE, "let the listener receive (or drop) it");
                    r.query("T3", "t:json", "listener.received", received(in));
                }).commands("pubsub")
                .note("a message the codec cannot decode never reaches the listener (Redisson logs the decode error)");

        sc("topics", "topic.pattern",
                "RPatternTopic: addListener sends PSUBSCRIBE news.*; a PUBLISH to news.sport reaches it (the listener"
                        + " gets pattern, channel and message), one to weather does not",
                r -> {
                    RPatternTopic p3 = r.obj("T3", "ptopic", "news.*", c -> c.getPatternTopic("news.*", StringCodec.INSTANCE));
                    RTopic s1 = r.obj("T1", "topic", "news.sport", c -> c.getTopic("news.sport", StringCodec.INSTANCE));
                    RTopic w1 = r.obj("T1", "topic", "weather", c -> c.getTopic("weather", StringCodec.INSTANCE));
                    Inbox in = new Inbox();
                    r.call("T3", "news.*", "addListener", A("codec", "StringCodec", "type", "java.lang.String"),
                            "patternTopic.addListener(String.class, listener)",
                            v(() -> p3.addListener(String.class,
                                    (PatternMessageListener<String>) (pat, ch, m) -> in.msg(pat, ch, m))));
                    r.callSettle("T1", "news.sport", "publish", A("codec", "StringCodec", "message", "goal"),
                            "topic.publish(\"goal\")", SETTLE, () -> s1.publish("goal"));
                    r.callSettle("T1", "weather", "publish", A("codec", "StringCodec", "message", "rain"),
                            "topic.publish(\"rain\")", SETTLE, () -> w1.publish("rain"));
                    r.query("T3", "news.*", "listener.received", received(in));
                    r.call("T3", "news.*", "removeAllListeners", null, "patternTopic.removeAllListeners()",
                            v(p3::removeAllListeners));
                }).commands("pubsub").pubsub()
                .note("pubsub.patterns leaves out the recorder's own PSUBSCRIBE *");

        sc("topics", "topic.sharded",
                "RShardedTopic on a single node: addListener sends SSUBSCRIBE orders, publish sends SPUBLISH orders"
                        + " (returns the shard-channel subscribers only; PSUBSCRIBE * does not see it, so messages is"
                        + " empty and commands shows it); a plain PUBLISH to the same name does not reach it",
                r -> {
                    RShardedTopic s1 = r.obj("T1", "stopic", "orders", c -> c.getShardedTopic("orders", StringCodec.INSTANCE));
                    RShardedTopic s3 = r.obj("T3", "stopic", "orders", c -> c.getShardedTopic("orders", StringCodec.INSTANCE));
                    RTopic p1 = r.obj("T1", "topic", "orders", c -> c.getTopic("orders", StringCodec.INSTANCE));
                    Inbox in = new Inbox();
                    r.call("T3", "orders", "addListener", A("codec", "StringCodec", "type", "java.lang.String"),
                            "shardedTopic.addListener(String.class, listener)",
                            v(() -> s3.addListener(String.class, in.<String>listener())));
                    r.callSettle("T1", "orders", "publish", A("codec", "StringCodec", "message", "o1"),
                            "shardedTopic.publish(\"o1\")", SETTLE, () -> s1.publish("o1"));
                    r.query("T3", "orders", "listener.received", received(in),
                            "countSubscribers", (Callable<Object>) s3::countSubscribers);
                    r.callSettle("T1", "orders", "publish", A("codec", "StringCodec", "message", "plain", "object", "RTopic"),
                            "redisson.getTopic(\"orders\").publish(\"plain\")", SETTLE, () -> p1.publish("plain"));
                    r.query("T3", "orders", "listener.received", received(in));
                    r.call("T3", "orders", "removeAllListeners", null, "shardedTopic.removeAllListeners()",
                            v(s3::removeAllListeners));
                }).commands("pubsub").pubsub()
                .note("single node (Redis 7.0 accepts SSUBSCRIBE/SPUBLISH without cluster mode); on a cluster the same"
                        + " SPUBLISH goes to the node that owns the channel's slot");

        sc("topics", "reliabletopic.publish_subscribe",
                "RReliableTopic: a stream under the topic name (field m = the encoded message); each listening"
                        + " RReliableTopic instance is a consumer group <Sn> (consumer \"consumer\") created at 0 and"
                        + " registered in the zset {name}:timeout (score = now + reliableTopicWatchdogTimeout);"
                        + " publish returns the number of groups; after delivery the stream is trimmed to what some"
                        + " group has not read yet",
                r -> {
                    RReliableTopic t1 = r.obj("T1", "rtopic", "rt", c -> c.getReliableTopic("rt", StringCodec.INSTANCE));
                    RReliableTopic t3 = r.obj("T3", "rtopic", "rt", c -> c.getReliableTopic("rt", StringCodec.INSTANCE));
                    Inbox in1 = new Inbox(), in3 = new Inbox();
                    r.call("T1", "rt", "publish", A("codec", "StringCodec", "message", "m1"), "topic.publish(\"m1\")",
                            () -> t1.publish("m1"));
                    r.callSettle("T3", "rt", "addListener", A("codec", "StringCodec", "type", "java.lang.String"),
                            "topic.addListener(String.class, listener)", SETTLE,
                            v(() -> t3.addListener(String.class, in3.<String>listener())));
                    r.query("T3", "rt", "listener.received", received(in3));
                    r.callSettle("T1", "rt", "publish", A("codec", "StringCodec", "message", "m2"), "topic.publish(\"m2\")",
                            SETTLE, () -> t1.publish("m2"));
                    r.query("T3", "rt", "listener.received", received(in3));
                    r.callSettle("T1", "rt", "addListener", A("codec", "StringCodec", "type", "java.lang.String"),
                            "topic.addListener(String.class, listener)", SETTLE,
                            v(() -> t1.addListener(String.class, in1.<String>listener())));
                    r.callSettle("T1", "rt", "publish", A("codec", "StringCodec", "message", "m3"), "topic.publish(\"m3\")",
                            SETTLE, () -> t1.publish("m3"));
                    r.query("T3", "rt", "listener.received", received(in3));
                    r.query("T1", "rt", "listener.received", received(in1),
                            "countSubscribers", (Callable<Object>) t1::countSubscribers,
                            "countListeners", (Callable<Object>) t1::countListeners,
                            "size", (Callable<Object>) t1::size);
                    r.callSettle("T3", "rt", "removeAllListeners", null, "topic.removeAllListeners()", SETTLE,
                            v(t3::removeAllListeners));
                    r.callSettle("T1", "rt", "publish", A("codec", "StringCodec", "message", "m4"), "topic.publish(\"m4\")",
                            SETTLE, () -> t1.publish("m4"));
                    r.query("T1", "rt", "listener.received", received(in1));
                    r.callSettle("T1", "rt", "removeAllListeners", null, "topic.removeAllListeners()", SETTLE,
                            v(t1::removeAllListeners));
                }).commands("data")
                .note("listener ids (random) are not recorded; addListener is recorded as void");

        sc("topics", "reliabletopic.watchdog",
                "reliableTopicWatchdogTimeout = 3000 ms: the listening instance re-sets its {rt}:timeout score to"
                        + " now + 3000 every 1000 ms (without renewal it would have ~1250 ms left after the sleep)",
                r -> {
                    RReliableTopic t3 = r.obj("T3", "rtopic", "rt", c -> c.getReliableTopic("rt", StringCodec.INSTANCE));
                    Inbox in3 = new Inbox();
                    r.callSettle("T3", "rt", "addListener", A("codec", "StringCodec", "type", "java.lang.String"),
                            "topic.addListener(String.class, listener)", SETTLE,
                            v(() -> t3.addListener(String.class, in3.<String>listener())));
                    r.sleep(1500, "the watchdog renews the score after ~1000 ms");
                    r.callSettle("T3", "rt", "removeAllListeners", null, "topic.removeAllListeners()", SETTLE,
                            v(t3::removeAllListeners));
                }).grid(1000)
                .config("reliableTopicWatchdogTimeout_ms", 3000, c -> c.setReliableTopicWatchdogTimeout(3000))
                .note("ttl_grid_ms is 1000 here: the renewal time depends on Redisson's 100 ms timer tick");
    }

    // ------------------------------------------------------------------------------------------------ collections
    static List<Object> entries(Collection<? extends Map.Entry<?, ?>> es) {
        List<Object> out = new ArrayList<>();
        for (Map.Entry<?, ?> e : es) {
            out.add(Arrays.asList(plain2(e.getKey()), plain2(e.getValue())));
        }
        return out;
    }

    static void mapSteps(Run r, String name, Codec codec, String cn, boolean json) throws Exception {
        RMap<Object, Object> m = r.obj("T1", "map:" + cn, name, c -> c.getMap(name, codec));
        RMap<Object, Object> m3 = r.obj("T3", "map:" + cn, name, c -> c.getMap(name, codec));
        Object one = json ? (Object) 10 : "10";
        String oneDesc = json ? "10 (Integer)" : "\"10\"";
        r.call("T1", name, "put", A("codec", cn, "key", "a", "value", "1"), "map.put(\"a\", \"1\")", () -> m.put("a", "1"));
        r.call("T1", name, "put", A("codec", cn, "key", "a", "value", "2"), "map.put(\"a\", \"2\")", () -> m.put("a", "2"));
        r.call("T1", name, "putIfAbsent", A("codec", cn, "key", "a", "value", "3"), "map.putIfAbsent(\"a\", \"3\")",
                () -> m.putIfAbsent("a", "3"));
        r.call("T1", name, "putIfAbsent", A("codec", cn, "key", "n", "value", oneDesc),
                "map.putIfAbsent(\"n\", " + oneDesc + ")", () -> m.putIfAbsent("n", one));
        r.call("T1", name, "fastPut", A("codec", cn, "key", "c", "value", "x"), "map.fastPut(\"c\", \"x\")",
                () -> m.fastPut("c", "x"));
        r.call("T1", name, "fastPut", A("codec", cn, "key", "c", "value", "y"), "map.fastPut(\"c\", \"y\")",
                () -> m.fastPut("c", "y"));
        r.call("T1", name, "addAndGet", A("codec", cn, "key", "n", "delta", "5 (Integer)"), "map.addAndGet(\"n\", 5)",
                () -> m.addAndGet("n", 5));
        r.call("T1", name, "addAndGet", A("codec", cn, "key", "n", "delta", "0.5 (Double)"), "map.addAndGet(\"n\", 0.5)",
                () -> m.addAndGet("n", 0.5));
        r.call("T1", name, "addAndGet", A("codec", cn, "key", "new", "delta", "3L (Long)"), "map.addAndGet(\"new\", 3L)",
                () -> m.addAndGet("new", 3L));
        if (json) {
            r.call("T1", name, "put", A("codec", cn, "key", "l", "value", "10L (Long)"), "map.put(\"l\", 10L)",
                    () -> m.put("l", 10L));
            r.call("T1", name, "addAndGet", A("codec", cn, "key", "l", "delta", "1 (Integer)"), "map.addAndGet(\"l\", 1)",
                    () -> m.addAndGet("l", 1));
            r.call("T1", name, "put", A("codec", cn, "key", "p", "value", "Person (codec.json_pojo)"),
                    "map.put(\"p\", person)", () -> m.put("p", samplePerson()));
        }
        r.call("T3", name, "getAll", A("codec", cn, "keys", Arrays.asList("a", "n", "zz")),
                "map.getAll(Set.of(\"a\", \"n\", \"zz\"))", () -> got(m3.getAll(new LinkedHashSet<>(Arrays.asList("a", "n", "zz")))));
        r.call("T3", name, "get", A("codec", cn, "key", "n"), "map.get(\"n\")", () -> got(m3.get("n")));
        r.call("T1", name, "remove", A("codec", cn, "key", "a"), "map.remove(\"a\")", () -> m.remove("a"));
        r.call("T1", name, "remove", A("codec", cn, "key", "zz"), "map.remove(\"zz\")", () -> m.remove("zz"));
        r.call("T1", name, "fastRemove", A("codec", cn, "keys", Arrays.asList("c", "zz")), "map.fastRemove(\"c\", \"zz\")",
                () -> m.fastRemove("c", "zz"));
        r.query("T3", name, "entrySet.iterator", (Callable<Object>) () -> entries(new ArrayList<>(m3.entrySet())),
                "readAllEntrySet", (Callable<Object>) () -> entries(m3.readAllEntrySet()),
                "size", (Callable<Object>) m3::size,
                "containsKey(\"n\")", (Callable<Object>) () -> m3.containsKey("n"));
    }

    static void defineCollections() {
        JsonJacksonCodec json = new JsonJacksonCodec();
        String J = "JsonJacksonCodec", S = "StringCodec";

        sc("collections", "collections.map_string",
                "RMap with StringCodec: put (script returning the old value), putIfAbsent, fastPut (HSET), addAndGet"
                        + " (HINCRBYFLOAT), getAll (HMGET), remove, fastRemove (HDEL), entry iteration (HSCAN) and"
                        + " readAllEntrySet (HGETALL)",
                r -> mapSteps(r, "map", StringCodec.INSTANCE, S, false)).commands("data");

        sc("collections", "collections.map_json",
                "RMap with JsonJacksonCodec: keys and values are JSON (\"a\" -> \"\\\"a\\\"\"); addAndGet works on an"
                        + " Integer value (plain JSON number) but not on a Long ([\"java.lang.Long\",10] is not a float)",
                r -> mapSteps(r, "map", json, J, true)).commands("data");

        sc("collections", "collections.list",
                "RList with StringCodec: add (RPUSH), add at index (script with LINSERT), set (LSET, old value via"
                        + " script), remove(Object) (LREM 1), remove(index), get (LINDEX), readAll (LRANGE), indexOf",
                r -> {
                    RList<Object> l = r.obj("T1", "list", "list", c -> c.getList("list", StringCodec.INSTANCE));
                    RList<Object> l3 = r.obj("T3", "list", "list", c -> c.getList("list", StringCodec.INSTANCE));
                    for (String x : Arrays.asList("a", "b", "c")) {
                        r.call("T1", "list", "add", A("codec", S, "value", x), "list.add(\"" + x + "\")", () -> l.add(x));
                    }
                    r.call("T1", "list", "add", A("codec", S, "index", 1, "value", "ins"), "list.add(1, \"ins\")",
                            v(() -> l.add(1, "ins")));
                    r.call("T1", "list", "set", A("codec", S, "index", 0, "value", "A"), "list.set(0, \"A\")",
                            () -> l.set(0, "A"));
                    r.call("T1", "list", "remove", A("codec", S, "value", "b"), "list.remove(\"b\")", () -> l.remove("b"));
                    r.call("T1", "list", "remove", A("codec", S, "index", 0), "list.remove(0)", () -> l.remove(0));
                    r.call("T3", "list", "get", A("codec", S, "index", 1), "list.get(1)", () -> l3.get(1));
                    r.query("T3", "list", "readAll", (Callable<Object>) l3::readAll,
                            "indexOf(\"c\")", (Callable<Object>) () -> l3.indexOf("c"),
                            "size", (Callable<Object>) l3::size);
                }).commands("data");

        sc("collections", "collections.list_json",
                "RList with JsonJacksonCodec: the element bytes of String, Integer, Long, UUID and a POJO",
                r -> {
                    RList<Object> l = r.obj("T1", "list", "jlist", c -> c.getList("jlist", json));
                    RList<Object> l3 = r.obj("T3", "list", "jlist", c -> c.getList("jlist", json));
                    r.call("T1", "jlist", "addAll", A("codec", J, "values", "[\"s\", 1 (Integer), 2L (Long), UUID, Person]"),
                            "list.addAll(List.of(\"s\", 1, 2L, uuid, person))",
                            () -> l.addAll(Arrays.asList("s", 1, 2L, SAMPLE_UUID, samplePerson())));
                    r.call("T3", "jlist", "readAll", A("codec", J), "list.readAll()", () -> got(l3.readAll()));
                }).commands("data");

        sc("collections", "collections.set",
                "RSet with StringCodec (SADD/SREM/SISMEMBER/SMEMBERS) and with JsonJacksonCodec, where 1 (Integer) and"
                        + " 1L (Long) are different members",
                r -> {
                    RSet<Object> s = r.obj("T1", "set", "set", c -> c.getSet("set", StringCodec.INSTANCE));
                    RSet<Object> s3 = r.obj("T3", "set", "set", c -> c.getSet("set", StringCodec.INSTANCE));
                    r.call("T1", "set", "add", A("codec", S, "value", "a"), "set.add(\"a\")", () -> s.add("a"));
                    r.call("T1", "set", "add", A("codec", S, "value", "a"), "set.add(\"a\")", () -> s.add("a"));
                    r.call("T1", "set", "add", A("codec", S, "value", "b"), "set.add(\"b\")", () -> s.add("b"));
                    r.call("T1", "set", "remove", A("codec", S, "value", "a"), "set.remove(\"a\")", () -> s.remove("a"));
                    r.query("T3", "set", "contains(\"b\")", (Callable<Object>) () -> s3.contains("b"),
                            "readAll", (Callable<Object>) () -> new TreeSet<>(s3.readAll()),
                            "size", (Callable<Object>) s3::size);
                    RSet<Object> j = r.obj("T1", "set", "jset", c -> c.getSet("jset", json));
                    RSet<Object> j3 = r.obj("T3", "set", "jset", c -> c.getSet("jset", json));
                    r.call("T1", "jset", "add", A("codec", J, "value", "1 (Integer)"), "set.add(1)", () -> j.add(1));
                    r.call("T1", "jset", "add", A("codec", J, "value", "1L (Long)"), "set.add(1L)", () -> j.add(1L));
                    r.call("T1", "jset", "add", A("codec", J, "value", "\"1\""), "set.add(\"1\")", () -> j.add("1"));
                    r.query("T3", "jset", "contains(1L)", (Callable<Object>) () -> j3.contains(1L),
                            "contains(2)", (Callable<Object>) () -> j3.contains(2),
                            "size", (Callable<Object>) j3::size);
                }).commands("data");

        sc("collections", "collections.queue_deque",
                "RQueue offer/peek/poll (RPUSH/LINDEX 0/LPOP) and RDeque addFirst/addLast/peekFirst/peekLast/pollFirst/"
                        + "pollLast, StringCodec",
                r -> {
                    RQueue<Object> q = r.obj("T1", "queue", "q", c -> c.getQueue("q", StringCodec.INSTANCE));
                    RQueue<Object> q3 = r.obj("T3", "queue", "q", c -> c.getQueue("q", StringCodec.INSTANCE));
                    r.call("T1", "q", "offer", A("codec", S, "value", "a"), "queue.offer(\"a\")", () -> q.offer("a"));
                    r.call("T1", "q", "offer", A("codec", S, "value", "b"), "queue.offer(\"b\")", () -> q.offer("b"));
                    r.call("T3", "q", "peek", A("codec", S), "queue.peek()", q3::peek);
                    r.call("T3", "q", "poll", A("codec", S), "queue.poll()", q3::poll);
                    r.call("T3", "q", "poll", A("codec", S), "queue.poll()", q3::poll);
                    r.call("T3", "q", "poll", A("codec", S), "queue.poll()", q3::poll);
                    RDeque<Object> d = r.obj("T1", "deque", "d", c -> c.getDeque("d", StringCodec.INSTANCE));
                    RDeque<Object> d3 = r.obj("T3", "deque", "d", c -> c.getDeque("d", StringCodec.INSTANCE));
                    r.call("T1", "d", "addFirst", A("codec", S, "value", "x"), "deque.addFirst(\"x\")", v(() -> d.addFirst("x")));
                    r.call("T1", "d", "addLast", A("codec", S, "value", "y"), "deque.addLast(\"y\")", v(() -> d.addLast("y")));
                    r.call("T1", "d", "addFirst", A("codec", S, "value", "w"), "deque.addFirst(\"w\")", v(() -> d.addFirst("w")));
                    r.query("T3", "d", "peekFirst", (Callable<Object>) d3::peekFirst,
                            "peekLast", (Callable<Object>) d3::peekLast);
                    r.call("T3", "d", "pollLast", A("codec", S), "deque.pollLast()", d3::pollLast);
                    r.call("T3", "d", "pollFirst", A("codec", S), "deque.pollFirst()", d3::pollFirst);
                }).commands("data");

        sc("collections", "collections.blocking_queue",
                "RBlockingQueue: take() is BLPOP q 0 on the consumer's connection; a put() (RPUSH) by the other client"
                        + " wakes it; poll(250 ms) sends BLPOP q 1 (Redisson rounds sub-second timeouts up to 1 s);"
                        + " poll(1 s) returns at once when an element is there",
                r -> {
                    RBlockingQueue<Object> q = r.obj("T1", "bqueue", "bq", c -> c.getBlockingQueue("bq", StringCodec.INSTANCE));
                    RBlockingQueue<Object> q3 = r.obj("T3", "bqueue", "bq", c -> c.getBlockingQueue("bq", StringCodec.INSTANCE));
                    r.start("T3", "bq", "take", A("codec", S), "queue.take()", q3::take);
                    r.call("T1", "bq", "put", A("codec", S, "value", "job1"), "queue.put(\"job1\")", v(() -> q.put("job1")), "T3");
                    r.call("T3", "bq", "poll", A("codec", S, "wait_ms", 250), "queue.poll(250, MILLISECONDS)",
                            () -> q3.poll(250, MS));
                    r.call("T1", "bq", "offer", A("codec", S, "value", "job2"), "queue.offer(\"job2\")", () -> q.offer("job2"));
                    r.call("T3", "bq", "poll", A("codec", S, "wait_ms", 1000), "queue.poll(1000, MILLISECONDS)",
                            () -> q3.poll(1000, MS));
                }).commands("data");

        sc("collections", "collections.scored_sorted_set",
                "RScoredSortedSet with StringCodec and JsonJacksonCodec: add (ZADD), addScore (ZINCRBY), rank (ZRANK),"
                        + " getScore (ZSCORE), pollFirst, pollLast",
                r -> {
                    RScoredSortedSet<Object> z = r.obj("T1", "zset", "z", c -> c.getScoredSortedSet("z", StringCodec.INSTANCE));
                    RScoredSortedSet<Object> z3 = r.obj("T3", "zset", "z", c -> c.getScoredSortedSet("z", StringCodec.INSTANCE));
                    r.call("T1", "z", "add", A("codec", S, "score", 1.5, "value", "a"), "zset.add(1.5, \"a\")", () -> z.add(1.5, "a"));
                    r.call("T1", "z", "add", A("codec", S, "score", 2.5, "value", "b"), "zset.add(2.5, \"b\")", () -> z.add(2.5, "b"));
                    r.call("T1", "z", "add", A("codec", S, "score", 0.5, "value", "c"), "zset.add(0.5, \"c\")", () -> z.add(0.5, "c"));
                    r.call("T1", "z", "add", A("codec", S, "score", 9, "value", "c"), "zset.add(9, \"c\")", () -> z.add(9, "c"));
                    r.call("T1", "z", "addScore", A("codec", S, "value", "a", "delta", 2), "zset.addScore(\"a\", 2)",
                            () -> z.addScore("a", 2));
                    r.query("T3", "z", "rank(\"a\")", (Callable<Object>) () -> z3.rank("a"),
                            "revRank(\"a\")", (Callable<Object>) () -> z3.revRank("a"),
                            "rank(\"zz\")", (Callable<Object>) () -> z3.rank("zz"),
                            "getScore(\"b\")", (Callable<Object>) () -> z3.getScore("b"),
                            "readAll", (Callable<Object>) () -> new ArrayList<>(z3.readAll()));
                    r.call("T3", "z", "pollFirst", A("codec", S), "zset.pollFirst()", z3::pollFirst);
                    r.call("T3", "z", "pollLast", A("codec", S), "zset.pollLast()", z3::pollLast);
                    RScoredSortedSet<Object> j = r.obj("T1", "zset", "jz", c -> c.getScoredSortedSet("jz", json));
                    r.call("T1", "jz", "add", A("codec", J, "score", 1, "value", "Person (codec.json_pojo)"),
                            "zset.add(1, person)", () -> j.add(1, samplePerson()));
                    r.call("T1", "jz", "add", A("codec", J, "score", 2, "value", "2L (Long)"), "zset.add(2, 2L)",
                            () -> j.add(2, 2L));
                }).commands("data");

        sc("collections", "collections.set_cache",
                "RSetCache: a zset whose member is the encoded value and whose score is the expiry time in ms"
                        + " (92233720368547758 without TTL); re-adding refreshes the score but returns false; an expired"
                        + " member is invisible to contains/readAll/size but stays stored until the eviction task runs",
                r -> {
                    RSetCache<Object> s = r.obj("T1", "setcache", "sc", c -> c.getSetCache("sc", StringCodec.INSTANCE));
                    RSetCache<Object> s3 = r.obj("T3", "setcache", "sc", c -> c.getSetCache("sc", StringCodec.INSTANCE));
                    r.call("T1", "sc", "add", A("codec", S, "value", "a", "ttl_ms", 1000), "setCache.add(\"a\", 1000, MILLISECONDS)",
                            () -> s.add("a", 1000, MS));
                    r.call("T1", "sc", "add", A("codec", S, "value", "b"), "setCache.add(\"b\")", () -> s.add("b"));
                    r.call("T1", "sc", "add", A("codec", S, "value", "a", "ttl_ms", 2000), "setCache.add(\"a\", 2000, MILLISECONDS)",
                            () -> s.add("a", 2000, MS));
                    r.call("T1", "sc", "add", A("codec", S, "value", "c", "ttl_ms", 500), "setCache.add(\"c\", 500, MILLISECONDS)",
                            () -> s.add("c", 500, MS));
                    r.sleep(750, "\"c\" expires");
                    r.query("T3", "sc", "contains(\"c\")", (Callable<Object>) () -> s3.contains("c"),
                            "contains(\"a\")", (Callable<Object>) () -> s3.contains("a"),
                            "size", (Callable<Object>) s3::size,
                            "readAll", (Callable<Object>) () -> new TreeSet<>(s3.readAll()));
                    r.call("T1", "sc", "add", A("codec", S, "value", "c", "ttl_ms", 500), "setCache.add(\"c\", 500, MILLISECONDS)",
                            () -> s.add("c", 500, MS));
                    r.call("T1", "sc", "remove", A("codec", S, "value", "b"), "setCache.remove(\"b\")", () -> s.remove("b"));
                }).commands("data")
                .config("minCleanUpDelay_s", 3600, c -> c.setMinCleanUpDelay(3600))
                .note("minCleanUpDelay is 3600 s so that no eviction task runs during the scenario (see"
                        + " collections.set_cache_eviction)");

        sc("collections", "collections.set_cache_eviction",
                "RSetCache eviction task (minCleanUpDelay = 1 s, only C1 holds the object): ~1 s after the object was"
                        + " created the task removes the expired member",
                r -> {
                    RSetCache<Object> s = r.obj("T1", "setcache", "sc", c -> c.getSetCache("sc", StringCodec.INSTANCE));
                    r.call("T1", "sc", "add", A("codec", S, "value", "x", "ttl_ms", 500), "setCache.add(\"x\", 500, MILLISECONDS)",
                            () -> s.add("x", 500, MS));
                    r.call("T1", "sc", "add", A("codec", S, "value", "y", "ttl_ms", 10000), "setCache.add(\"y\", 10000, MILLISECONDS)",
                            () -> s.add("y", 10000, MS));
                    r.sleep(1500, "the eviction task runs ~1000-1100 ms after the object was created");
                    r.query("T1", "sc", "size", (Callable<Object>) s::size);
                }).config("minCleanUpDelay_s", 1, c -> c.setMinCleanUpDelay(1))
                .note("the task's run-once latch key redisson__execute_task_once_latch:{sc} (4.7.0) is left out of"
                        + " the state (README)");
    }

    // ------------------------------------------------------------------------------------------------ delayed queue
    /** Redisson's RDelayedQueue.offer script, sent by the recorder with a fixed id (what a Go producer sends). */
    static final String GO_OFFER_SCRIPT =
            "local value = struct.pack('Bc0Lc0', string.len(ARGV[2]), ARGV[2], string.len(ARGV[3]), ARGV[3]);"
                    + "redis.call('zadd', KEYS[2], ARGV[1], value);"
                    + "redis.call('rpush', KEYS[3], value);"
                    + "local v = redis.call('zrange', KEYS[2], 0, 0); "
                    + "if v[1] == value then "
                    + "redis.call('publish', KEYS[4], ARGV[1]); "
                    + "end;";
    /** The same without the PUBLISH of the new head's due time. */
    static final String GO_OFFER_SCRIPT_NO_PUBLISH =
            "local value = struct.pack('Bc0Lc0', string.len(ARGV[2]), ARGV[2], string.len(ARGV[3]), ARGV[3]);"
                    + "redis.call('zadd', KEYS[2], ARGV[1], value);"
                    + "redis.call('rpush', KEYS[3], value);";

    static void defineDelayedQueue() {
        String S = "StringCodec";
        sc("delayedqueue", "delayedqueue.offer_transfer",
                "RDelayedQueue over RBlockingQueue dq (StringCodec), held by C1 only: creating it subscribes"
                        + " redisson_delay_queue_channel:{dq} and runs the transfer script once; offer(v, delay) ZADDs"
                        + " the packed entry to redisson_delay_queue_timeout:{dq} (score = due time) and RPUSHes it to"
                        + " redisson_delay_queue:{dq}, publishing the due time when it is the new head; C1's transfer"
                        + " task moves due entries to dq (RPUSH of the bare value) on time, where C2's plain take()"
                        + " (BLPOP) gets them",
                r -> {
                    RBlockingQueue<Object> q1 = r.obj("T1", "bqueue", "dq", c -> c.getBlockingQueue("dq", StringCodec.INSTANCE));
                    RBlockingQueue<Object> q3 = r.obj("T3", "bqueue", "dq", c -> c.getBlockingQueue("dq", StringCodec.INSTANCE));
                    RDelayedQueue<Object>[] dq = new RDelayedQueue[1];
                    r.callSettle("T1", "dq", "getDelayedQueue", A("codec", S, "destination", "RBlockingQueue dq"),
                            "redisson.getDelayedQueue(redisson.getBlockingQueue(\"dq\", StringCodec.INSTANCE))", SETTLE,
                            v(() -> dq[0] = r.client("T1").getDelayedQueue(q1)));
                    r.call("T1", "dq", "offer", A("codec", S, "value", "a", "delay_ms", 1500),
                            "delayedQueue.offer(\"a\", 1500, MILLISECONDS)", v(() -> dq[0].offer("a", 1500, MS)));
                    r.call("T1", "dq", "offer", A("codec", S, "value", "b", "delay_ms", 500),
                            "delayedQueue.offer(\"b\", 500, MILLISECONDS)", v(() -> dq[0].offer("b", 500, MS)));
                    r.call("T1", "dq", "offer", A("codec", S, "value", "c", "delay_ms", 3000),
                            "delayedQueue.offer(\"c\", 3000, MILLISECONDS)", v(() -> dq[0].offer("c", 3000, MS)));
                    r.query("T1", "dq", "size", (Callable<Object>) () -> dq[0].size(),
                            "readAll", (Callable<Object>) () -> dq[0].readAll(),
                            "contains(\"b\")", (Callable<Object>) () -> dq[0].contains("b"));
                    r.start("T3", "dq", "take", A("codec", S, "object", "RBlockingQueue dq"), "blockingQueue.take()", q3::take);
                    r.sleep(500, "\"b\" is due ~500 ms after its offer: C1's transfer task moves it and T3's take returns");
                    r.await("T3");
                    r.start("T3", "dq", "take", A("codec", S, "object", "RBlockingQueue dq"), "blockingQueue.take()", q3::take);
                    r.sleep(750, "\"a\" is due 1500 ms after its offer");
                    r.await("T3");
                    r.call("T1", "dq", "poll", A("codec", S), "delayedQueue.poll()", () -> dq[0].poll());
                    r.call("T1", "dq", "destroy", null, "delayedQueue.destroy()", v(() -> dq[0].destroy()));
                }).commands("data")
                .note("only C1 holds an RDelayedQueue: with several holders every one runs the transfer at the due"
                        + " time and the first one moves the entry");

        sc("delayedqueue", "delayedqueue.go_producer",
                "what a non-Java producer must write: the recorder runs Redisson's offer script with a fixed 8-byte"
                        + " id (0102030405060708); C1's RDelayedQueue transfer task gets the PUBLISHed due time and"
                        + " moves the entry on time; written without the PUBLISH, the entry is not moved, and it also blocks"
                        + " later Java offers (their due time is published only when they become the head) until a"
                        + " transfer task runs for another reason (here: C2 creating its RDelayedQueue)",
                r -> {
                    RBlockingQueue<Object> q1 = r.obj("T1", "bqueue", "dq", c -> c.getBlockingQueue("dq", StringCodec.INSTANCE));
                    RBlockingQueue<Object> q3 = r.obj("T3", "bqueue", "dq", c -> c.getBlockingQueue("dq", StringCodec.INSTANCE));
                    RDelayedQueue<Object>[] dq = new RDelayedQueue[1];
                    byte[] id = {1, 2, 3, 4, 5, 6, 7, 8};
                    r.callSettle("T1", "dq", "getDelayedQueue", A("codec", S, "destination", "RBlockingQueue dq"),
                            "redisson.getDelayedQueue(redisson.getBlockingQueue(\"dq\", StringCodec.INSTANCE))", SETTLE,
                            v(() -> dq[0] = r.client("T1").getDelayedQueue(q1)));
                    r.raw("Go producer: Redisson's offer script (ZADD + RPUSH of the packed entry, PUBLISH of the due"
                                    + " time when it is the new head)", "EVAL", GO_OFFER_SCRIPT, "4", "dq",
                            "redisson_delay_queue_timeout:{dq}", "redisson_delay_queue:{dq}",
                            "redisson_delay_queue_channel:{dq}", new NowPlus(750), id, "go-a");
                    r.start("T3", "dq", "take", A("codec", S, "object", "RBlockingQueue dq"), "blockingQueue.take()", q3::take);
                    r.sleep(750, "the entry is due 750 ms after it was written");
                    r.await("T3");
                    r.raw("Go producer without the PUBLISH", "EVAL", GO_OFFER_SCRIPT_NO_PUBLISH, "3", "dq",
                            "redisson_delay_queue_timeout:{dq}", "redisson_delay_queue:{dq}", new NowPlus(250), id, "go-b");
                    r.sleep(500, "the entry is overdue, but no transfer task was told about it");
                    r.call("T1", "dq", "offer", A("codec", S, "value", "x", "delay_ms", 250),
                            "delayedQueue.offer(\"x\", 250, MILLISECONDS)", v(() -> dq[0].offer("x", 250, MS)));
                    r.sleep(500, "\"x\" is due too, but it was not the new head (go-b is), so its offer published nothing");
                    RDelayedQueue<Object>[] dq3 = new RDelayedQueue[1];
                    r.callSettle("T3", "dq", "getDelayedQueue", A("codec", S, "destination", "RBlockingQueue dq"),
                            "redisson.getDelayedQueue(redisson.getBlockingQueue(\"dq\", StringCodec.INSTANCE))", SETTLE,
                            v(() -> dq3[0] = r.client("T3").getDelayedQueue(q3)));
                    r.call("T3", "dq", "poll", A("codec", S, "object", "RBlockingQueue dq"), "blockingQueue.poll()", q3::poll);
                    r.call("T3", "dq", "poll", A("codec", S, "object", "RBlockingQueue dq"), "blockingQueue.poll()", q3::poll);
                    r.call("T3", "dq", "destroy", null, "delayedQueue.destroy()", v(() -> dq3[0].destroy()));
                    r.call("T1", "dq", "destroy", null, "delayedQueue.destroy()", v(() -> dq[0].destroy()));
                }).commands("data");

        sc("delayedqueue", "delayedqueue.producer_gone",
                "nothing in Redis moves a due entry: after the only holder (C1) destroy()s its RDelayedQueue the entry"
                        + " stays in the delay zset; when C2 creates an RDelayedQueue for dq its transfer task moves"
                        + " every overdue entry at once (on subscribe)",
                r -> {
                    RBlockingQueue<Object> q1 = r.obj("T1", "bqueue", "dq", c -> c.getBlockingQueue("dq", StringCodec.INSTANCE));
                    RBlockingQueue<Object> q3 = r.obj("T3", "bqueue", "dq", c -> c.getBlockingQueue("dq", StringCodec.INSTANCE));
                    RDelayedQueue<Object>[] dq = new RDelayedQueue[2];
                    r.callSettle("T1", "dq", "getDelayedQueue", A("codec", S, "destination", "RBlockingQueue dq"),
                            "redisson.getDelayedQueue(redisson.getBlockingQueue(\"dq\", StringCodec.INSTANCE))", SETTLE,
                            v(() -> dq[0] = r.client("T1").getDelayedQueue(q1)));
                    r.call("T1", "dq", "offer", A("codec", S, "value", "a", "delay_ms", 250),
                            "delayedQueue.offer(\"a\", 250, MILLISECONDS)", v(() -> dq[0].offer("a", 250, MS)));
                    r.callSettle("T1", "dq", "destroy", null, "delayedQueue.destroy()", SETTLE, v(() -> dq[0].destroy()));
                    r.sleep(500, "\"a\" is overdue; no client runs a transfer task");
                    r.callSettle("T3", "dq", "getDelayedQueue", A("codec", S, "destination", "RBlockingQueue dq"),
                            "redisson.getDelayedQueue(redisson.getBlockingQueue(\"dq\", StringCodec.INSTANCE))", SETTLE,
                            v(() -> dq[1] = r.client("T3").getDelayedQueue(q3)));
                    r.call("T3", "dq", "poll", A("codec", S, "object", "RBlockingQueue dq"), "blockingQueue.poll()", q3::poll);
                    r.call("T3", "dq", "destroy", null, "delayedQueue.destroy()", v(() -> dq[1].destroy()));
                }).commands("data");

        sc("delayedqueue", "delayedqueue.json",
                "the packed entry with JsonJacksonCodec values (a String and a Long): the value part is the codec's"
                        + " bytes",
                r -> {
                    JsonJacksonCodec json = new JsonJacksonCodec();
                    RBlockingQueue<Object> q1 = r.obj("T1", "bqueue", "jdq", c -> c.getBlockingQueue("jdq", json));
                    RDelayedQueue<Object>[] dq = new RDelayedQueue[1];
                    r.callSettle("T1", "jdq", "getDelayedQueue", A("codec", "JsonJacksonCodec", "destination", "RBlockingQueue jdq"),
                            "redisson.getDelayedQueue(redisson.getBlockingQueue(\"jdq\", new JsonJacksonCodec()))", SETTLE,
                            v(() -> dq[0] = r.client("T1").getDelayedQueue(q1)));
                    r.call("T1", "jdq", "offer", A("codec", "JsonJacksonCodec", "value", "\"s\"", "delay_ms", 10000),
                            "delayedQueue.offer(\"s\", 10000, MILLISECONDS)", v(() -> dq[0].offer("s", 10000, MS)));
                    r.call("T1", "jdq", "offer", A("codec", "JsonJacksonCodec", "value", "5L (Long)", "delay_ms", 20000),
                            "delayedQueue.offer(5L, 20000, MILLISECONDS)", v(() -> dq[0].offer(5L, 20000, MS)));
                    r.call("T1", "jdq", "destroy", null, "delayedQueue.destroy()", v(() -> dq[0].destroy()));
                });
    }

    // ------------------------------------------------------------------------------------------------ map cache
    /** Entry events of an RMapCache, in arrival order. */
    @SuppressWarnings({"rawtypes", "unchecked"})
    static Object[] mapCacheListeners(Inbox in) {
        Consumer<EntryEvent> rec = e -> {
            Map<String, Object> m = new LinkedHashMap<>();
            m.put("type", e.getType().name());
            m.put("key", plain2(e.getKey()));
            m.put("value", plain2(e.getValue()));
            m.put("oldValue", plain2(e.getOldValue()));
            in.add(m);
        };
        return new Object[] {
            (EntryCreatedListener) rec::accept, (EntryUpdatedListener) rec::accept,
            (EntryRemovedListener) rec::accept, (EntryExpiredListener) rec::accept};
    }

    static void defineMapCache() {
        String S = "StringCodec";
        sc("mapcache", "mapcache.put_ttl_maxidle",
                "RMapCache (StringCodec): the hash field value is struct.pack('dLc0', maxIdle ms as a double,"
                        + " value length as 8-byte LE, value); ttl -> redisson__timeout__set:{mc} (score = expiry),"
                        + " maxIdle -> redisson__idle__set:{mc} (score = last access + maxIdle); get() moves the idle"
                        + " score forward; an expired entry reads as null but stays stored (no eviction on read)",
                r -> {
                    RMapCache<Object, Object> m = r.obj("T1", "mapcache", "mc", c -> c.getMapCache("mc", StringCodec.INSTANCE));
                    RMapCache<Object, Object> m3 = r.obj("T3", "mapcache", "mc", c -> c.getMapCache("mc", StringCodec.INSTANCE));
                    r.call("T1", "mc", "put", A("codec", S, "key", "k1", "value", "v1"), "mapCache.put(\"k1\", \"v1\")",
                            () -> m.put("k1", "v1"));
                    r.call("T1", "mc", "put", A("codec", S, "key", "k2", "value", "v2", "ttl_ms", 1000),
                            "mapCache.put(\"k2\", \"v2\", 1000, MILLISECONDS)", () -> m.put("k2", "v2", 1000, MS));
                    r.call("T1", "mc", "put", A("codec", S, "key", "k3", "value", "v3", "ttl_ms", 0, "max_idle_ms", 1000),
                            "mapCache.put(\"k3\", \"v3\", 0, MILLISECONDS, 1000, MILLISECONDS)",
                            () -> m.put("k3", "v3", 0, MS, 1000, MS));
                    r.call("T1", "mc", "put", A("codec", S, "key", "k4", "value", "v4", "ttl_ms", 2000, "max_idle_ms", 1000),
                            "mapCache.put(\"k4\", \"v4\", 2000, MILLISECONDS, 1000, MILLISECONDS)",
                            () -> m.put("k4", "v4", 2000, MS, 1000, MS));
                    r.sleep(500, "half of the idle time passes");
                    r.call("T3", "mc", "get", A("codec", S, "key", "k3"), "mapCache.get(\"k3\")", () -> m3.get("k3"));
                    r.query("T1", "mc", "remainTimeToLive(\"k2\")", (Callable<Object>) () -> ttl(m.remainTimeToLive("k2")),
                            "remainTimeToLive(\"k3\")", (Callable<Object>) () -> ttl(m.remainTimeToLive("k3")),
                            "remainTimeToLive(\"k4\")", (Callable<Object>) () -> ttl(m.remainTimeToLive("k4")),
                            "remainTimeToLive(\"k1\")", (Callable<Object>) () -> ttl(m.remainTimeToLive("k1")),
                            "remainTimeToLive(\"nope\")", (Callable<Object>) () -> ttl(m.remainTimeToLive("nope")));
                    r.sleep(750, "k2 (ttl) and k4 (idle since its put) expire; k3 was read 750 ms ago");
                    r.call("T3", "mc", "get", A("codec", S, "key", "k2"), "mapCache.get(\"k2\")", () -> m3.get("k2"));
                    r.call("T3", "mc", "get", A("codec", S, "key", "k4"), "mapCache.get(\"k4\")", () -> m3.get("k4"));
                    r.query("T3", "mc", "get(\"k3\")", (Callable<Object>) () -> m3.get("k3"),
                            "containsKey(\"k2\")", (Callable<Object>) () -> m3.containsKey("k2"),
                            "size", (Callable<Object>) m3::size,
                            "readAllMap", (Callable<Object>) () -> new TreeMap<>(m3.readAllMap()));
                    r.call("T1", "mc", "put", A("codec", S, "key", "k2", "value", "new"), "mapCache.put(\"k2\", \"new\")",
                            () -> m.put("k2", "new"));
                    r.call("T1", "mc", "fastPut", A("codec", S, "key", "k5", "value", "v5", "ttl_ms", 1000),
                            "mapCache.fastPut(\"k5\", \"v5\", 1000, MILLISECONDS)", () -> m.fastPut("k5", "v5", 1000, MS));
                    r.call("T1", "mc", "putIfAbsent", A("codec", S, "key", "k5", "value", "x", "ttl_ms", 1000),
                            "mapCache.putIfAbsent(\"k5\", \"x\", 1000, MILLISECONDS)",
                            () -> m.putIfAbsent("k5", "x", 1000, MS));
                    r.call("T1", "mc", "remove", A("codec", S, "key", "k1"), "mapCache.remove(\"k1\")", () -> m.remove("k1"));
                    r.call("T1", "mc", "fastRemove", A("codec", S, "keys", Arrays.asList("k5")), "mapCache.fastRemove(\"k5\")",
                            () -> m.fastRemove("k5"));
                }).commands("data")
                .config("minCleanUpDelay_s", 3600, c -> c.setMinCleanUpDelay(3600))
                .note("minCleanUpDelay is 3600 s: no eviction task runs during the scenario (see mapcache.eviction)");

        sc("mapcache", "mapcache.events",
                "entry listeners (C2): adding one sets has-listeners in {mc}:redisson_options and subscribes"
                        + " redisson_map_cache_{created,updated,removed,expired}:{mc}; the write scripts then publish"
                        + " struct.pack('Lc0Lc0[Lc0]', key, value[, old value]) with 8-byte LE lengths",
                r -> {
                    RMapCache<Object, Object> m = r.obj("T1", "mapcache", "mc", c -> c.getMapCache("mc", StringCodec.INSTANCE));
                    RMapCache<Object, Object> m3 = r.obj("T3", "mapcache", "mc", c -> c.getMapCache("mc", StringCodec.INSTANCE));
                    Inbox in = new Inbox();
                    Object[] ls = mapCacheListeners(in);
                    String[] names = {"EntryCreatedListener", "EntryUpdatedListener", "EntryRemovedListener",
                        "EntryExpiredListener"};
                    for (int i = 0; i < 4; i++) {
                        Object l = ls[i];
                        r.call("T3", "mc", "addListener", A("listener", names[i]), "mapCache.addListener(" + names[i] + ")",
                                v(() -> m3.addListener((org.redisson.api.map.event.MapEntryListener) l)));
                    }
                    r.callSettle("T1", "mc", "put", A("codec", S, "key", "a", "value", "1"), "mapCache.put(\"a\", \"1\")",
                            SETTLE, () -> m.put("a", "1"));
                    r.callSettle("T1", "mc", "put", A("codec", S, "key", "a", "value", "2"), "mapCache.put(\"a\", \"2\")",
                            SETTLE, () -> m.put("a", "2"));
                    r.callSettle("T1", "mc", "fastPutIfExists", A("codec", S, "key", "a", "value", "3"),
                            "mapCache.fastPutIfExists(\"a\", \"3\")", SETTLE, () -> m.fastPutIfExists("a", "3"));
                    r.callSettle("T1", "mc", "fastPut", A("codec", S, "key", "b", "value", "x", "ttl_ms", 10000),
                            "mapCache.fastPut(\"b\", \"x\", 10000, MILLISECONDS)", SETTLE, () -> m.fastPut("b", "x", 10000, MS));
                    r.callSettle("T1", "mc", "remove", A("codec", S, "key", "a"), "mapCache.remove(\"a\")", SETTLE,
                            () -> m.remove("a"));
                    r.query("T3", "mc", "listener.received", received(in));
                }).commands("pubsub").pubsub()
                .config("minCleanUpDelay_s", 3600, c -> c.setMinCleanUpDelay(3600));

        sc("mapcache", "mapcache.eviction",
                "the eviction task (minCleanUpDelay = 1 s, only C1 holds the map cache) runs ~1 s after the object was"
                        + " created: it deletes entries whose ttl or idle time has passed and publishes each on"
                        + " redisson_map_cache_expired:{mc}",
                r -> {
                    RMapCache<Object, Object> m = r.obj("T1", "mapcache", "mc", c -> c.getMapCache("mc", StringCodec.INSTANCE));
                    Inbox in = new Inbox();
                    Object[] ls = mapCacheListeners(in);
                    r.call("T1", "mc", "addListener", A("listener", "EntryExpiredListener"),
                            "mapCache.addListener(EntryExpiredListener)",
                            v(() -> m.addListener((org.redisson.api.map.event.MapEntryListener) ls[3])));
                    r.call("T1", "mc", "put", A("codec", S, "key", "a", "value", "1", "ttl_ms", 500),
                            "mapCache.put(\"a\", \"1\", 500, MILLISECONDS)", () -> m.put("a", "1", 500, MS));
                    r.call("T1", "mc", "put", A("codec", S, "key", "b", "value", "2", "ttl_ms", 0, "max_idle_ms", 500),
                            "mapCache.put(\"b\", \"2\", 0, MILLISECONDS, 500, MILLISECONDS)",
                            () -> m.put("b", "2", 0, MS, 500, MS));
                    r.call("T1", "mc", "put", A("codec", S, "key", "c", "value", "3", "ttl_ms", 10000),
                            "mapCache.put(\"c\", \"3\", 10000, MILLISECONDS)", () -> m.put("c", "3", 10000, MS));
                    r.sleep(1500, "the eviction task runs ~1000-1100 ms after the map cache object was created");
                    r.query("T1", "mc", "listener.received", received(in), "size", (Callable<Object>) m::size);
                }).config("minCleanUpDelay_s", 1, c -> c.setMinCleanUpDelay(1))
                .note("the task's run-once latch key redisson__execute_task_once_latch:{mc} is left out of the state");

        sc("mapcache", "mapcache.max_size",
                "setMaxSize(2) (LRU): {mc}:redisson_options gets max-size and mode; every write and read records the"
                        + " access time in redisson__map_cache__last_access__set:{mc}; a third entry evicts the least"
                        + " recently used one",
                r -> {
                    RMapCache<Object, Object> m = r.obj("T1", "mapcache", "mc", c -> c.getMapCache("mc", StringCodec.INSTANCE));
                    r.call("T1", "mc", "setMaxSize", A("max_size", 2), "mapCache.setMaxSize(2)", v(() -> m.setMaxSize(2)));
                    r.call("T1", "mc", "put", A("codec", S, "key", "a", "value", "1"), "mapCache.put(\"a\", \"1\")",
                            () -> m.put("a", "1"));
                    r.call("T1", "mc", "put", A("codec", S, "key", "b", "value", "2"), "mapCache.put(\"b\", \"2\")",
                            () -> m.put("b", "2"));
                    r.sleep(250, "so that the accesses have distinct times");
                    r.call("T1", "mc", "get", A("codec", S, "key", "a"), "mapCache.get(\"a\")", () -> m.get("a"));
                    r.call("T1", "mc", "put", A("codec", S, "key", "c", "value", "3"), "mapCache.put(\"c\", \"3\")",
                            () -> m.put("c", "3"));
                    r.query("T1", "mc", "readAllMap", (Callable<Object>) () -> new TreeMap<>(m.readAllMap()));
                }).commands("data")
                .config("minCleanUpDelay_s", 3600, c -> c.setMinCleanUpDelay(3600));
    }

    // ------------------------------------------------------------------------------------------------ local cached map
    /** Hex of Redisson's 16-byte key hash (Hash.hash128 of the encoded map key), as the invalidate messages carry it. */
    static String lcmKeyHash(Codec codec, Object key) throws Exception {
        io.netty.buffer.ByteBuf b = codec.getMapKeyEncoder().encode(key);
        try {
            return hex(org.redisson.misc.Hash.hash128toArray(b));
        } finally {
            b.release();
        }
    }

    /** Notes listing the key hashes of the scenario's keys. */
    static String lcmHashNote(Codec codec, String... keys) {
        StringBuilder sb = new StringBuilder("key hashes (Hash.hash128 of the encoded key, in the invalidate messages):");
        try {
            for (String k : keys) {
                sb.append(' ').append(k).append(" = ").append(lcmKeyHash(codec, k)).append(';');
            }
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
        sb.setLength(sb.length() - 1);
        return sb.toString();
    }

    /**
     * A call step in which the actor's client creates its RLocalCachedMap instance (subscriptions, start-up reads);
     * the instance's random 16-byte id is registered as the next <In> (creation order).
     */
    @SuppressWarnings("unchecked")
    static RLocalCachedMap<Object, Object> lcmCreate(Run r, String actor, String name, Codec codec, String codecName,
                                                      LocalCachedMapOptions.SyncStrategy sync,
                                                      LocalCachedMapOptions.ReconnectionStrategy rec,
                                                      LocalCachedMapOptions.StoreMode store) throws Exception {
        Map<String, Object> args = A("codec", codecName, "syncStrategy", sync.name());
        StringBuilder java = new StringBuilder("getLocalCachedMap(LocalCachedMapOptions.name(\"" + name + "\").codec("
                + codecName + ").syncStrategy(" + sync.name() + ")");
        if (rec != null) {
            args.put("reconnectionStrategy", rec.name());
            java.append(".reconnectionStrategy(").append(rec.name()).append(')');
        }
        if (store != null) {
            args.put("storeMode", store.name());
            java.append(".storeMode(").append(store.name()).append(')');
        }
        java.append(')');
        Object[] holder = new Object[1];
        r.call(actor, name, "getLocalCachedMap", args, java.toString(), v(() -> {
            LocalCachedMapOptions<Object, Object> o = LocalCachedMapOptions.<Object, Object>name(name).codec(codec)
                    .syncStrategy(sync);
            if (rec != null) {
                o = o.reconnectionStrategy(rec);
            }
            if (store != null) {
                o = o.storeMode(store);
            }
            RLocalCachedMap<Object, Object> m = r.client(actor).getLocalCachedMap(o);
            Field f = org.redisson.RedissonLocalCachedMap.class.getDeclaredField("instanceId");
            f.setAccessible(true);
            String id = hex((byte[]) f.get(m));
            synchronized (r.norm) {
                long n = r.norm.lcmInstances.values().stream().filter(x -> x.startsWith("I")).count();
                r.norm.lcmInstances.put(id, "I" + (n + 1));
            }
            holder[0] = m;
        }));
        r.objects.put(actor + "|lcm|" + name, holder[0]);
        return (RLocalCachedMap<Object, Object>) holder[0];
    }

    /** The instance id the foreign_messages scenario publishes with (as another client would). */
    static final byte[] GO_ID = new byte[] {0x11, 0x11, 0x11, 0x11, 0x11, 0x11, 0x11, 0x11, 0x11, 0x11, 0x11, 0x11,
        0x11, 0x11, 0x11, 0x11};

    static byte[] unhex(String h) {
        byte[] b = new byte[h.length() / 2];
        for (int i = 0; i < b.length; i++) {
            b[i] = (byte) Integer.parseInt(h.substring(2 * i, 2 * i + 2), 16);
        }
        return b;
    }

    static byte[] lcmInvalidate(byte[] id, String keyHashHex) {
        ByteBuffer b = ByteBuffer.allocate(1 + 16 + 4 + 16);
        b.put((byte) 1).put(id).putInt(1).put(unhex(keyHashHex));
        return b.array();
    }

    static byte[] lcmUpdate(byte[] id, String key, String value) {
        byte[] k = utf8(key);
        byte[] v = utf8(value);
        ByteBuffer b = ByteBuffer.allocate(1 + 16 + 4 + k.length + 4 + v.length);
        b.put((byte) 2).put(id).putInt(k.length).put(k).putInt(v.length).put(v);
        return b.array();
    }

    static byte[] lcmClear(byte[] id, byte[] request) {
        ByteBuffer b = ByteBuffer.allocate(1 + 16 + 16 + 1);
        b.put((byte) 0).put(id).put(request).put((byte) 0);
        return b.array();
    }

    static Callable<Object> cached(RLocalCachedMap<Object, Object> m) {
        return () -> new TreeMap<>(m.getCachedMap());
    }

    static String lit(Object o) {
        return o instanceof String ? "\"" + o + "\"" : String.valueOf(o);
    }

    static Object lcmPut(Run r, String actor, RLocalCachedMap<Object, Object> m, String cn, String op, Object k,
                         Object val) throws Exception {
        return r.callSettle(actor, m.getName(), op, A("codec", cn, "key", k, "value", val),
                "localCachedMap." + op + "(" + lit(k) + ", " + lit(val) + ")", SETTLE,
                () -> op.equals("put") ? m.put(k, val) : m.fastPut(k, val));
    }

    static Object lcmGet(Run r, String actor, RLocalCachedMap<Object, Object> m, String cn, Object k) throws Exception {
        return r.call(actor, m.getName(), "get", A("codec", cn, "key", k), "localCachedMap.get(" + lit(k) + ")",
                () -> m.get(k));
    }

    static void lcmQuery(Run r, String actor, RLocalCachedMap<Object, Object> m) throws Exception {
        r.query(actor, m.getName(), "getCachedMap", cached(m));
    }

    static void lcmPutAll(Run r, String actor, RLocalCachedMap<Object, Object> m, String cn, Object... kv)
            throws Exception {
        Map<Object, Object> all = new LinkedHashMap<>();
        StringBuilder j = new StringBuilder();
        for (int i = 0; i < kv.length; i += 2) {
            all.put(kv[i], kv[i + 1]);
            j.append(j.length() == 0 ? "" : ", ").append(lit(kv[i])).append('=').append(lit(kv[i + 1]));
        }
        Map<String, Object> shown = new LinkedHashMap<>();
        for (Map.Entry<Object, Object> e : all.entrySet()) {
            shown.put(String.valueOf(e.getKey()), e.getValue());
        }
        r.callSettle(actor, m.getName(), "putAll", A("codec", cn, "entries", shown),
                "localCachedMap.putAll(LinkedHashMap {" + j + "})", SETTLE, v(() -> m.putAll(all)));
    }

    static void lcmRemove(Run r, String actor, RLocalCachedMap<Object, Object> m, String cn, Object k) throws Exception {
        r.callSettle(actor, m.getName(), "remove", A("codec", cn, "key", k), "localCachedMap.remove(" + lit(k) + ")",
                SETTLE, () -> m.remove(k));
    }

    static void lcmFastRemove(Run r, String actor, RLocalCachedMap<Object, Object> m, String cn, Object... ks)
            throws Exception {
        StringBuilder j = new StringBuilder();
        for (Object k : ks) {
            j.append(j.length() == 0 ? "" : ", ").append(lit(k));
        }
        r.callSettle(actor, m.getName(), "fastRemove", A("codec", cn, "keys", Arrays.asList(ks)),
                "localCachedMap.fastRemove(" + j + ")", SETTLE, () -> m.fastRemove(ks));
    }

    static void defineLocalCachedMap() {
        String S = "StringCodec";
        Codec sc = StringCodec.INSTANCE;
        LocalCachedMapOptions.SyncStrategy INV = LocalCachedMapOptions.SyncStrategy.INVALIDATE;
        LocalCachedMapOptions.SyncStrategy UPD = LocalCachedMapOptions.SyncStrategy.UPDATE;
        LocalCachedMapOptions.SyncStrategy NONE = LocalCachedMapOptions.SyncStrategy.NONE;

        sc("localcachedmap", "lcm.invalidate",
                "RLocalCachedMap, syncStrategy INVALIDATE (StringCodec), one instance per client (T1 on C1, T3 on C2):"
                        + " every write runs one script that writes the hash and PUBLISHes {lcm}:topic an invalidate"
                        + " message (0x01, the writer's 16-byte instance id, int32 count, 16-byte key hashes); the other"
                        + " instance drops those keys from its near cache; a get that misses is an HGET and fills the"
                        + " near cache, a hit sends nothing; null is not cached; clear() publishes a clear message",
                r -> {
                    RLocalCachedMap<Object, Object> m = lcmCreate(r, "T1", "lcm", sc, S, INV, null, null);
                    RLocalCachedMap<Object, Object> m3 = lcmCreate(r, "T3", "lcm", sc, S, INV, null, null);
                    lcmPut(r, "T1", m, S, "put", "k1", "v1");
                    lcmQuery(r, "T3", m3);
                    lcmGet(r, "T3", m3, S, "k1");
                    lcmQuery(r, "T3", m3);
                    lcmGet(r, "T3", m3, S, "k1");
                    lcmGet(r, "T3", m3, S, "nope");
                    lcmGet(r, "T3", m3, S, "nope");
                    lcmQuery(r, "T1", m);
                    lcmPut(r, "T1", m, S, "put", "k1", "v2");
                    lcmQuery(r, "T3", m3);
                    lcmGet(r, "T3", m3, S, "k1");
                    lcmPut(r, "T1", m, S, "fastPut", "k2", "x");
                    lcmPutAll(r, "T1", m, S, "a", "1", "b", "2", "c", "3");
                    r.call("T3", "lcm", "getAll", A("codec", S, "keys", Arrays.asList("a", "b", "c")),
                            "localCachedMap.getAll(Set {\"a\", \"b\", \"c\"})",
                            () -> new TreeMap<>(m3.getAll(new LinkedHashSet<>(Arrays.asList("a", "b", "c")))));
                    lcmQuery(r, "T3", m3);
                    lcmRemove(r, "T1", m, S, "a");
                    lcmFastRemove(r, "T1", m, S, "b", "c");
                    lcmQuery(r, "T3", m3);
                    r.callSettle("T1", "lcm", "clear", null, "localCachedMap.clear()", SETTLE, v(m::clear));
                    r.query("T3", "lcm", "getCachedMap", cached(m3), "size", (Callable<Object>) m3::size);
                }).commands("data")
                .config("minCleanUpDelay_s", 3600, c -> c.setMinCleanUpDelay(3600))
                .note(lcmHashNote(sc, "k1", "k2", "a", "b", "c"))
                .note("<I1> is T1's (C1's) instance id, <I2> T3's (C2's): 16 random bytes per RLocalCachedMap instance,"
                        + " numbered in creation order; <Q1> is clear()'s random 16-byte request id");

        sc("localcachedmap", "lcm.update",
                "syncStrategy UPDATE: put/fastPut/putAll publish an update message (0x02, instance id, then per entry"
                        + " int32 key length, key bytes, int32 value length, value bytes) and the other instance stores"
                        + " the value in its near cache, so its next get sends nothing; remove/fastRemove still publish"
                        + " invalidate messages",
                r -> {
                    RLocalCachedMap<Object, Object> m = lcmCreate(r, "T1", "lcm", sc, S, UPD, null, null);
                    RLocalCachedMap<Object, Object> m3 = lcmCreate(r, "T3", "lcm", sc, S, UPD, null, null);
                    lcmGet(r, "T3", m3, S, "k1");
                    lcmPut(r, "T1", m, S, "put", "k1", "v1");
                    lcmQuery(r, "T3", m3);
                    lcmGet(r, "T3", m3, S, "k1");
                    lcmPutAll(r, "T1", m, S, "a", "1", "b", "2");
                    lcmQuery(r, "T3", m3);
                    lcmPut(r, "T1", m, S, "fastPut", "k1", "v2");
                    lcmQuery(r, "T3", m3);
                    lcmRemove(r, "T1", m, S, "a");
                    lcmFastRemove(r, "T1", m, S, "b");
                    lcmQuery(r, "T3", m3);
                    lcmPut(r, "T3", m3, S, "put", "k1", "v3");
                    lcmQuery(r, "T1", m);
                    lcmGet(r, "T1", m, S, "k1");
                }).commands("data")
                .config("minCleanUpDelay_s", 3600, c -> c.setMinCleanUpDelay(3600))
                .note(lcmHashNote(sc, "k1", "a", "b"));

        sc("localcachedmap", "lcm.none",
                "syncStrategy NONE: the write scripts publish nothing and the instances do not subscribe {lcm}:topic,"
                        + " so C2's near cache keeps the value it read first (stale) after C1 overwrites or removes it",
                r -> {
                    RLocalCachedMap<Object, Object> m = lcmCreate(r, "T1", "lcm", sc, S, NONE, null, null);
                    RLocalCachedMap<Object, Object> m3 = lcmCreate(r, "T3", "lcm", sc, S, NONE, null, null);
                    lcmPut(r, "T1", m, S, "put", "k1", "v1");
                    lcmGet(r, "T3", m3, S, "k1");
                    lcmPut(r, "T1", m, S, "put", "k1", "v2");
                    lcmQuery(r, "T3", m3);
                    lcmGet(r, "T3", m3, S, "k1");
                    lcmRemove(r, "T1", m, S, "k1");
                    lcmGet(r, "T3", m3, S, "k1");
                    lcmGet(r, "T1", m, S, "k1");
                }).commands("data")
                .config("minCleanUpDelay_s", 3600, c -> c.setMinCleanUpDelay(3600));

        sc("localcachedmap", "lcm.reconnection_load",
                "reconnectionStrategy LOAD (syncStrategy INVALIDATE): every write also ZADDs to"
                        + " redisson__cache_updates_log:{lcm} a member per key (16-byte key hash, ':', 8 random bytes)"
                        + " scored with the writer's clock, read back after a reconnection to invalidate what changed"
                        + " meanwhile; clear() deletes the log too",
                r -> {
                    LocalCachedMapOptions.ReconnectionStrategy LOAD = LocalCachedMapOptions.ReconnectionStrategy.LOAD;
                    RLocalCachedMap<Object, Object> m = lcmCreate(r, "T1", "lcm", sc, S, INV, LOAD, null);
                    RLocalCachedMap<Object, Object> m3 = lcmCreate(r, "T3", "lcm", sc, S, INV, LOAD, null);
                    lcmPut(r, "T1", m, S, "put", "k1", "v1");
                    lcmGet(r, "T3", m3, S, "k1");
                    lcmPut(r, "T1", m, S, "fastPut", "k2", "v2");
                    lcmPutAll(r, "T1", m, S, "a", "1", "b", "2");
                    lcmRemove(r, "T1", m, S, "k1");
                    lcmFastRemove(r, "T1", m, S, "k2");
                    lcmQuery(r, "T3", m3);
                    r.callSettle("T1", "lcm", "clear", null, "localCachedMap.clear()", SETTLE, v(m::clear));
                }).commands("data")
                .config("minCleanUpDelay_s", 3600, c -> c.setMinCleanUpDelay(3600))
                .note(lcmHashNote(sc, "k1", "k2", "a", "b"))
                .note("the updates-log members' 8 random bytes become <L1>, <L2>, ... (record order)");

        sc("localcachedmap", "lcm.localcache_store",
                "storeMode LOCALCACHE (syncStrategy UPDATE): nothing is written to Redis; put/fastPut only PUBLISH the"
                        + " update message and remove/fastRemove an invalidate message, so the data lives only in the"
                        + " instances' near caches; get of an absent key and size() send nothing",
                r -> {
                    LocalCachedMapOptions.StoreMode LC = LocalCachedMapOptions.StoreMode.LOCALCACHE;
                    RLocalCachedMap<Object, Object> m = lcmCreate(r, "T1", "lcm", sc, S, UPD, null, LC);
                    RLocalCachedMap<Object, Object> m3 = lcmCreate(r, "T3", "lcm", sc, S, UPD, null, LC);
                    lcmPut(r, "T1", m, S, "put", "k1", "v1");
                    lcmQuery(r, "T3", m3);
                    lcmGet(r, "T3", m3, S, "k1");
                    lcmGet(r, "T3", m3, S, "nope");
                    lcmPut(r, "T3", m3, S, "fastPut", "k2", "v2");
                    r.query("T1", "lcm", "getCachedMap", cached(m), "size", (Callable<Object>) m::size);
                    lcmRemove(r, "T1", m, S, "k1");
                    lcmFastRemove(r, "T1", m, S, "k2");
                    lcmQuery(r, "T3", m3);
                }).commands("data")
                .config("minCleanUpDelay_s", 3600, c -> c.setMinCleanUpDelay(3600))
                .note(lcmHashNote(sc, "k1", "k2"))
                .note("clear()/clearLocalCache() are not recorded: they PUBLISH a clear message with release_semaphore"
                        + " and wait (up to 40 s) for PUBLISH's receiver count minus one releases of the semaphore"
                        + " {lcm}:clear:<request hex>, and the recorder's own PSUBSCRIBE * is counted but never releases");

        Codec json = new JsonJacksonCodec();
        String J = "JsonJacksonCodec";
        sc("localcachedmap", "lcm.json",
                "JsonJacksonCodec, syncStrategy UPDATE: keys and values in the hash, the update message and the key"
                        + " hashes are the JSON bytes (\"k1\" with its quotes)",
                r -> {
                    // not recorded: the codec's first encode/decode (Jackson's set-up) would otherwise delay the
                    // first put by more than the bucket grid
                    io.netty.buffer.ByteBuf wb = json.getValueEncoder().encode("warm");
                    json.getValueDecoder().decode(wb, null);
                    wb.release();
                    RLocalCachedMap<Object, Object> m = lcmCreate(r, "T1", "lcmj", json, J, UPD, null, null);
                    RLocalCachedMap<Object, Object> m3 = lcmCreate(r, "T3", "lcmj", json, J, UPD, null, null);
                    lcmPut(r, "T1", m, J, "put", "k1", "v1");
                    lcmPut(r, "T1", m, J, "put", "n", 42);
                    lcmQuery(r, "T3", m3);
                    lcmGet(r, "T3", m3, J, "n");
                    lcmRemove(r, "T1", m, J, "k1");
                    lcmQuery(r, "T3", m3);
                }).commands("data")
                .config("minCleanUpDelay_s", 3600, c -> c.setMinCleanUpDelay(3600))
                .note(lcmHashNote(json, "k1", "n"));

        sc("localcachedmap", "lcm.clear_local_cache",
                "clearLocalCache() (INVALIDATE) and clear() under storeMode LOCALCACHE: the caller empties its near"
                        + " cache, sets the semaphore {N}:clear:<request id hex> to 0 permits (60 s TTL), PUBLISHes a clear"
                        + " message with release_semaphore true and waits for PUBLISH's receiver count minus one permits;"
                        + " every other instance empties its near cache and releases one permit"
                        + " (redisson_sc:{N}:clear:<request id hex> carries the new count); then the semaphore is deleted."
                        + " The map's hash is not touched",
                r -> {
                    LocalCachedMapOptions.StoreMode LC = LocalCachedMapOptions.StoreMode.LOCALCACHE;
                    RLocalCachedMap<Object, Object> m = lcmCreate(r, "T1", "lcm", sc, S, INV, null, null);
                    RLocalCachedMap<Object, Object> m3 = lcmCreate(r, "T3", "lcm", sc, S, INV, null, null);
                    lcmPut(r, "T1", m, S, "put", "k1", "v1");
                    lcmGet(r, "T3", m3, S, "k1");
                    lcmQuery(r, "T3", m3);
                    r.callSettle("T1", "lcm", "clearLocalCache", null, "localCachedMap.clearLocalCache()", SETTLE,
                            v(m::clearLocalCache));
                    r.query("T3", "lcm", "getCachedMap", cached(m3));
                    r.query("T1", "lcm", "getCachedMap", cached(m));
                    RLocalCachedMap<Object, Object> l = lcmCreate(r, "T1", "lcl", sc, S, UPD, null, LC);
                    RLocalCachedMap<Object, Object> l3 = lcmCreate(r, "T3", "lcl", sc, S, UPD, null, LC);
                    lcmPut(r, "T1", l, S, "put", "k1", "v1");
                    lcmQuery(r, "T3", l3);
                    r.callSettle("T1", "lcl", "clear", null, "localCachedMap.clear()", SETTLE, v(l::clear));
                    r.query("T3", "lcl", "getCachedMap", cached(l3));
                }).quiet()
                .config("minCleanUpDelay_s", 3600, c -> c.setMinCleanUpDelay(3600))
                .note("quiet scenario: the recorder does not subscribe (its PSUBSCRIBE * would be counted by PUBLISH and"
                        + " never release a permit, so the clear would wait 40 s); messages are the PUBLISH commands"
                        + " MONITOR saw, and no command log is recorded (the semaphore acquire retries depend on timing)")
                .note("instances: <I1> T1's lcm, <I2> T3's lcm, <I3> T1's lcl, <I4> T3's lcl (creation order)");

        sc("localcachedmap", "lcm.other_writes",
                "INVALIDATE, StringCodec: the other RMap writes and reads of a local cached map: putIfAbsent,"
                        + " fastPutIfAbsent, putIfExists, fastPutIfExists, replace, replace(k, old, new), fastReplace,"
                        + " remove(k, v), addAndGet, containsKey (served by the near cache when cached), readAllMap;"
                        + " C2's near cache after each group of writes",
                r -> {
                    RLocalCachedMap<Object, Object> m = lcmCreate(r, "T1", "lcm", sc, S, INV, null, null);
                    RLocalCachedMap<Object, Object> m3 = lcmCreate(r, "T3", "lcm", sc, S, INV, null, null);
                    lcmPut(r, "T1", m, S, "put", "k1", "v1");
                    r.call("T3", "lcm", "getAll", A("codec", S, "keys", Arrays.asList("k1", "k2", "n")),
                            "localCachedMap.getAll(Set {\"k1\", \"k2\", \"n\"})",
                            () -> new TreeMap<>(m3.getAll(new LinkedHashSet<>(Arrays.asList("k1", "k2", "n")))));
                    r.callSettle("T1", "lcm", "putIfAbsent", A("codec", S, "key", "k1", "value", "x"),
                            "localCachedMap.putIfAbsent(\"k1\", \"x\")", SETTLE, () -> m.putIfAbsent("k1", "x"));
                    r.callSettle("T1", "lcm", "putIfAbsent", A("codec", S, "key", "k2", "value", "v2"),
                            "localCachedMap.putIfAbsent(\"k2\", \"v2\")", SETTLE, () -> m.putIfAbsent("k2", "v2"));
                    r.callSettle("T1", "lcm", "fastPutIfAbsent", A("codec", S, "key", "k2", "value", "x"),
                            "localCachedMap.fastPutIfAbsent(\"k2\", \"x\")", SETTLE, () -> m.fastPutIfAbsent("k2", "x"));
                    r.callSettle("T1", "lcm", "putIfExists", A("codec", S, "key", "k1", "value", "v1b"),
                            "localCachedMap.putIfExists(\"k1\", \"v1b\")", SETTLE, () -> m.putIfExists("k1", "v1b"));
                    r.callSettle("T1", "lcm", "fastPutIfExists", A("codec", S, "key", "k9", "value", "x"),
                            "localCachedMap.fastPutIfExists(\"k9\", \"x\")", SETTLE, () -> m.fastPutIfExists("k9", "x"));
                    lcmQuery(r, "T3", m3);
                    r.call("T3", "lcm", "getAll", A("codec", S, "keys", Arrays.asList("k1", "k2")),
                            "localCachedMap.getAll(Set {\"k1\", \"k2\"})",
                            () -> new TreeMap<>(m3.getAll(new LinkedHashSet<>(Arrays.asList("k1", "k2")))));
                    r.callSettle("T1", "lcm", "replace", A("codec", S, "key", "k1", "value", "v1c"),
                            "localCachedMap.replace(\"k1\", \"v1c\")", SETTLE, () -> m.replace("k1", "v1c"));
                    r.callSettle("T1", "lcm", "replace", A("codec", S, "key", "k2", "old", "nope", "value", "x"),
                            "localCachedMap.replace(\"k2\", \"nope\", \"x\")", SETTLE, () -> m.replace("k2", "nope", "x"));
                    r.callSettle("T1", "lcm", "replace", A("codec", S, "key", "k2", "old", "v2", "value", "v2b"),
                            "localCachedMap.replace(\"k2\", \"v2\", \"v2b\")", SETTLE, () -> m.replace("k2", "v2", "v2b"));
                    r.callSettle("T1", "lcm", "fastReplace", A("codec", S, "key", "k9", "value", "x"),
                            "localCachedMap.fastReplace(\"k9\", \"x\")", SETTLE, () -> m.fastReplace("k9", "x"));
                    lcmQuery(r, "T3", m3);
                    r.callSettle("T1", "lcm", "remove", A("codec", S, "key", "k1", "value", "nope"),
                            "localCachedMap.remove(\"k1\", \"nope\")", SETTLE, () -> m.remove("k1", "nope"));
                    r.callSettle("T1", "lcm", "remove", A("codec", S, "key", "k1", "value", "v1c"),
                            "localCachedMap.remove(\"k1\", \"v1c\")", SETTLE, () -> m.remove("k1", "v1c"));
                    r.call("T3", "lcm", "get", A("codec", S, "key", "k2"), "localCachedMap.get(\"k2\")", () -> m3.get("k2"));
                    r.callSettle("T1", "lcm", "addAndGet", A("codec", S, "key", "n", "delta", 5),
                            "localCachedMap.addAndGet(\"n\", 5)", SETTLE, () -> m.addAndGet("n", 5));
                    r.query("T3", "lcm", "containsKey(\"k2\")", q(() -> m3.containsKey("k2")),
                            "containsKey(\"k1\")", q(() -> m3.containsKey("k1")),
                            "getCachedMap", cached(m3),
                            "readAllMap", q(() -> new TreeMap<>(m3.readAllMap())));
                }).commands("data")
                .config("minCleanUpDelay_s", 3600, c -> c.setMinCleanUpDelay(3600))
                .note(lcmHashNote(sc, "k1", "k2", "k9", "n"));

        sc("localcachedmap", "lcm.foreign_messages",
                "what Java instances do with messages another client (e.g. Go) PUBLISHes on {lcm}:topic with its own"
                        + " instance id <GO> (16 bytes 0x11): an invalidate drops the key from both Java near caches, an"
                        + " update stores the value in them without touching Redis (a get then answers it locally), a"
                        + " clear (release_semaphore false) empties them",
                r -> {
                    r.norm.lcmInstances.put(hex(GO_ID), "GO");
                    RLocalCachedMap<Object, Object> m = lcmCreate(r, "T1", "lcm", sc, S, INV, null, null);
                    RLocalCachedMap<Object, Object> m3 = lcmCreate(r, "T3", "lcm", sc, S, INV, null, null);
                    lcmPutAll(r, "T1", m, S, "k1", "v1", "k2", "v2");
                    r.call("T3", "lcm", "getAll", A("codec", S, "keys", Arrays.asList("k1", "k2")),
                            "localCachedMap.getAll(Set {\"k1\", \"k2\"})",
                            () -> new TreeMap<>(m3.getAll(new LinkedHashSet<>(Arrays.asList("k1", "k2")))));
                    r.query("T1", "lcm", "getCachedMap", cached(m));
                    r.raw("an invalidate message for k1 from another client's instance", "PUBLISH", "{lcm}:topic",
                            lcmInvalidate(GO_ID, lcmKeyHash(sc, "k1")));
                    r.sleep(250, "the listeners run");
                    r.query("T1", "lcm", "getCachedMap", cached(m));
                    r.query("T3", "lcm", "getCachedMap", cached(m3));
                    r.raw("an update message k2 -> vX from another client's instance (Redis keeps v2)", "PUBLISH",
                            "{lcm}:topic", lcmUpdate(GO_ID, "k2", "vX"));
                    r.sleep(250, "the listeners run");
                    r.query("T3", "lcm", "getCachedMap", cached(m3));
                    lcmGet(r, "T3", m3, S, "k2");
                    r.raw("a clear message (release_semaphore false) from another client's instance", "PUBLISH",
                            "{lcm}:topic", lcmClear(GO_ID, new byte[16]));
                    r.sleep(250, "the listeners run");
                    r.query("T1", "lcm", "getCachedMap", cached(m));
                    r.query("T3", "lcm", "getCachedMap", cached(m3));
                    lcmGet(r, "T3", m3, S, "k2");
                }).commands("data")
                .config("minCleanUpDelay_s", 3600, c -> c.setMinCleanUpDelay(3600))
                .note(lcmHashNote(sc, "k1", "k2"))
                .note("the foreign instance id 11111111111111111111111111111111 is recorded as <GO>; the clear's request"
                        + " id is 16 zero bytes (<Q1>)");

        sc("localcachedmap", "lcm.reconnection_load_resubscribe",
                "reconnectionStrategy LOAD after a real reconnection: C2's subscriber connection is cut and new"
                        + " connections are refused while C1 overwrites k1 (C2 misses the message; the write is in the"
                        + " updates log); when C2 resubscribes it checks that the map exists and reads the log from the"
                        + " time of the last message it had received (ZRANGEBYSCORE <that time> +inf) and drops those"
                        + " keys from its near cache; k2 stays cached",
                r -> {
                    LocalCachedMapOptions.ReconnectionStrategy LOAD = LocalCachedMapOptions.ReconnectionStrategy.LOAD;
                    RLocalCachedMap<Object, Object> m = lcmCreate(r, "T1", "lcm", sc, S, INV, LOAD, null);
                    RLocalCachedMap<Object, Object> m3 = lcmCreate(r, "T3", "lcm", sc, S, INV, LOAD, null);
                    lcmPutAll(r, "T1", m, S, "k1", "v1", "k2", "v2");
                    r.call("T3", "lcm", "getAll", A("codec", S, "keys", Arrays.asList("k1", "k2")),
                            "localCachedMap.getAll(Set {\"k1\", \"k2\"})",
                            () -> new TreeMap<>(m3.getAll(new LinkedHashSet<>(Arrays.asList("k1", "k2")))));
                    r.cutSubscriber("C2", "{lcm}:topic");
                    lcmPut(r, "T1", m, S, "put", "k1", "v1b");
                    r.query("T3", "lcm", "getCachedMap", cached(m3));
                    r.raw("restore maxclients (the default): C2 reconnects and resubscribes", "CONFIG", "SET",
                            "maxclients", "10000");
                    r.query("T3", "lcm", "resubscribed", q(() -> {
                        try (Resp c = new Resp()) {
                            synchronized (r.connOwner) {
                                r.connOwner.put("127.0.0.1:" + c.sock.getLocalPort(), "-");
                            }
                            long deadline = System.currentTimeMillis() + 30000;
                            while ((Long) list(c.cmd("PUBSUB", "NUMSUB", "{lcm}:topic")).get(1) < 2) {
                                if (System.currentTimeMillis() > deadline) {
                                    return false;
                                }
                                Thread.sleep(5);
                            }
                        }
                        Thread.sleep(SETTLE);
                        return true;
                    }), "getCachedMap", cached(m3));
                    lcmGet(r, "T3", m3, S, "k1");
                }).commands("data").pastClock()
                .config("minCleanUpDelay_s", 3600, c -> c.setMinCleanUpDelay(3600))
                .note(lcmHashNote(sc, "k1", "k2"))
                .note("'resubscribed' waits (polling PUBSUB NUMSUB {lcm}:topic from its own connection) until both"
                        + " instances are subscribed again, then 250 ms for the log read; how long C2 takes to"
                        + " reconnect depends on Redisson's back-off, so the time C2 passes to ZRANGEBYSCORE is recorded"
                        + " as {\"clock_ms\": \"past\"}");
    }

    // ------------------------------------------------------------------------------------------------ issue 38 families
    static Callable<Object> q(Callable<Object> c) {
        return c;
    }

    /** RLock-like queries of one actor's lock object. */
    static void lockQuery(Run r, String actor, String name, RLock l) throws Exception {
        r.query(actor, name, "isLocked", q(l::isLocked), "isHeldByCurrentThread", q(l::isHeldByCurrentThread),
                "getHoldCount", q(l::getHoldCount), "remainTimeToLive", q(() -> ttl(l.remainTimeToLive())));
    }

    /** RedissonClient.<method>(String) by reflection: 3.52 lacks the non-reentrant locks (null then). */
    static java.lang.reflect.Method clientMethod(String method) {
        try {
            return RedissonClient.class.getMethod(method, String.class);
        } catch (NoSuchMethodException e) {
            return null;
        }
    }

    static void defineIssue38() {
        defineSpinLock();
        for (String[] k : new String[][] {{"nonreentrantlock", "getNonReentrantLock"},
                {"nonreentrantfairlock", "getNonReentrantFairLock"}}) {
            if (clientMethod(k[1]) != null) {
                defineNonReentrant(k[0], k[1]);
            }
        }
        defineIdGenerator();
        defineAtomicDouble();
        defineAdders();
        defineBuckets();
        defineBucketTtl();
        defineBloomFilter();
        defineBitSet();
        defineHyperLogLog();
    }

    static void defineSpinLock() {
        sc("spinlock", "spinlock.basic",
                "getSpinLock: lock() (watchdog lease 30000 ms) writes the same hash as RLock (field <client id>:<thread"
                        + " id>, hold count) with one script; re-entry increments; another client's tryLock() fails at"
                        + " once; unlock() decrements, the last one deletes the key; nothing is ever published (no"
                        + " pub/sub: waiters poll with back-off)",
                r -> {
                    RLock t1 = r.obj("T1", "spin", "sl", c -> c.getSpinLock("sl"));
                    RLock t3 = r.obj("T3", "spin", "sl", c -> c.getSpinLock("sl"));
                    r.call("T1", "sl", "lock", null, "spinLock.lock()", v(t1::lock));
                    lockQuery(r, "T1", "sl", t1);
                    r.call("T1", "sl", "lock", null, "spinLock.lock()", v(t1::lock));
                    r.query("T1", "sl", "getHoldCount", q(t1::getHoldCount));
                    r.call("T3", "sl", "tryLock", null, "spinLock.tryLock()", t3::tryLock);
                    lockQuery(r, "T3", "sl", t3);
                    r.call("T1", "sl", "unlock", null, "spinLock.unlock()", v(t1::unlock));
                    r.call("T1", "sl", "unlock", null, "spinLock.unlock()", v(t1::unlock));
                    r.call("T3", "sl", "tryLock", A("wait_ms", 0, "lease_ms", 5000),
                            "spinLock.tryLock(0, 5000, MILLISECONDS)", () -> t3.tryLock(0, 5000, MS));
                    lockQuery(r, "T3", "sl", t3);
                    r.call("T1", "sl", "unlock", null, "spinLock.unlock()", v(t1::unlock));
                    r.call("T3", "sl", "forceUnlock", null, "spinLock.forceUnlock()", t3::forceUnlock);
                }).commands("data")
                .note("unlock() by a thread that does not hold the lock throws IllegalMonitorStateException");

        sc("spinlock", "spinlock.contended",
                "T1 holds the spin lock; T3's tryLock(wait 2000 ms, lease 5000 ms) polls (exponential back-off, no"
                        + " subscription: subscribed_channels stays empty) and gets the lock after T1's unlock",
                r -> {
                    RLock t1 = r.obj("T1", "spin", "sl", c -> c.getSpinLock("sl"));
                    RLock t3 = r.obj("T3", "spin", "sl", c -> c.getSpinLock("sl"));
                    r.call("T1", "sl", "lock", null, "spinLock.lock()", v(t1::lock));
                    r.start("T3", "sl", "tryLock", A("wait_ms", 2000, "lease_ms", 5000),
                            "spinLock.tryLock(2000, 5000, MILLISECONDS)", () -> t3.tryLock(2000, 5000, MS));
                    r.call("T1", "sl", "unlock", null, "spinLock.unlock()", v(t1::unlock), "T3");
                    lockQuery(r, "T3", "sl", t3);
                    r.call("T3", "sl", "unlock", null, "spinLock.unlock()", v(t3::unlock));
                })
                .note("the number of polling attempts depends on timing, so this scenario records no command log");
    }

    static void defineNonReentrant(String file, String method) {
        java.lang.reflect.Method m = clientMethod(method);
        Function<RedissonClient, RLock> mk = c -> {
            try {
                return (RLock) m.invoke(c, "nr");
            } catch (Exception e) {
                throw new IllegalStateException(e);
            }
        };
        sc(file, file + ".basic",
                method + " (Redisson 4.x): lock() as RLock/RFairLock (hash field <client id>:<thread id> = 1); a"
                        + " second lock()/tryLock() by the same thread fails with IllegalMonitorStateException (the script"
                        + " answers the error reply NON_REENTRANT_REACQUIRE) and changes nothing; another client's"
                        + " tryLock() fails; unlock() deletes the key and publishes on the lock channel",
                r -> {
                    RLock t1 = r.obj("T1", file, "nr", mk);
                    RLock t2 = r.obj("T2", file, "nr", mk);
                    RLock t3 = r.obj("T3", file, "nr", mk);
                    r.call("T1", "nr", "lock", null, "lock.lock()", v(t1::lock));
                    lockQuery(r, "T1", "nr", t1);
                    r.call("T1", "nr", "lock", null, "lock.lock()", v(t1::lock));
                    r.call("T1", "nr", "tryLock", null, "lock.tryLock()", t1::tryLock);
                    r.call("T1", "nr", "tryLock", A("wait_ms", 250, "lease_ms", 5000),
                            "lock.tryLock(250, 5000, MILLISECONDS)", () -> t1.tryLock(250, 5000, MS));
                    r.call("T2", "nr", "tryLock", null, "lock.tryLock()", t2::tryLock);
                    r.call("T3", "nr", "tryLock", null, "lock.tryLock()", t3::tryLock);
                    lockQuery(r, "T1", "nr", t1);
                    r.call("T1", "nr", "unlock", null, "lock.unlock()", v(t1::unlock));
                    r.call("T1", "nr", "unlock", null, "lock.unlock()", v(t1::unlock));
                    r.call("T3", "nr", "tryLock", A("wait_ms", 0, "lease_ms", 5000),
                            "lock.tryLock(0, 5000, MILLISECONDS)", () -> t3.tryLock(0, 5000, MS));
                    r.call("T3", "nr", "tryLock", null, "lock.tryLock()", t3::tryLock);
                    r.call("T3", "nr", "unlock", null, "lock.unlock()", v(t3::unlock));
                }).commands("data");

        sc(file, file + ".contended",
                "T1 holds; T3's lock() waits on the lock's channel and acquires after T1's unlock",
                r -> {
                    RLock t1 = r.obj("T1", file, "nr", mk);
                    RLock t3 = r.obj("T3", file, "nr", mk);
                    r.call("T1", "nr", "lock", null, "lock.lock()", v(t1::lock));
                    r.start("T3", "nr", "lock", null, "lock.lock()", v(t3::lock));
                    r.call("T1", "nr", "unlock", null, "lock.unlock()", v(t1::unlock), "T3");
                    lockQuery(r, "T3", "nr", t3);
                    r.call("T3", "nr", "unlock", null, "lock.unlock()", v(t3::unlock));
                });
    }

    static void defineIdGenerator() {
        sc("idgenerator", "idgenerator.blocks",
                "RIdGenerator: tryInit(1, 3) SETNXes the next id (NAME) and the block size ({NAME}:allocation);"
                        + " a second tryInit returns false; nextId() takes a block of 3 ids with one script (GET"
                        + " allocation, GET + INCRBY NAME) and serves them locally; the 4th id crosses into a new block;"
                        + " another client takes its own block",
                r -> {
                    org.redisson.api.RIdGenerator g1 = r.obj("T1", "idgen", "ids", c -> c.getIdGenerator("ids"));
                    org.redisson.api.RIdGenerator g3 = r.obj("T3", "idgen", "ids", c -> c.getIdGenerator("ids"));
                    r.call("T1", "ids", "tryInit", A("value", 1, "allocation_size", 3), "idGenerator.tryInit(1, 3)",
                            () -> g1.tryInit(1, 3));
                    r.call("T3", "ids", "tryInit", A("value", 100, "allocation_size", 10),
                            "idGenerator.tryInit(100, 10)", () -> g3.tryInit(100, 10));
                    for (int i = 0; i < 4; i++) {
                        r.call("T1", "ids", "nextId", null, "idGenerator.nextId()", g1::nextId);
                    }
                    r.call("T3", "ids", "nextId", null, "idGenerator.nextId()", g3::nextId);
                    r.call("T1", "ids", "nextId", null, "idGenerator.nextId()", g1::nextId);
                    r.call("T1", "ids", "nextId", null, "idGenerator.nextId()", g1::nextId);
                    r.call("T1", "ids", "nextId", null, "idGenerator.nextId()", g1::nextId);
                }).commands("data");

        sc("idgenerator", "idgenerator.uninitialised",
                "nextId() without tryInit: the script finds no allocation size, sets {ids}:allocation to 5000, INCRs"
                        + " ids from nothing to 1 and takes the block 1..5000",
                r -> {
                    org.redisson.api.RIdGenerator g1 = r.obj("T1", "idgen", "ids", c -> c.getIdGenerator("ids"));
                    r.call("T1", "ids", "nextId", null, "idGenerator.nextId()", g1::nextId);
                    r.call("T1", "ids", "nextId", null, "idGenerator.nextId()", g1::nextId);
                }).commands("data");
    }

    static void defineAtomicDouble() {
        sc("atomicdouble", "atomicdouble.ops",
                "RAtomicDouble: the value is a string NAME holding the number as text; set/get/addAndGet/"
                        + "incrementAndGet/decrementAndGet/getAndAdd/getAndSet/compareAndSet/getAndDelete",
                r -> {
                    org.redisson.api.RAtomicDouble d1 = r.obj("T1", "adbl", "ad", c -> c.getAtomicDouble("ad"));
                    org.redisson.api.RAtomicDouble d3 = r.obj("T3", "adbl", "ad", c -> c.getAtomicDouble("ad"));
                    r.call("T1", "ad", "get", null, "atomicDouble.get()", d1::get);
                    r.call("T1", "ad", "set", A("value", 1.5), "atomicDouble.set(1.5)", v(() -> d1.set(1.5)));
                    r.call("T3", "ad", "get", null, "atomicDouble.get()", d3::get);
                    r.call("T1", "ad", "addAndGet", A("delta", 2.25), "atomicDouble.addAndGet(2.25)",
                            () -> d1.addAndGet(2.25));
                    r.call("T1", "ad", "incrementAndGet", null, "atomicDouble.incrementAndGet()", d1::incrementAndGet);
                    r.call("T1", "ad", "decrementAndGet", null, "atomicDouble.decrementAndGet()", d1::decrementAndGet);
                    r.call("T1", "ad", "getAndAdd", A("delta", -0.75), "atomicDouble.getAndAdd(-0.75)",
                            () -> d1.getAndAdd(-0.75));
                    r.call("T3", "ad", "compareAndSet", A("expect", 1.0, "update", 9.0),
                            "atomicDouble.compareAndSet(1.0, 9.0)", () -> d3.compareAndSet(1.0, 9.0));
                    r.call("T3", "ad", "compareAndSet", A("expect", 3.0, "update", 0.1),
                            "atomicDouble.compareAndSet(3.0, 0.1)", () -> d3.compareAndSet(3.0, 0.1));
                    r.call("T1", "ad", "getAndSet", A("value", 1e20), "atomicDouble.getAndSet(1.0E20)",
                            () -> d1.getAndSet(1e20));
                    r.call("T3", "ad", "get", null, "atomicDouble.get()", d3::get);
                    r.call("T1", "ad", "getAndDelete", null, "atomicDouble.getAndDelete()", d1::getAndDelete);
                    r.call("T1", "ad", "get", null, "atomicDouble.get()", d1::get);
                }).commands("data");
    }

    static void defineAdders() {
        sc("longadder", "longadder.sum_reset",
                "RLongAdder on two clients: each instance subscribes {la}:adder-topic and counts locally (add/"
                        + "increment/decrement send nothing); sum() publishes \"1:<request id>\", every instance (the"
                        + " summer too) INCRBYs {la}:<id>:counter with its local count and releases the semaphore"
                        + " {la}:<id>:semaphore; the summer acquires as many permits as PUBLISH counted receivers, then"
                        + " reads and deletes the counter and the semaphore; reset() publishes \"0:<id>\" and each"
                        + " instance zeroes its count and releases",
                r -> {
                    org.redisson.api.RLongAdder a1 = r.obj("T1", "ladd", "la", c -> c.getLongAdder("la"));
                    r.call("T1", "la", "getLongAdder", null, "redisson.getLongAdder(\"la\")", () -> VOID);
                    org.redisson.api.RLongAdder a3 = r.obj("T3", "ladd", "la", c -> c.getLongAdder("la"));
                    r.call("T3", "la", "getLongAdder", null, "redisson.getLongAdder(\"la\")", () -> VOID);
                    r.call("T1", "la", "add", A("delta", 5), "longAdder.add(5)", v(() -> a1.add(5)));
                    r.call("T1", "la", "increment", null, "longAdder.increment()", v(a1::increment));
                    r.call("T3", "la", "add", A("delta", 10), "longAdder.add(10)", v(() -> a3.add(10)));
                    r.call("T3", "la", "decrement", null, "longAdder.decrement()", v(a3::decrement));
                    r.call("T1", "la", "sum", null, "longAdder.sum()", a1::sum);
                    r.call("T3", "la", "sum", null, "longAdder.sum()", a3::sum);
                    r.call("T3", "la", "reset", null, "longAdder.reset()", v(a3::reset));
                    r.call("T1", "la", "sum", null, "longAdder.sum()", a1::sum);
                    r.call("T1", "la", "destroy", null, "longAdder.destroy()", v(a1::destroy));
                    r.call("T3", "la", "add", A("delta", 3), "longAdder.add(3)", v(() -> a3.add(3)));
                    r.call("T3", "la", "sum", null, "longAdder.sum()", a3::sum);
                }).quiet().semaphoreFilter()
                .note("quiet scenario: the recorder does not subscribe (a PSUBSCRIBE * would be counted by PUBLISH and"
                        + " never answer, so sum() would wait for ever); messages are the PUBLISH commands MONITOR saw;"
                        + " the request ids (32 hex) become <S1>, <S2>, ... in record order")
                .note("commands without the summer's semaphore acquire attempts, the redisson_sc:* (UN)SUBSCRIBEs and"
                        + " the permit count in a release's PUBLISH (\"<permits>\"): those depend on timing");

        sc("doubleadder", "doubleadder.sum_reset",
                "RDoubleAdder: as RLongAdder, with INCRBYFLOAT on {da}:<id>:counter",
                r -> {
                    org.redisson.api.RDoubleAdder a1 = r.obj("T1", "dadd", "da", c -> c.getDoubleAdder("da"));
                    r.call("T1", "da", "getDoubleAdder", null, "redisson.getDoubleAdder(\"da\")", () -> VOID);
                    org.redisson.api.RDoubleAdder a3 = r.obj("T3", "dadd", "da", c -> c.getDoubleAdder("da"));
                    r.call("T3", "da", "getDoubleAdder", null, "redisson.getDoubleAdder(\"da\")", () -> VOID);
                    r.call("T1", "da", "add", A("delta", 0.25), "doubleAdder.add(0.25)", v(() -> a1.add(0.25)));
                    r.call("T1", "da", "increment", null, "doubleAdder.increment()", v(a1::increment));
                    r.call("T3", "da", "add", A("delta", 1.5), "doubleAdder.add(1.5)", v(() -> a3.add(1.5)));
                    r.call("T1", "da", "sum", null, "doubleAdder.sum()", a1::sum);
                    r.call("T1", "da", "reset", null, "doubleAdder.reset()", v(a1::reset));
                    r.call("T3", "da", "sum", null, "doubleAdder.sum()", a3::sum);
                }).quiet().semaphoreFilter()
                .note("quiet scenario with filtered commands (see longadder.sum_reset)");
    }

    static void defineBuckets() {
        sc("buckets", "buckets.get_set_tryset",
                "RBuckets (StringCodec): set(map) = MSET; get(names) = MGET (absent names left out of the result);"
                        + " trySet(map) = MSETNX: all or none",
                r -> {
                    org.redisson.api.RBuckets b1 = r.obj("T1", "buckets", "", c -> c.getBuckets(StringCodec.INSTANCE));
                    org.redisson.api.RBuckets b3 = r.obj("T3", "buckets", "", c -> c.getBuckets(StringCodec.INSTANCE));
                    Map<String, Object> m1 = new LinkedHashMap<>();
                    m1.put("b1", "v1");
                    m1.put("b2", "v2");
                    r.call("T1", "[b1,b2]", "set", A("codec", "StringCodec", "entries", m1),
                            "buckets.set(LinkedHashMap {b1=v1, b2=v2})", v(() -> b1.set(m1)));
                    r.call("T3", "[b1,b2,b3]", "get", A("codec", "StringCodec", "keys", Arrays.asList("b1", "b2", "b3")),
                            "buckets.get(\"b1\", \"b2\", \"b3\")", () -> new TreeMap<>(b3.get("b1", "b2", "b3")));
                    Map<String, Object> m2 = new LinkedHashMap<>();
                    m2.put("b3", "v3");
                    m2.put("b1", "x");
                    r.call("T3", "[b3,b1]", "trySet", A("codec", "StringCodec", "entries", m2),
                            "buckets.trySet(LinkedHashMap {b3=v3, b1=x})", () -> b3.trySet(m2));
                    Map<String, Object> m3 = new LinkedHashMap<>();
                    m3.put("b3", "v3");
                    m3.put("b4", "v4");
                    r.call("T3", "[b3,b4]", "trySet", A("codec", "StringCodec", "entries", m3),
                            "buckets.trySet(LinkedHashMap {b3=v3, b4=v4})", () -> b3.trySet(m3));
                    r.call("T1", "[b1,b2,b3,b4,b5]", "get",
                            A("codec", "StringCodec", "keys", Arrays.asList("b1", "b2", "b3", "b4", "b5")),
                            "buckets.get(\"b1\", \"b2\", \"b3\", \"b4\", \"b5\")",
                            () -> new TreeMap<>(b1.get("b1", "b2", "b3", "b4", "b5")));
                }).commands("data");

        sc("buckets", "buckets.json",
                "RBuckets with JsonJacksonCodec: values stored as JSON (a String \"v\", an Integer 7)",
                r -> {
                    Codec json = new JsonJacksonCodec();
                    org.redisson.api.RBuckets b1 = r.obj("T1", "buckets", "", c -> c.getBuckets(json));
                    Map<String, Object> m1 = new LinkedHashMap<>();
                    m1.put("j1", "v");
                    m1.put("j2", 7);
                    r.call("T1", "[j1,j2]", "set", A("codec", "JsonJacksonCodec", "entries", m1),
                            "buckets.set(LinkedHashMap {j1=\"v\", j2=7})", v(() -> b1.set(m1)));
                    r.call("T1", "[j1,j2]", "get", A("codec", "JsonJacksonCodec", "keys", Arrays.asList("j1", "j2")),
                            "buckets.get(\"j1\", \"j2\")", () -> new TreeMap<>(b1.get("j1", "j2")));
                }).commands("data");
    }

    static void defineBucketTtl() {
        sc("buckets", "bucket.ttl",
                "RBucket (StringCodec) TTL operations: set with a TTL, setAndKeepTTL, getAndExpire, getAndClearExpire,"
                        + " setIfAbsent/setIfExists with a TTL, getAndSet with a TTL, expire, expireIfSet/IfNotSet,"
                        + " clearExpire, remainTimeToLive, compareAndSet, size, getAndDelete",
                r -> {
                    RBucket<Object> b = r.obj("T1", "bucket", "bk", c -> c.getBucket("bk", StringCodec.INSTANCE));
                    RBucket<Object> b3 = r.obj("T3", "bucket", "bk", c -> c.getBucket("bk", StringCodec.INSTANCE));
                    String S = "StringCodec";
                    r.call("T1", "bk", "set", A("codec", S, "value", "v1", "ttl_ms", 5000),
                            "bucket.set(\"v1\", Duration.ofMillis(5000))", v(() -> b.set("v1", Duration.ofMillis(5000))));
                    r.query("T3", "bk", "remainTimeToLive", q(() -> ttl(b3.remainTimeToLive())));
                    r.call("T1", "bk", "setAndKeepTTL", A("codec", S, "value", "v2"), "bucket.setAndKeepTTL(\"v2\")",
                            v(() -> b.setAndKeepTTL("v2")));
                    r.call("T1", "bk", "getAndExpire", A("codec", S, "ttl_ms", 3000),
                            "bucket.getAndExpire(Duration.ofMillis(3000))", () -> b.getAndExpire(Duration.ofMillis(3000)));
                    r.call("T1", "bk", "getAndClearExpire", A("codec", S), "bucket.getAndClearExpire()",
                            b::getAndClearExpire);
                    r.call("T3", "bk", "setIfAbsent", A("codec", S, "value", "x", "ttl_ms", 2000),
                            "bucket.setIfAbsent(\"x\", Duration.ofMillis(2000))",
                            () -> b3.setIfAbsent("x", Duration.ofMillis(2000)));
                    r.call("T3", "bk", "setIfExists", A("codec", S, "value", "v3", "ttl_ms", 2000),
                            "bucket.setIfExists(\"v3\", Duration.ofMillis(2000))",
                            () -> b3.setIfExists("v3", Duration.ofMillis(2000)));
                    r.call("T3", "bk", "getAndSet", A("codec", S, "value", "v4", "ttl_ms", 4000),
                            "bucket.getAndSet(\"v4\", Duration.ofMillis(4000))",
                            () -> b3.getAndSet("v4", Duration.ofMillis(4000)));
                    r.call("T1", "bk", "expireIfNotSet", A("ttl_ms", 10000),
                            "bucket.expireIfNotSet(Duration.ofMillis(10000))",
                            () -> b.expireIfNotSet(Duration.ofMillis(10000)));
                    r.call("T1", "bk", "expireIfSet", A("ttl_ms", 10000), "bucket.expireIfSet(Duration.ofMillis(10000))",
                            () -> b.expireIfSet(Duration.ofMillis(10000)));
                    r.call("T1", "bk", "clearExpire", null, "bucket.clearExpire()", b::clearExpire);
                    r.call("T1", "bk", "expire", A("ttl_ms", 6000), "bucket.expire(Duration.ofMillis(6000))",
                            () -> b.expire(Duration.ofMillis(6000)));
                    r.call("T3", "bk", "compareAndSet", A("codec", S, "expect", "v4", "update", "v5"),
                            "bucket.compareAndSet(\"v4\", \"v5\")", () -> b3.compareAndSet("v4", "v5"));
                    r.query("T3", "bk", "remainTimeToLive", q(() -> ttl(b3.remainTimeToLive())), "size", q(b3::size),
                            "get", q(b3::get));
                    r.call("T1", "bk", "getAndDelete", A("codec", S), "bucket.getAndDelete()", b::getAndDelete);
                    r.call("T1", "bk", "setIfExists", A("codec", S, "value", "v6", "ttl_ms", 2000),
                            "bucket.setIfExists(\"v6\", Duration.ofMillis(2000))",
                            () -> b.setIfExists("v6", Duration.ofMillis(2000)));
                    r.call("T1", "bk", "setIfAbsent", A("codec", S, "value", "v7", "ttl_ms", 2000),
                            "bucket.setIfAbsent(\"v7\", Duration.ofMillis(2000))",
                            () -> b.setIfAbsent("v7", Duration.ofMillis(2000)));
                }).commands("data");
    }

    static void defineBloomFilter() {
        sc("bloomfilter", "bloomfilter.string",
                "RBloomFilter (StringCodec): tryInit(100, 0.01) writes {bf}:config (size 958, hashIterations 7,"
                        + " expectedInsertions, falseProbability); the bit set is the string bf (SETBIT inside a script"
                        + " that first checks the config against the client's); indexes from HighwayHash-128 of the"
                        + " element's bytes; add true when at least one bit was 0; contains; count() estimates",
                r -> {
                    org.redisson.api.RBloomFilter<Object> f1 = r.obj("T1", "bloom", "bf",
                            c -> c.getBloomFilter("bf", StringCodec.INSTANCE));
                    org.redisson.api.RBloomFilter<Object> f3 = r.obj("T3", "bloom", "bf",
                            c -> c.getBloomFilter("bf", StringCodec.INSTANCE));
                    r.call("T1", "bf", "add", A("codec", "StringCodec", "value", "e0"), "bloomFilter.add(\"e0\")",
                            () -> f1.add("e0"));
                    r.call("T1", "bf", "tryInit", A("expected_insertions", 100, "false_probability", 0.01),
                            "bloomFilter.tryInit(100, 0.01)", () -> f1.tryInit(100, 0.01));
                    org.redisson.api.RBloomFilter<Object> f2 = r.obj("T2", "bloom", "bf",
                            c -> c.getBloomFilter("bf", StringCodec.INSTANCE));
                    r.call("T2", "bf", "tryInit", A("expected_insertions", 200, "false_probability", 0.03),
                            "bloomFilter.tryInit(200, 0.03)", () -> f2.tryInit(200, 0.03));
                    r.call("T1", "bf", "add", A("codec", "StringCodec", "value", "e1"), "bloomFilter.add(\"e1\")",
                            () -> f1.add("e1"));
                    r.call("T1", "bf", "add", A("codec", "StringCodec", "value", "e1"), "bloomFilter.add(\"e1\")",
                            () -> f1.add("e1"));
                    r.call("T3", "bf", "add", A("codec", "StringCodec", "value", "e2"), "bloomFilter.add(\"e2\")",
                            () -> f3.add("e2"));
                    r.query("T3", "bf", "contains(\"e1\")", q(() -> f3.contains("e1")),
                            "contains(\"e2\")", q(() -> f3.contains("e2")),
                            "contains(\"x\")", q(() -> f3.contains("x")),
                            "count", q(f3::count), "getSize", q(f3::getSize),
                            "getHashIterations", q(f3::getHashIterations),
                            "getExpectedInsertions", q(f3::getExpectedInsertions),
                            "getFalseProbability", q(f3::getFalseProbability));
                    r.call("T1", "bf", "add", A("codec", "StringCodec", "values", Arrays.asList("e3", "e1", "e4")),
                            "bloomFilter.add(List [\"e3\", \"e1\", \"e4\"])",
                            () -> f1.add(Arrays.<Object>asList("e3", "e1", "e4")));
                    r.call("T1", "bf", "contains", A("codec", "StringCodec", "values", Arrays.asList("e3", "x", "e4")),
                            "bloomFilter.contains(List [\"e3\", \"x\", \"e4\"])",
                            () -> f1.contains(Arrays.<Object>asList("e3", "x", "e4")));
                    r.call("T2", "bf", "add", A("codec", "StringCodec", "value", "e5"), "bloomFilter.add(\"e5\")",
                            () -> f2.add("e5"));
                    r.query("T2", "bf", "contains(\"e1\")", q(() -> f2.contains("e1")), "getSize", q(f2::getSize));
                }).commands("data")
                .note("add before tryInit fails: the client reads {bf}:config first and finds nothing")
                .note("T2's instance (C1) keeps the size and hash count of its own failed tryInit(200, 0.03) (1459"
                        + " bits, 5 hashes): its add then fails with the script's 'Bloom filter config has been changed'"
                        + " and its contains answers false for an element that is present; T3's instance (C2, no"
                        + " tryInit) reads {bf}:config first and works");
    }

    static void defineBitSet() {
        sc("bitset", "bitset.ops",
                "RBitSet: the string bs; set/get/clear of single bits (SETBIT/GETBIT), cardinality (BITCOUNT),"
                        + " length (script: highest set bit + 1), size (STRLEN * 8), set of a range, toByteArray (GET),"
                        + " setByte/getByte (BITFIELD), not (BITOP NOT)",
                r -> {
                    org.redisson.api.RBitSet b1 = r.obj("T1", "bitset", "bs", c -> c.getBitSet("bs"));
                    org.redisson.api.RBitSet b3 = r.obj("T3", "bitset", "bs", c -> c.getBitSet("bs"));
                    r.call("T1", "bs", "set", A("index", 3), "bitSet.set(3)", () -> b1.set(3));
                    r.call("T1", "bs", "set", A("index", 3), "bitSet.set(3)", () -> b1.set(3));
                    r.call("T1", "bs", "set", A("index", 10, "value", true), "bitSet.set(10, true)",
                            () -> b1.set(10, true));
                    r.query("T3", "bs", "get(3)", q(() -> b3.get(3)), "get(4)", q(() -> b3.get(4)),
                            "cardinality", q(b3::cardinality), "length", q(b3::length), "size", q(b3::size),
                            "toByteArray", q(b3::toByteArray));
                    r.call("T3", "bs", "clear", A("index", 3), "bitSet.clear(3)", () -> b3.clear(3));
                    r.call("T3", "bs", "set", A("from", 16, "to", 20), "bitSet.set(16, 20)", v(() -> b3.set(16, 20)));
                    r.call("T1", "bs", "setByte", A("offset", 4, "value", 0x41), "bitSet.setByte(4, (byte) 0x41)",
                            () -> b1.setByte(4, (byte) 0x41));
                    r.call("T1", "bs", "getByte", A("offset", 4), "bitSet.getByte(4)", () -> b1.getByte(4));
                    r.call("T1", "bs", "not", null, "bitSet.not()", b1::not);
                    r.query("T1", "bs", "cardinality", q(b1::cardinality), "toByteArray", q(b1::toByteArray));
                    r.call("T1", "bs", "clear", null, "bitSet.clear()", v(b1::clear));
                }).commands("data");
    }

    static void defineHyperLogLog() {
        sc("hyperloglog", "hyperloglog.ops",
                "RHyperLogLog (StringCodec): add = PFADD, addAll = PFADD of several, count = PFCOUNT, countWith ="
                        + " PFCOUNT of several keys, mergeWith = PFMERGE; the stored value is Redis's HLL encoding",
                r -> {
                    org.redisson.api.RHyperLogLog<Object> h1 = r.obj("T1", "hll", "h1",
                            c -> c.getHyperLogLog("h1", StringCodec.INSTANCE));
                    org.redisson.api.RHyperLogLog<Object> h2 = r.obj("T3", "hll", "h2",
                            c -> c.getHyperLogLog("h2", StringCodec.INSTANCE));
                    r.call("T1", "h1", "add", A("codec", "StringCodec", "value", "a"), "hyperLogLog.add(\"a\")",
                            () -> h1.add("a"));
                    r.call("T1", "h1", "add", A("codec", "StringCodec", "value", "a"), "hyperLogLog.add(\"a\")",
                            () -> h1.add("a"));
                    r.call("T1", "h1", "addAll", A("codec", "StringCodec", "values", Arrays.asList("b", "c")),
                            "hyperLogLog.addAll(List [\"b\", \"c\"])", () -> h1.addAll(Arrays.<Object>asList("b", "c")));
                    r.call("T3", "h2", "addAll", A("codec", "StringCodec", "values", Arrays.asList("c", "d")),
                            "hyperLogLog.addAll(List [\"c\", \"d\"])", () -> h2.addAll(Arrays.<Object>asList("c", "d")));
                    r.call("T1", "h1", "count", null, "hyperLogLog.count()", h1::count);
                    r.call("T1", "h1", "countWith", A("others", Arrays.asList("h2")), "hyperLogLog.countWith(\"h2\")",
                            () -> h1.countWith("h2"));
                    r.call("T3", "h2", "mergeWith", A("others", Arrays.asList("h1")), "hyperLogLog.mergeWith(\"h1\")",
                            v(() -> h2.mergeWith("h1")));
                    r.call("T3", "h2", "count", null, "hyperLogLog.count()", h2::count);
                }).commands("data");
    }
}

/** Sample POJO for the JSON codec vectors. Jackson (as configured by Redisson) uses its fields, sorted by name. */
class Person {
    String name;
    int age;
    Long id;
    long count;
    double score;
    boolean active;
    List<String> tags;
    String nick;

    Map<String, Object> describe() {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("name", name);
        m.put("age", age);
        m.put("id", id);
        m.put("count", count);
        m.put("score", score);
        m.put("active", active);
        m.put("tags", tags);
        m.put("nick", nick);
        return m;
    }

    @Override
    public boolean equals(Object o) {
        if (!(o instanceof Person)) {
            return false;
        }
        Person p = (Person) o;
        return Objects.equals(name, p.name) && age == p.age && Objects.equals(id, p.id) && count == p.count
                && Double.compare(score, p.score) == 0 && active == p.active && Objects.equals(tags, p.tags)
                && Objects.equals(nick, p.nick);
    }

    @Override
    public int hashCode() {
        return Objects.hash(name, age, id, count, score, active, tags, nick);
    }

    @Override
    public String toString() {
        return "Person" + describe();
    }
}

/** Sample enum for codecs2 (an enum without constant bodies is final, so JsonJacksonCodec writes no type for it). */
enum Status { NEW, ACTIVE }

/** Nested POJO for codecs2 (fields: sku, qty, price, ref). */
class Item {
    String sku;
    int qty;
    Long price;
    UUID ref;

    Item() {
    }

    Item(String sku, int qty, Long price) {
        this.sku = sku;
        this.qty = qty;
        this.price = price;
    }

    @Override
    public boolean equals(Object o) {
        if (!(o instanceof Item)) {
            return false;
        }
        Item i = (Item) o;
        return Objects.equals(sku, i.sku) && qty == i.qty && Objects.equals(price, i.price) && Objects.equals(ref, i.ref);
    }

    @Override
    public int hashCode() {
        return Objects.hash(sku, qty, price, ref);
    }
}

/** POJO with nested collections and the value types a Go service sends (codecs2). */
class Order {
    UUID id;
    Date created;
    BigDecimal amount;
    BigInteger big;
    Status status;
    byte[] blob;
    List<Item> items;
    Map<String, Object> attrs;
    Set<String> tags;
    String note;
    Integer qty;
    Long total;
    long count;
    int n;
    double ratio;
    Item main;

    @Override
    public boolean equals(Object o) {
        if (!(o instanceof Order)) {
            return false;
        }
        Order x = (Order) o;
        return Objects.equals(id, x.id) && Objects.equals(created, x.created) && Objects.equals(amount, x.amount)
                && Objects.equals(big, x.big) && status == x.status && Arrays.equals(blob, x.blob)
                && Objects.equals(items, x.items) && Objects.equals(attrs, x.attrs) && Objects.equals(tags, x.tags)
                && Objects.equals(note, x.note) && Objects.equals(qty, x.qty) && Objects.equals(total, x.total)
                && count == x.count && n == x.n && Double.compare(ratio, x.ratio) == 0 && Objects.equals(main, x.main);
    }

    @Override
    public int hashCode() {
        return Objects.hash(id, created, amount, big, status, items, attrs, tags, note, qty, total, count, n, ratio, main);
    }
}
