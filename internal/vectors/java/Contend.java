import net.bytebuddy.ByteBuddy;
import net.bytebuddy.description.modifier.Visibility;
import net.bytebuddy.dynamic.loading.ClassLoadingStrategy;
import org.redisson.Redisson;
import org.redisson.api.RBlockingQueue;
import org.redisson.api.RBloomFilter;
import org.redisson.api.RCountDownLatch;
import org.redisson.api.RDelayedQueue;
import org.redisson.api.RDoubleAdder;
import org.redisson.api.RFencedLock;
import org.redisson.api.RFuture;
import org.redisson.api.RIdGenerator;
import org.redisson.api.RLocalCachedMap;
import org.redisson.api.RLock;
import org.redisson.api.RLongAdder;
import org.redisson.api.RMap;
import org.redisson.api.RMapCache;
import org.redisson.api.RPatternTopic;
import org.redisson.api.RPermitExpirableSemaphore;
import org.redisson.api.RRateLimiter;
import org.redisson.api.RReadWriteLock;
import org.redisson.api.RReliableTopic;
import org.redisson.api.RScript;
import org.redisson.api.RSemaphore;
import org.redisson.api.RTopic;
import org.redisson.api.RateType;
import org.redisson.api.RedissonClient;
import org.redisson.api.options.LocalCachedMapOptions;
import org.redisson.client.codec.Codec;
import org.redisson.client.codec.StringCodec;
import org.redisson.codec.JsonJacksonCodec;
import org.redisson.config.Config;

import java.lang.reflect.Field;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Java side of cross-language lock tests, on genuine Redisson.
 *   counter PORT LOCK N THREADS   each thread: N times { lock; GET ctr:LOCK; SET +1; unlock }
 *   hold PORT LOCK MILLIS         lock (watchdog), print "locked <epoch-ms>", sleep, print "unlocking <epoch-ms>", unlock
 *   waitlock PORT LOCK            lock() and print "acquired <epoch-ms>", then unlock
 * Prints "done" last; exit 0 on success.
 * With -Dcontend.cluster=1 (any value), PORT is a Redis Cluster seed node (useClusterServers) instead of a single server.
 *
 * Added modes (see README.md for their output lines): fair, rwcounter, rwhold, rwwait, sem, semwait,
 * latchset, latchwait, latchdown, pexsem, rate; and fairhold, fairwait, semhold, ratewait, pexcontend, fenced,
 * fencedhold, fencedwait. They print "violation ..." / "error ..." lines and exit non-zero
 * on any violation, error or timeout. Blocking waits give up after -Dcontend.timeoutSec (default 60) seconds.
 *
 * Message modes (topics, collections, delayed queue): topicpub, topicsub, patternsub, reliablepub, reliablesub,
 * mapput, mapcheck, queueprod, queuecons, delayedprod, delayedcons. Their values are org.goredisson.interop.Msg
 * {long id; String from; String text} under JsonJacksonCodec (a topic mode's CODEC argument "string" sends the
 * text "<id> <from> <text>" under StringCodec instead); see defineMsg().
 *
 * Cache and utility modes (README.md lists their arguments and output lines): mapcacheput, mapcachecheck
 * (RMapCache with TTL / max idle; --expect-gone), lcmwatch, lcmput (RLocalCachedMap near cache, sync strategy
 * INVALIDATE / UPDATE / NONE), adderinc, addersum, dadderinc, daddersum (RLongAdder / RDoubleAdder; an inc process
 * stays alive -Dcontend.aliveSec seconds, default 10, to answer sum requests), bloomadd, bloomcheck (RBloomFilter,
 * StringCodec elements unless CODEC json), idgen (RIdGenerator).
 */
public class Contend {
    static final long PID = ProcessHandle.current().pid();
    static final long WAIT_SEC = Long.getLong("contend.timeoutSec", 60);
    static final List<String> problems = new ArrayList<>();

    static synchronized void out(String s) {
        System.out.println(s);
        System.out.flush();
    }

    static long now() {
        return System.currentTimeMillis();
    }

    static void problem(String s) {
        out(s);
        synchronized (problems) {
            problems.add(s);
        }
    }

    interface Body {
        void run(int t) throws Exception;
    }

    /** Runs body(t) on `threads` threads; an exception in a thread is recorded as "error ...". */
    static void onThreads(int threads, Body body) throws InterruptedException {
        Thread[] ts = new Thread[threads];
        for (int t = 0; t < threads; t++) {
            final int tt = t;
            ts[t] = new Thread(() -> {
                try {
                    body.run(tt);
                } catch (Throwable e) {
                    problem("error " + PID + ":" + tt + " " + e + " " + now());
                }
            });
            ts[t].start();
        }
        for (Thread t : ts) t.join();
    }

    static long getLong(RedissonClient r, String key) {
        String v = (String) r.getBucket(key, StringCodec.INSTANCE).get();
        return v == null ? 0 : Long.parseLong(v);
    }

    /** hold modes: lock(), print "locked <ts>", sleep, print "unlocking <ts>", unlock. */
    /** The lock of a counter mode: spin lock, or a 4.x non-reentrant (fair) lock found by reflection. */
    static RLock lockKind(RedissonClient r, String mode, String name) {
        if (mode.equals("spincounter")) {
            return r.getSpinLock(name);
        }
        String m = mode.equals("nrcounter") ? "getNonReentrantLock" : "getNonReentrantFairLock";
        try {
            return (RLock) RedissonClient.class.getMethod(m, String.class).invoke(r, name);
        } catch (NoSuchMethodException e) {
            throw new IllegalStateException(m + " needs Redisson 4.x");
        } catch (ReflectiveOperationException e) {
            throw new IllegalStateException(e);
        }
    }

    static void holdFor(RLock l, long millis) throws InterruptedException {
        l.lock();
        out("locked " + now());
        Thread.sleep(millis);
        out("unlocking " + now());
        l.unlock();
    }

    static RLock rwSide(RedissonClient r, String name, String side) {
        RReadWriteLock rw = r.getReadWriteLock(name);
        switch (side) {
            case "read": return rw.readLock();
            case "write": return rw.writeLock();
            default: throw new IllegalArgumentException("read|write: " + side);
        }
    }

    // ---------------------------------------------------------------- message modes: topics, collections, delayed queue
    /** The modes that exchange Msg values: they call defineMsg() before the client starts. */
    static final Set<String> MSG_MODES = new HashSet<>(Arrays.asList("topicpub", "topicsub", "patternsub",
            "reliablepub", "reliablesub", "mapput", "mapcheck", "queueprod", "queuecons", "delayedprod", "delayedcons",
            "mapcacheput", "mapcachecheck", "lcmwatch", "lcmput", "lcmclear", "bloomadd", "bloomcheck"));

    /** org.goredisson.interop.Msg and its fields; JSON: JsonJacksonCodec that resolves it. */
    static Class<?> MSG;
    static Field MSG_ID, MSG_FROM, MSG_TEXT;
    static Codec JSON;

    /**
     * Defines the POJO {@code public class org.goredisson.interop.Msg {public long id; public String from; public
     * String text;}} (public no-argument constructor). This file must stay a single default-package source (the bars
     * compile it alone), so the class is generated at start-up with Byte Buddy (on every Redisson classpath) into a
     * child class loader. That loader resolves "@class" for JSON (new JsonJacksonCodec(loader)) and becomes the
     * thread context class loader before the client starts: with useThreadClassLoader (the default) Redisson copies
     * JsonJacksonCodec with the calling thread's context loader for every command.
     * JsonJacksonCodec writes it as {"@class":"org.goredisson.interop.Msg","from":"java","id":1,"text":"..."}.
     */
    static void defineMsg() throws ReflectiveOperationException {
        MSG = new ByteBuddy().subclass(Object.class).name("org.goredisson.interop.Msg")
                .defineField("id", long.class, Visibility.PUBLIC)
                .defineField("from", String.class, Visibility.PUBLIC)
                .defineField("text", String.class, Visibility.PUBLIC)
                .make()
                .load(Contend.class.getClassLoader(), ClassLoadingStrategy.Default.WRAPPER)
                .getLoaded();
        MSG_ID = MSG.getField("id");
        MSG_FROM = MSG.getField("from");
        MSG_TEXT = MSG.getField("text");
        Thread.currentThread().setContextClassLoader(MSG.getClassLoader());
        JSON = new JsonJacksonCodec(MSG.getClassLoader());
    }

    /** A decoded message. */
    static final class M {
        final long id;
        final String from;
        final String text;

        M(long id, String from, String text) {
            this.id = id;
            this.from = from;
            this.text = text;
        }

        /** "<from>:<id>": the identity used for duplicates and in "ids" lines. */
        String key() {
            return from + ":" + id;
        }
    }

    /** The CODEC argument at a[i]: "json" (default) = JSON, "string" = StringCodec. */
    static Codec codecArg(String[] a, int i) {
        String c = a.length > i ? a[i] : "json";
        switch (c) {
            case "json": return JSON;
            case "string": return StringCodec.INSTANCE;
            default: throw new IllegalArgumentException("string|json: " + c);
        }
    }

    /** A Msg under JSON, the text "<id> <from> <text>" under StringCodec. */
    static Object msg(Codec codec, long id, String from, String text) throws ReflectiveOperationException {
        if (codec == StringCodec.INSTANCE) return id + " " + from + " " + text;
        Object m = MSG.getConstructor().newInstance();
        MSG_ID.setLong(m, id);
        MSG_FROM.set(m, from);
        MSG_TEXT.set(m, text);
        return m;
    }

    /** The message a decoded value carries, or null (not a Msg under JSON, not "<id> <from> <text>" under StringCodec). */
    static M parse(Codec codec, Object o) {
        try {
            if (codec == StringCodec.INSTANCE) {
                if (!(o instanceof String)) return null;
                String[] p = ((String) o).split(" ", 3);
                return p.length == 3 ? new M(Long.parseLong(p[0]), p[1], p[2]) : null;
            }
            if (o == null || !MSG.isInstance(o)) return null;
            return new M(MSG_ID.getLong(o), (String) MSG_FROM.get(o), (String) MSG_TEXT.get(o));
        } catch (ReflectiveOperationException | RuntimeException e) {
            return null;
        }
    }

    static String cls(Object o) {
        return o == null ? "null" : o.getClass().getName();
    }

    /** "a:1,a:2,b:1": keys sorted by from, then by numeric id. */
    static String idList(List<M> ms) {
        List<M> l = new ArrayList<>(ms);
        l.sort((x, y) -> x.from.equals(y.from) ? Long.compare(x.id, y.id) : x.from.compareTo(y.from));
        StringBuilder b = new StringBuilder();
        for (M m : l) b.append(b.length() == 0 ? "" : ",").append(m.key());
        return b.toString();
    }

    /**
     * What a topic subscriber received. Every publisher (its "from", and with a pattern also the channel) must
     * deliver ids 1, 2, 3, ... in that order; any other id is an order violation (a lost, repeated or reordered
     * message).
     */
    static final class Inbox {
        final Codec codec;
        final int n;
        final CountDownLatch full = new CountDownLatch(1);
        final List<M> got = new ArrayList<>();
        final Map<String, Long> next = new LinkedHashMap<>();
        final Map<String, Integer> channels = new LinkedHashMap<>();
        long first, last;
        int count;
        boolean inOrder = true;

        Inbox(Codec codec, int n) {
            this.codec = codec;
            this.n = n;
        }

        synchronized void add(String channel, Object o) {
            long t = now();
            count++;
            if (count == 1) first = t;
            last = t;
            if (channel != null) channels.merge(channel, 1, Integer::sum);
            M m = parse(codec, o);
            if (m == null) {
                inOrder = false;
                problem("violation " + PID + ":0 unexpected " + cls(o) + " " + t);
            } else {
                got.add(m);
                String k = channel == null ? m.from : channel + "/" + m.from;
                long want = next.getOrDefault(k, 1L);
                if (m.id != want) {
                    inOrder = false;
                    problem("violation " + PID + ":0 order " + k + " expected " + want + " got " + m.id + " " + t);
                }
                next.put(k, m.id + 1);
            }
            if (count >= n) full.countDown();
        }

        /** Waits for N messages (timeoutSec), then prints "received ..." (a shortfall is a timeout, a surplus a violation). */
        void await() throws InterruptedException {
            boolean ok = full.await(WAIT_SEC, TimeUnit.SECONDS);
            synchronized (this) {
                if (!ok) problem("timeout " + now());
                if (count > n) problem("violation " + PID + ":0 extra " + (count - n) + " " + now());
            }
        }

        /** "received <n> first <ts> last <ts> order ok|violation" (first/last 0 when none arrived). */
        synchronized void report() {
            out("received " + count + " first " + first + " last " + last + " order " + (inOrder ? "ok" : "violation"));
        }
    }

    /** The consumer group (RReliableTopic's private subscriberId: each listening instance has its own), or null. */
    static String reliableGroup(RReliableTopic t) {
        try {
            Field f = t.getClass().getDeclaredField("subscriberId");
            f.setAccessible(true);
            return (String) f.get(t);
        } catch (ReflectiveOperationException | RuntimeException e) {
            return null;
        }
    }

    /** slf4j-simple's level property for the logger of org.redisson.Redisson. */
    static final String DELAYED_LOG = "org.slf4j.simpleLogger.log.org.redisson.Redisson";

    /** Nearest-rank percentile of sorted values. */
    static long pct(List<Long> sorted, int p) {
        int k = (int) Math.ceil(p / 100.0 * sorted.size()) - 1;
        return sorted.get(Math.max(0, Math.min(sorted.size() - 1, k)));
    }

    /** Seconds an adder inc mode stays alive after its increments (its local count exists only while it runs). */
    static final long ALIVE_SEC = Long.getLong("contend.aliveSec", 10);

    /** "<from>:<id> <text>" of a decoded Msg, "null" for null, null when the value is not a Msg. */
    static String show(Object v) {
        if (v == null) return "null";
        M m = parse(JSON, v);
        return m == null ? null : m.key() + " " + m.text;
    }

    /** The local cached map of lcmwatch / lcmput: JSON keys and values, SYNC (a[i], default INVALIDATE), 1000 entries. */
    static RLocalCachedMap<Object, Object> localCached(RedissonClient r, String name, String[] a, int i) {
        String sync = a.length > i ? a[i].toUpperCase() : "INVALIDATE";
        LocalCachedMapOptions<Object, Object> o = LocalCachedMapOptions.<Object, Object>name(name).codec(JSON)
                .syncStrategy(LocalCachedMapOptions.SyncStrategy.valueOf(sync)).cacheSize(1000);
        return r.getLocalCachedMap(o);
    }

    /** An adder's sumAsync(timeoutSec): its value, or null after printing "timeout <ts>". */
    static Number adderSum(RFuture<? extends Number> f) throws InterruptedException, ExecutionException {
        try {
            return f.get();
        } catch (ExecutionException e) {
            for (Throwable c = e; c != null; c = c.getCause()) {
                if (c instanceof TimeoutException) {
                    problem("timeout " + now());
                    return null;
                }
            }
            throw e;
        }
    }

    /** "1-100,201-300": runs of consecutive values, in the order given. */
    static String runs(List<Long> ids) {
        StringBuilder b = new StringBuilder();
        for (int i = 0; i < ids.size(); ) {
            int j = i;
            while (j + 1 < ids.size() && ids.get(j + 1) == ids.get(j) + 1) j++;
            b.append(b.length() == 0 ? "" : ",").append(ids.get(i)).append('-').append(ids.get(j));
            i = j + 1;
        }
        return b.toString();
    }

    public static void main(String[] a) throws Exception {
        String mode = a[0];
        if (MSG_MODES.contains(mode)) defineMsg();
        if (mode.startsWith("delayed") && System.getProperty(DELAYED_LOG) == null) {
            // getDelayedQueue() logs "RDelayedQueue object is deprecated ..." at ERROR on every call (3.52 and 4.7);
            // silence that one logger (before the client starts) so that stderr carries only real errors
            System.setProperty(DELAYED_LOG, "off");
        }
        Config cfg = new Config();
        cfg.setCodec(StringCodec.INSTANCE);
        if (System.getProperty("contend.cluster") != null) {
            cfg.useClusterServers().addNodeAddress("redis://127.0.0.1:" + a[1]);
        } else {
            cfg.useSingleServer().setAddress("redis://127.0.0.1:" + a[1]);
        }
        RedissonClient r = Redisson.create(cfg);
        String last = "done";
        try {
            String name = a[2];
            switch (mode) {
                case "counter": {
                    int n = Integer.parseInt(a[3]);
                    int threads = Integer.parseInt(a[4]);
                    Thread[] ts = new Thread[threads];
                    for (int t = 0; t < threads; t++) {
                        ts[t] = new Thread(() -> {
                            RLock l = r.getLock(name);
                            for (int i = 0; i < n; i++) {
                                l.lock();
                                try {
                                    String v = (String) r.getBucket("ctr:" + name, StringCodec.INSTANCE).get();
                                    long x = v == null ? 0 : Long.parseLong(v);
                                    r.getBucket("ctr:" + name, StringCodec.INSTANCE).set(Long.toString(x + 1));
                                } finally {
                                    l.unlock();
                                }
                            }
                        });
                        ts[t].start();
                    }
                    for (Thread t : ts) t.join();
                    break;
                }
                case "spincounter":
                case "nrcounter":
                case "nrfaircounter": {
                    // as counter, on getSpinLock (polling, no pub/sub) or, Redisson 4.x only, getNonReentrantLock /
                    // getNonReentrantFairLock (looked up by reflection so that this file still compiles on 3.52)
                    int n = Integer.parseInt(a[3]);
                    int threads = Integer.parseInt(a[4]);
                    out("start " + PID + " " + now());
                    onThreads(threads, t -> {
                        RLock l = lockKind(r, mode, name);
                        for (int i = 0; i < n; i++) {
                            l.lock();
                            try {
                                long x = getLong(r, "ctr:" + name);
                                r.getBucket("ctr:" + name, StringCodec.INSTANCE).set(Long.toString(x + 1));
                            } finally {
                                l.unlock();
                            }
                        }
                    });
                    out("end " + PID + " " + (long) n * threads + " " + now());
                    break;
                }
                case "spinhold": {
                    RLock l = r.getSpinLock(name);
                    l.lock();
                    out("locked " + now());
                    Thread.sleep(Long.parseLong(a[3]));
                    out("unlocking " + now());
                    l.unlock();
                    break;
                }
                case "spinwait": {
                    RLock l = r.getSpinLock(name);
                    boolean ok = l.tryLock(WAIT_SEC, TimeUnit.SECONDS);
                    out((ok ? "acquired " : "timeout ") + now());
                    if (ok) l.unlock();
                    break;
                }
                case "hold": {
                    RLock l = r.getLock(name);
                    l.lock();
                    System.out.println("locked " + System.currentTimeMillis());
                    System.out.flush();
                    Thread.sleep(Long.parseLong(a[3]));
                    System.out.println("unlocking " + System.currentTimeMillis());
                    l.unlock();
                    break;
                }
                case "waitlock": {
                    RLock l = r.getLock(name);
                    boolean ok = l.tryLock(30, TimeUnit.SECONDS);
                    System.out.println((ok ? "acquired " : "timeout ") + System.currentTimeMillis());
                    if (ok) l.unlock();
                    break;
                }
                case "fair": {
                    // fair PORT LOCK N THREADS: counter on getFairLock; every acquisition RPUSHes "<pid>:<thread>"
                    // onto order:LOCK while the lock is held.
                    int n = Integer.parseInt(a[3]);
                    int threads = Integer.parseInt(a[4]);
                    out("start " + PID + " " + now());
                    onThreads(threads, t -> {
                        RLock l = r.getFairLock(name);
                        for (int i = 0; i < n; i++) {
                            l.lock();
                            try {
                                r.getList("order:" + name, StringCodec.INSTANCE).add(PID + ":" + t);
                                long x = getLong(r, "ctr:" + name);
                                r.getBucket("ctr:" + name, StringCodec.INSTANCE).set(Long.toString(x + 1));
                            } finally {
                                l.unlock();
                            }
                        }
                    });
                    out("end " + PID + " " + (long) n * threads + " " + now());
                    break;
                }
                case "rwcounter": {
                    // rwcounter PORT LOCK N THREADS: even threads write (GET ctr:LOCK, SET +1 under the write lock,
                    // readers:LOCK must be 0), odd threads read (INCR readers:LOCK, GET ctr twice 1 ms apart, must match,
                    // DECR readers:LOCK, unlock).
                    int n = Integer.parseInt(a[3]);
                    int threads = Integer.parseInt(a[4]);
                    AtomicLong writes = new AtomicLong(), reads = new AtomicLong();
                    out("start " + PID + " " + now());
                    onThreads(threads, t -> {
                        RReadWriteLock rw = r.getReadWriteLock(name);
                        boolean writer = t % 2 == 0;
                        RLock l = writer ? rw.writeLock() : rw.readLock();
                        for (int i = 0; i < n; i++) {
                            l.lock();
                            try {
                                if (writer) {
                                    long g = r.getAtomicLong("readers:" + name).get();
                                    if (g != 0) problem("violation " + PID + ":" + t + " write-with-readers " + g + " " + now());
                                    long x = getLong(r, "ctr:" + name);
                                    r.getBucket("ctr:" + name, StringCodec.INSTANCE).set(Long.toString(x + 1));
                                    writes.incrementAndGet();
                                } else {
                                    r.getAtomicLong("readers:" + name).incrementAndGet();
                                    try {
                                        long x1 = getLong(r, "ctr:" + name);
                                        Thread.sleep(1);
                                        long x2 = getLong(r, "ctr:" + name);
                                        if (x1 != x2) problem("violation " + PID + ":" + t + " read-changed " + x1 + " " + x2 + " " + now());
                                        reads.incrementAndGet();
                                    } finally {
                                        r.getAtomicLong("readers:" + name).decrementAndGet();
                                    }
                                }
                            } finally {
                                l.unlock();
                            }
                        }
                    });
                    out("end " + PID + " writes " + writes.get() + " reads " + reads.get() + " " + now());
                    break;
                }
                case "rwhold": {
                    // rwhold PORT LOCK read|write MILLIS
                    RLock l = rwSide(r, name, a[3]);
                    l.lock();
                    out("locked " + now());
                    Thread.sleep(Long.parseLong(a[4]));
                    out("unlocking " + now());
                    l.unlock();
                    break;
                }
                case "rwwait": {
                    // rwwait PORT LOCK read|write
                    RLock l = rwSide(r, name, a[3]);
                    if (l.tryLock(WAIT_SEC, TimeUnit.SECONDS)) {
                        out("acquired " + now());
                        l.unlock();
                    } else {
                        problem("timeout " + now());
                    }
                    break;
                }
                case "sem": {
                    // sem PORT NAME PERMITS N THREADS: acquire; INCR inflight:NAME (must be <= PERMITS); 1 ms; DECR; release
                    int permits = Integer.parseInt(a[3]);
                    int n = Integer.parseInt(a[4]);
                    int threads = Integer.parseInt(a[5]);
                    RSemaphore s0 = r.getSemaphore(name);
                    out("setpermits " + s0.trySetPermits(permits) + " " + now());
                    AtomicLong max = new AtomicLong();
                    onThreads(threads, t -> {
                        RSemaphore s = r.getSemaphore(name);
                        for (int i = 0; i < n; i++) {
                            s.acquire();
                            try {
                                long in = r.getAtomicLong("inflight:" + name).incrementAndGet();
                                try {
                                    max.accumulateAndGet(in, Math::max);
                                    if (in > permits) problem("violation " + PID + ":" + t + " inflight " + in + " " + now());
                                    Thread.sleep(1);
                                } finally {
                                    r.getAtomicLong("inflight:" + name).decrementAndGet();
                                }
                            } finally {
                                s.release();
                            }
                        }
                    });
                    out("end " + PID + " " + now());
                    last = "done " + max.get();
                    break;
                }
                case "semwait": {
                    // semwait PORT NAME
                    RSemaphore s = r.getSemaphore(name);
                    if (s.tryAcquire(WAIT_SEC, TimeUnit.SECONDS)) {
                        out("acquired " + now());
                        s.release();
                    } else {
                        problem("timeout " + now());
                    }
                    break;
                }
                case "latchset": {
                    // latchset PORT NAME COUNT
                    boolean set = r.getCountDownLatch(name).trySetCount(Long.parseLong(a[3]));
                    out("set " + set + " " + now());
                    break;
                }
                case "latchwait": {
                    // latchwait PORT NAME
                    RCountDownLatch l = r.getCountDownLatch(name);
                    if (l.await(WAIT_SEC, TimeUnit.SECONDS)) out("released " + now());
                    else problem("timeout " + now());
                    break;
                }
                case "latchdown": {
                    // latchdown PORT NAME N: countDown N times, 10 ms apart
                    RCountDownLatch l = r.getCountDownLatch(name);
                    int n = Integer.parseInt(a[3]);
                    for (int i = 0; i < n; i++) {
                        if (i > 0) Thread.sleep(10);
                        if (i == n - 1) out("counting " + now());
                        l.countDown();
                    }
                    out("counted " + now());
                    break;
                }
                case "pexsem": {
                    // pexsem PORT NAME PERMITS LEASE_MS: acquire one permit with that lease and exit without releasing
                    RPermitExpirableSemaphore s = r.getPermitExpirableSemaphore(name);
                    out("setpermits " + s.trySetPermits(Integer.parseInt(a[3])) + " " + now());
                    String id = s.tryAcquire(WAIT_SEC * 1000, Long.parseLong(a[4]), TimeUnit.MILLISECONDS);
                    if (id != null) out("permit " + id + " " + now());
                    else problem("timeout " + now());
                    break;
                }
                case "rate": {
                    // rate PORT NAME RATE INTERVAL_MS ITERS THREADS: trySetRate(OVERALL, RATE, INTERVAL_MS); each thread
                    // ITERS times tryAcquire() (no wait); every grant RPUSHes its epoch ms onto grants:NAME, and
                    // "<ms before the call> <ms after>" onto grantspans:NAME
                    long rate = Long.parseLong(a[3]);
                    long intervalMs = Long.parseLong(a[4]);
                    int iters = Integer.parseInt(a[5]);
                    int threads = Integer.parseInt(a[6]);
                    RRateLimiter rl0 = r.getRateLimiter(name);
                    out("setrate " + rl0.trySetRate(RateType.OVERALL, rate, Duration.ofMillis(intervalMs)) + " " + now());
                    AtomicLong granted = new AtomicLong();
                    onThreads(threads, t -> {
                        RRateLimiter rl = r.getRateLimiter(name);
                        for (int i = 0; i < iters; i++) {
                            long pre = now();
                            if (rl.tryAcquire()) {
                                long post = now();
                                r.getList("grants:" + name, StringCodec.INSTANCE).add(Long.toString(post));
                                // the limiter's grant time (its zset score) lies in [pre, post]
                                r.getList("grantspans:" + name, StringCodec.INSTANCE).add(pre + " " + post);
                                granted.incrementAndGet();
                            }
                        }
                    });
                    out("end " + PID + " " + now());
                    last = "done " + granted.get();
                    break;
                }
                case "fairhold": {
                    // fairhold PORT LOCK MILLIS: as hold, on getFairLock
                    holdFor(r.getFairLock(name), Long.parseLong(a[3]));
                    break;
                }
                case "fairwait": {
                    // fairwait PORT LOCK [LABEL]: tryLock(timeoutSec) on getFairLock, print "acquired <ts>",
                    // RPUSH order:LOCK LABEL (if given) while holding it, unlock
                    RLock l = r.getFairLock(name);
                    if (l.tryLock(WAIT_SEC, TimeUnit.SECONDS)) {
                        try {
                            out("acquired " + now());
                            if (a.length > 3) r.getList("order:" + name, StringCodec.INSTANCE).add(a[3]);
                        } finally {
                            l.unlock();
                        }
                    } else {
                        problem("timeout " + now());
                    }
                    break;
                }
                case "semhold": {
                    // semhold PORT NAME MILLIS: acquire() one permit of getSemaphore, print "acquired <ts>", sleep,
                    // print "releasing <ts>", release()
                    RSemaphore s = r.getSemaphore(name);
                    s.acquire();
                    out("acquired " + now());
                    Thread.sleep(Long.parseLong(a[3]));
                    out("releasing " + now());
                    s.release();
                    break;
                }
                case "ratewait": {
                    // ratewait PORT NAME: print "trying <ts>", tryAcquire(1, timeoutSec) on getRateLimiter (waits until
                    // a permit is due), print "acquired <ts>"
                    out("trying " + now());
                    if (r.getRateLimiter(name).tryAcquire(1, Duration.ofSeconds(WAIT_SEC))) out("acquired " + now());
                    else problem("timeout " + now());
                    break;
                }
                case "pexcontend": {
                    // pexcontend PORT NAME PERMITS N THREADS LEASE_MS: as sem on getPermitExpirableSemaphore, each permit
                    // taken with lease LEASE_MS and released by its id
                    int permits = Integer.parseInt(a[3]);
                    int n = Integer.parseInt(a[4]);
                    int threads = Integer.parseInt(a[5]);
                    long lease = Long.parseLong(a[6]);
                    RPermitExpirableSemaphore s0 = r.getPermitExpirableSemaphore(name);
                    out("setpermits " + s0.trySetPermits(permits) + " " + now());
                    AtomicLong max = new AtomicLong();
                    onThreads(threads, t -> {
                        RPermitExpirableSemaphore s = r.getPermitExpirableSemaphore(name);
                        for (int i = 0; i < n; i++) {
                            String id = s.acquire(lease, TimeUnit.MILLISECONDS);
                            try {
                                long in = r.getAtomicLong("inflight:" + name).incrementAndGet();
                                try {
                                    max.accumulateAndGet(in, Math::max);
                                    if (in > permits) problem("violation " + PID + ":" + t + " inflight " + in + " " + now());
                                    Thread.sleep(1);
                                } finally {
                                    r.getAtomicLong("inflight:" + name).decrementAndGet();
                                }
                            } finally {
                                s.release(id);
                            }
                        }
                    });
                    out("end " + PID + " " + now());
                    last = "done " + max.get();
                    break;
                }
                case "fenced": {
                    // fenced PORT LOCK N THREADS: each thread N times { lockAndGetToken; the token must exceed
                    // GET fence:LOCK (the last token any holder wrote); SET fence:LOCK token; RPUSH tokens:LOCK token;
                    // GET/SET +1 ctr:LOCK; unlock }
                    int n = Integer.parseInt(a[3]);
                    int threads = Integer.parseInt(a[4]);
                    out("start " + PID + " " + now());
                    onThreads(threads, t -> {
                        RFencedLock l = r.getFencedLock(name);
                        for (int i = 0; i < n; i++) {
                            Long token = l.lockAndGetToken();
                            try {
                                long lastToken = getLong(r, "fence:" + name);
                                if (token == null || token <= lastToken)
                                    problem("violation " + PID + ":" + t + " token " + token + " after " + lastToken + " " + now());
                                r.getBucket("fence:" + name, StringCodec.INSTANCE).set(Long.toString(token));
                                r.getList("tokens:" + name, StringCodec.INSTANCE).add(Long.toString(token));
                                long x = getLong(r, "ctr:" + name);
                                r.getBucket("ctr:" + name, StringCodec.INSTANCE).set(Long.toString(x + 1));
                            } finally {
                                l.unlock();
                            }
                        }
                    });
                    out("end " + PID + " " + (long) n * threads + " " + now());
                    break;
                }
                case "fencedhold": {
                    // fencedhold PORT LOCK MILLIS: lockAndGetToken, print "locked <ts> <token>", sleep, "unlocking <ts>", unlock
                    RFencedLock l = r.getFencedLock(name);
                    Long token = l.lockAndGetToken();
                    out("locked " + now() + " " + token);
                    Thread.sleep(Long.parseLong(a[3]));
                    out("unlocking " + now());
                    l.unlock();
                    break;
                }
                case "fencedwait": {
                    // fencedwait PORT LOCK: tryLockAndGetToken(timeoutSec), print "acquired <ts> <token>", unlock
                    RFencedLock l = r.getFencedLock(name);
                    Long token = l.tryLockAndGetToken(WAIT_SEC, TimeUnit.SECONDS);
                    if (token != null) {
                        out("acquired " + now() + " " + token);
                        l.unlock();
                    } else {
                        problem("timeout " + now());
                    }
                    break;
                }
                case "topicpub": {
                    // topicpub PORT NAME N [CODEC]: publish Msg {id: 1..N, from: "java", text: "sent <ts>"} on RTopic
                    // NAME, 1 ms apart; receivers = the sum of PUBLISH's counts
                    int n = Integer.parseInt(a[3]);
                    Codec codec = codecArg(a, 4);
                    RTopic t = r.getTopic(name, codec);
                    long receivers = 0;
                    for (int i = 1; i <= n; i++) {
                        if (i > 1) Thread.sleep(1);
                        receivers += t.publish(msg(codec, i, "java", "sent " + now()));
                    }
                    out("published " + n + " receivers " + receivers + " " + now());
                    break;
                }
                case "topicsub": {
                    // topicsub PORT NAME N [CODEC]: RTopic listener; wait for N messages; each publisher's ids 1, 2, ...
                    int n = Integer.parseInt(a[3]);
                    Codec codec = codecArg(a, 4);
                    RTopic t = r.getTopic(name, codec);
                    Inbox in = new Inbox(codec, n);
                    t.addListener(Object.class, (ch, m) -> in.add(null, m));
                    out("subscribed " + now());
                    in.await();
                    t.removeAllListeners();
                    in.report();
                    break;
                }
                case "patternsub": {
                    // patternsub PORT PATTERN N [CODEC]: RPatternTopic listener; as topicsub, order per channel and
                    // publisher; "channels <channel>=<count>,..." in the order first seen
                    int n = Integer.parseInt(a[3]);
                    Codec codec = codecArg(a, 4);
                    RPatternTopic t = r.getPatternTopic(name, codec);
                    Inbox in = new Inbox(codec, n);
                    t.addListener(Object.class, (pattern, ch, m) -> in.add(ch.toString(), m));
                    out("subscribed " + now());
                    in.await();
                    t.removeAllListeners();
                    in.report();
                    synchronized (in) {
                        StringBuilder b = new StringBuilder();
                        for (Map.Entry<String, Integer> e : in.channels.entrySet()) {
                            b.append(b.length() == 0 ? "" : ",").append(e.getKey()).append('=').append(e.getValue());
                        }
                        out("channels " + b);
                    }
                    break;
                }
                case "reliablepub": {
                    // reliablepub PORT NAME N: as topicpub on RReliableTopic (XADD NAME * m <msg>); publish returns the
                    // number of consumer groups (listening RReliableTopic instances) when the entry was added
                    int n = Integer.parseInt(a[3]);
                    RReliableTopic t = r.getReliableTopic(name, JSON);
                    long receivers = 0;
                    for (int i = 1; i <= n; i++) {
                        if (i > 1) Thread.sleep(1);
                        receivers += t.publish(msg(JSON, i, "java", "sent " + now()));
                    }
                    out("published " + n + " receivers " + receivers + " " + now());
                    break;
                }
                case "reliablesub": {
                    // reliablesub PORT NAME N: RReliableTopic listener (its own consumer group, created at 0); wait
                    // for N messages; Redisson XACKs each after the listener returns: wait until the group has no
                    // pending entry; then removeAllListeners (XGROUP DESTROY + ZREM {NAME}:timeout)
                    int n = Integer.parseInt(a[3]);
                    RReliableTopic t = r.getReliableTopic(name, JSON);
                    Inbox in = new Inbox(JSON, n);
                    t.addListener(Object.class, (ch, m) -> in.add(null, m));
                    String group = reliableGroup(t);
                    out("subscribed " + now() + " " + group);
                    in.await();
                    synchronized (in) {
                        StringBuilder b = new StringBuilder();
                        for (M m : in.got) b.append(b.length() == 0 ? "" : ",").append(m.key());
                        out("ids " + b);
                    }
                    if (group != null) {
                        long pending = -1;
                        long deadline = now() + 5000;
                        while (true) {
                            // (ReturnType VALUE and a string: ReturnType INTEGER was renamed LONG in 4.x)
                            Object p = r.getScript(StringCodec.INSTANCE).eval(name, RScript.Mode.READ_WRITE,
                                    "return tostring(redis.call('xpending', KEYS[1], ARGV[1])[1])", RScript.ReturnType.VALUE,
                                    Collections.singletonList(name), group);
                            pending = Long.parseLong(String.valueOf(p));
                            if (pending == 0 || now() > deadline) break;
                            Thread.sleep(10);
                        }
                        if (pending == 0) out("acked " + now());
                        else problem("violation " + PID + ":0 unacked " + pending + " " + now());
                    }
                    t.removeAllListeners();
                    in.report();
                    break;
                }
                case "mapput": {
                    // mapput PORT NAME N [PREFIX]: RMap (JsonJacksonCodec keys and values) put("<PREFIX><i>",
                    // Msg {id: i, from: "java", text: "<PREFIX><i>"}), i = 1..N; PREFIX defaults to k
                    int n = Integer.parseInt(a[3]);
                    String prefix = a.length > 4 ? a[4] : "k";
                    RMap<Object, Object> m = r.getMap(name, JSON);
                    int replaced = 0;
                    for (int i = 1; i <= n; i++) {
                        if (m.put(prefix + i, msg(JSON, i, "java", prefix + i)) != null) replaced++;
                    }
                    out("put " + n + " replaced " + replaced + " " + now());
                    break;
                }
                case "mapcheck": {
                    // mapcheck PORT NAME N [PREFIX]: for i = 1..N: containsKey("<PREFIX><i>") (found), get (decoded:
                    // a Msg), id == i and text == the key (else mismatched); PREFIX defaults to g
                    int n = Integer.parseInt(a[3]);
                    String prefix = a.length > 4 ? a[4] : "g";
                    RMap<Object, Object> m = r.getMap(name, JSON);
                    int found = 0, decoded = 0, mismatched = 0;
                    List<String> missing = new ArrayList<>(), bad = new ArrayList<>(), wrong = new ArrayList<>();
                    Map<String, Integer> from = new TreeMap<>();
                    for (int i = 1; i <= n; i++) {
                        String k = prefix + i;
                        if (!m.containsKey(k)) {
                            missing.add(k);
                            continue;
                        }
                        found++;
                        Object v;
                        try {
                            v = m.get(k);
                        } catch (RuntimeException e) {
                            bad.add(k + "(" + e.getClass().getSimpleName() + ")");
                            continue;
                        }
                        M x = parse(JSON, v);
                        if (x == null) {
                            bad.add(k + "(" + cls(v) + ")");
                            continue;
                        }
                        decoded++;
                        from.merge(String.valueOf(x.from), 1, Integer::sum);
                        if (x.id != i || !k.equals(x.text)) {
                            mismatched++;
                            wrong.add(k + "(" + x.key() + " " + x.text + ")");
                        }
                    }
                    out("checked " + n + " found " + found + " decoded " + decoded + " mismatched " + mismatched + " " + now());
                    StringBuilder b = new StringBuilder();
                    for (Map.Entry<String, Integer> e : from.entrySet()) {
                        b.append(b.length() == 0 ? "" : ",").append(e.getKey()).append('=').append(e.getValue());
                    }
                    out("from " + b);
                    if (!missing.isEmpty()) problem("violation " + PID + ":0 missing " + missing.size() + " first " + missing.get(0) + " " + now());
                    if (!bad.isEmpty()) problem("violation " + PID + ":0 undecoded " + bad.size() + " first " + bad.get(0) + " " + now());
                    if (!wrong.isEmpty()) problem("violation " + PID + ":0 mismatched " + wrong.size() + " first " + wrong.get(0) + " " + now());
                    break;
                }
                case "queueprod": {
                    // queueprod PORT NAME N: RBlockingQueue offer Msg {id: 1..N, from: "java", text: "q<i>"} (RPUSH)
                    int n = Integer.parseInt(a[3]);
                    RBlockingQueue<Object> q = r.getBlockingQueue(name, JSON);
                    out("start " + PID + " " + now());
                    for (int i = 1; i <= n; i++) {
                        if (!q.offer(msg(JSON, i, "java", "q" + i))) problem("violation " + PID + ":0 offer " + i + " false " + now());
                    }
                    out("offered " + n + " " + now());
                    break;
                }
                case "queuecons": {
                    // queuecons PORT NAME N THREADS: THREADS threads take N Msgs in all (each take is
                    // poll(timeoutSec) = BLPOP NAME <timeoutSec>); a "<from>:<id>" taken twice is a violation
                    int n = Integer.parseInt(a[3]);
                    int threads = Integer.parseInt(a[4]);
                    AtomicInteger claimed = new AtomicInteger();
                    List<M> taken = new ArrayList<>();
                    Set<String> seen = new HashSet<>();
                    out("start " + PID + " " + now());
                    onThreads(threads, t -> {
                        RBlockingQueue<Object> q = r.getBlockingQueue(name, JSON);
                        while (claimed.incrementAndGet() <= n) {
                            Object o = q.poll(WAIT_SEC, TimeUnit.SECONDS);
                            if (o == null) {
                                problem("timeout " + now());
                                return;
                            }
                            M m = parse(JSON, o);
                            if (m == null) {
                                problem("violation " + PID + ":" + t + " unexpected " + cls(o) + " " + now());
                                continue;
                            }
                            synchronized (taken) {
                                taken.add(m);
                                if (!seen.add(m.key())) problem("violation " + PID + ":" + t + " duplicate " + m.key() + " " + now());
                            }
                        }
                    });
                    out("end " + PID + " " + now());
                    synchronized (taken) {
                        out("taken " + taken.size() + " distinct " + seen.size() + " " + now());
                        out("ids " + idList(taken));
                    }
                    break;
                }
                case "delayedprod": {
                    // delayedprod PORT NAME N DELAY_MS: getDelayedQueue(getBlockingQueue(NAME)) (this client runs a
                    // transfer task until destroy()); offer Msg {id: 1..N, from: "java", text: "due <ts>"} with DELAY_MS,
                    // due = the clock before the call + DELAY_MS (Redisson's score is its own clock after that + DELAY_MS);
                    // destroy()
                    int n = Integer.parseInt(a[3]);
                    long delay = Long.parseLong(a[4]);
                    RBlockingQueue<Object> q = r.getBlockingQueue(name, JSON);
                    RDelayedQueue<Object> dq = r.getDelayedQueue(q);
                    long firstDue = 0, lastDue = 0;
                    for (int i = 1; i <= n; i++) {
                        long due = now() + delay;
                        if (i == 1) firstDue = due;
                        lastDue = due;
                        dq.offer(msg(JSON, i, "java", "due " + due), delay, TimeUnit.MILLISECONDS);
                    }
                    out("offered " + now());
                    out("due " + firstDue + " " + lastDue);
                    dq.destroy();
                    break;
                }
                case "delayedcons": {
                    // delayedcons PORT NAME N: getDelayedQueue(getBlockingQueue(NAME)) first (this client's transfer
                    // task moves due entries: at once on subscribe, then at the head's due time), then take N (one
                    // thread, poll(timeoutSec)); lateness = take time - the due time in the text; destroy()
                    int n = Integer.parseInt(a[3]);
                    RBlockingQueue<Object> q = r.getBlockingQueue(name, JSON);
                    RDelayedQueue<Object> dq = r.getDelayedQueue(q);
                    out("ready " + now());
                    List<Long> late = new ArrayList<>();
                    Set<String> seen = new HashSet<>();
                    for (int i = 0; i < n; i++) {
                        Object o = q.poll(WAIT_SEC, TimeUnit.SECONDS);
                        long t = now();
                        if (o == null) {
                            problem("timeout " + t);
                            break;
                        }
                        M m = parse(JSON, o);
                        long due;
                        try {
                            due = Long.parseLong(m.text.substring("due ".length()));
                        } catch (RuntimeException e) {
                            problem("violation " + PID + ":0 unexpected " + (m == null ? cls(o) : m.key() + " " + m.text) + " " + t);
                            continue;
                        }
                        long l = t - due;
                        late.add(l);
                        out("item " + m.key() + " late " + l + " " + t);
                        if (!seen.add(m.key())) problem("violation " + PID + ":0 duplicate " + m.key() + " " + t);
                        if (l < 0) problem("violation " + PID + ":0 early " + m.key() + " " + l + " " + t);
                    }
                    dq.destroy();
                    if (!late.isEmpty()) {
                        Collections.sort(late);
                        out("late p50 " + pct(late, 50) + " p99 " + pct(late, 99) + " max " + late.get(late.size() - 1));
                    }
                    break;
                }
                case "mapcacheput": {
                    // mapcacheput PORT NAME N TTL_MS [IDLE_MS]: RMapCache (JSON keys and values) put("k<i>",
                    // Msg {i, "java", "k<i>"}, TTL_MS ms [, IDLE_MS ms]), i = 1..N (0 = no TTL / no max idle)
                    int n = Integer.parseInt(a[3]);
                    long ttl = Long.parseLong(a[4]);
                    long idle = a.length > 5 ? Long.parseLong(a[5]) : -1;
                    RMapCache<Object, Object> m = r.getMapCache(name, JSON);
                    for (int i = 1; i <= n; i++) {
                        Object v = msg(JSON, i, "java", "k" + i);
                        if (idle < 0) m.put("k" + i, v, ttl, TimeUnit.MILLISECONDS);
                        else m.put("k" + i, v, ttl, TimeUnit.MILLISECONDS, idle, TimeUnit.MILLISECONDS);
                    }
                    out("put " + n + " " + now());
                    break;
                }
                case "mapcachecheck": {
                    // mapcachecheck PORT NAME N [PREFIX] [--expect-gone]: RMapCache; for i = 1..N get("<PREFIX><i>")
                    // (found: not null; decoded: a Msg; id == i and text == the key, else mismatched), then
                    // remainTimeToLive of each found key; PREFIX defaults to g. --expect-gone: then poll
                    // remainTimeToLive (it does not touch the idle time, get does) of the keys not yet gone until
                    // all are -2, and confirm that get() returns null for each
                    List<String> pa = new ArrayList<>(Arrays.asList(a));
                    boolean expectGone = pa.remove("--expect-gone");
                    int n = Integer.parseInt(pa.get(3));
                    String prefix = pa.size() > 4 ? pa.get(4) : "g";
                    RMapCache<Object, Object> m = r.getMapCache(name, JSON);
                    int found = 0, decoded = 0, mismatched = 0;
                    List<String> missing = new ArrayList<>(), bad = new ArrayList<>(), wrong = new ArrayList<>();
                    List<String> present = new ArrayList<>();
                    Map<String, Integer> from = new TreeMap<>();
                    for (int i = 1; i <= n; i++) {
                        String k = prefix + i;
                        Object v;
                        try {
                            v = m.get(k);
                        } catch (RuntimeException e) {
                            found++;
                            present.add(k);
                            bad.add(k + "(" + e.getClass().getSimpleName() + ")");
                            continue;
                        }
                        if (v == null) {
                            missing.add(k);
                            continue;
                        }
                        found++;
                        present.add(k);
                        M x = parse(JSON, v);
                        if (x == null) {
                            bad.add(k + "(" + cls(v) + ")");
                            continue;
                        }
                        decoded++;
                        from.merge(String.valueOf(x.from), 1, Integer::sum);
                        if (x.id != i || !k.equals(x.text)) {
                            mismatched++;
                            wrong.add(k + "(" + x.key() + " " + x.text + ")");
                        }
                    }
                    out("checked " + n + " found " + found + " decoded " + decoded + " mismatched " + mismatched + " " + now());
                    StringBuilder b = new StringBuilder();
                    for (Map.Entry<String, Integer> e : from.entrySet()) {
                        b.append(b.length() == 0 ? "" : ",").append(e.getKey()).append('=').append(e.getValue());
                    }
                    out("from " + b);
                    long tmin = Long.MAX_VALUE, tmax = Long.MIN_VALUE;
                    for (String k : present) {
                        long t = m.remainTimeToLive(k);
                        tmin = Math.min(tmin, t);
                        tmax = Math.max(tmax, t);
                    }
                    if (present.isEmpty()) tmin = tmax = -2;
                    out("ttl min " + tmin + " max " + tmax);
                    if (!missing.isEmpty()) problem("violation " + PID + ":0 missing " + missing.size() + " first " + missing.get(0) + " " + now());
                    if (!bad.isEmpty()) problem("violation " + PID + ":0 undecoded " + bad.size() + " first " + bad.get(0) + " " + now());
                    if (!wrong.isEmpty()) problem("violation " + PID + ":0 mismatched " + wrong.size() + " first " + wrong.get(0) + " " + now());
                    if (expectGone) {
                        List<String> pending = new ArrayList<>();
                        for (int i = 1; i <= n; i++) pending.add(prefix + i);
                        long deadline = now() + WAIT_SEC * 1000;
                        long firstGone = 0, lastGone = 0;
                        while (!pending.isEmpty()) {
                            List<RFuture<Long>> fs = new ArrayList<>();
                            for (String k : pending) fs.add(m.remainTimeToLiveAsync(k));
                            List<String> still = new ArrayList<>();
                            for (int j = 0; j < fs.size(); j++) {
                                if (fs.get(j).get() != -2) still.add(pending.get(j));
                            }
                            long t = now();
                            if (still.size() < pending.size() && firstGone == 0) firstGone = t;
                            pending = still;
                            if (pending.isEmpty()) {
                                lastGone = t;
                                break;
                            }
                            if (t > deadline) break;
                            Thread.sleep(5);
                        }
                        if (!pending.isEmpty()) {
                            problem("timeout " + now() + " left " + pending.size() + " first " + pending.get(0));
                        } else {
                            int back = 0;
                            String firstBack = null;
                            for (int i = 1; i <= n; i++) {
                                if (m.get(prefix + i) != null) {
                                    back++;
                                    if (firstBack == null) firstBack = prefix + i;
                                }
                            }
                            out("gone " + n + " first " + firstGone + " last " + lastGone);
                            if (back > 0) problem("violation " + PID + ":0 notgone " + back + " first " + firstBack + " " + now());
                        }
                    }
                    break;
                }
                case "lcmwatch": {
                    // lcmwatch PORT NAME KEY SECONDS [SYNC]: RLocalCachedMap (JSON, SYNC, cacheSize 1000); get(KEY)
                    // once (fills the near cache), then get(KEY) every 1 ms for SECONDS; print each change
                    String key = a[3];
                    long seconds = Long.parseLong(a[4]);
                    RLocalCachedMap<Object, Object> m = localCached(r, name, a, 5);
                    String cur = show(m.get(key));
                    if (cur == null) {
                        problem("violation " + PID + ":0 unexpected " + cls(m.get(key)) + " " + now());
                        cur = "?";
                    }
                    out("ready " + now() + " " + cur);
                    long end = now() + seconds * 1000;
                    long polls = 0, changes = 0;
                    while (now() < end) {
                        Object v = m.get(key);
                        polls++;
                        String s = show(v);
                        if (s == null) s = "? " + cls(v);
                        if (!s.equals(cur)) {
                            long t = now();
                            changes++;
                            out("changed " + t + " " + s);
                            if (s.startsWith("? ")) problem("violation " + PID + ":0 unexpected " + cls(v) + " " + t);
                            cur = s;
                        }
                        Thread.sleep(1);
                    }
                    out("polls " + polls + " changes " + changes + " " + now());
                    out("cachedSize " + m.getCachedMap().size());
                    m.destroy();
                    break;
                }
                case "lcmput": {
                    // lcmput PORT NAME KEY N INTERVAL_MS [SYNC]: the same local cached map; put(KEY,
                    // Msg {i, "java", "v<i>"}) i = 1..N, INTERVAL_MS apart, "put <i> <ts>" just before each
                    String key = a[3];
                    int n = Integer.parseInt(a[4]);
                    long interval = Long.parseLong(a[5]);
                    RLocalCachedMap<Object, Object> m = localCached(r, name, a, 6);
                    for (int i = 1; i <= n; i++) {
                        if (i > 1) Thread.sleep(interval);
                        Object v = msg(JSON, i, "java", "v" + i);
                        out("put " + i + " " + now());
                        m.put(key, v);
                    }
                    out("cachedSize " + m.getCachedMap().size());
                    m.destroy();
                    break;
                }
                case "lcmclear": {
                    // lcmclear PORT NAME [SYNC]: the same local cached map; clearLocalCache(), which returns once
                    // every other instance released its permit of the clear's semaphore (or after its own timeout):
                    // "cleared <ms> <ts>"
                    RLocalCachedMap<Object, Object> m = localCached(r, name, a, 3);
                    long start = now();
                    m.clearLocalCache();
                    out("cleared " + (now() - start) + " " + now());
                    m.destroy();
                    break;
                }
                case "adderinc":
                case "dadderinc": {
                    // [d]adderinc PORT NAME N [STEP]: getLongAdder: increment() N times / getDoubleAdder: add(STEP,
                    // default 1) N times; then stay alive aliveSec seconds: the count lives in this process and
                    // reaches Redis only when a sum() asks for it; destroy()
                    int n = Integer.parseInt(a[3]);
                    if (mode.equals("adderinc")) {
                        RLongAdder ad = r.getLongAdder(name);
                        for (int i = 0; i < n; i++) ad.increment();
                        out("incremented " + n + " " + now());
                        Thread.sleep(ALIVE_SEC * 1000);
                        ad.destroy();
                    } else {
                        double step = a.length > 4 ? Double.parseDouble(a[4]) : 1;
                        RDoubleAdder ad = r.getDoubleAdder(name);
                        for (int i = 0; i < n; i++) ad.add(step);
                        out("incremented " + n + " " + now());
                        Thread.sleep(ALIVE_SEC * 1000);
                        ad.destroy();
                    }
                    out("leaving " + now());
                    break;
                }
                case "addersum":
                case "daddersum": {
                    // [d]addersum PORT NAME: sumAsync(timeoutSec) on getLongAdder / getDoubleAdder: PUBLISH
                    // "1:<id>" on {NAME}:adder-topic, wait for one release per receiver (this process too)
                    Number s;
                    if (mode.equals("addersum")) {
                        RLongAdder ad = r.getLongAdder(name);
                        s = adderSum(ad.sumAsync(WAIT_SEC, TimeUnit.SECONDS));
                        ad.destroy();
                    } else {
                        RDoubleAdder ad = r.getDoubleAdder(name);
                        s = adderSum(ad.sumAsync(WAIT_SEC, TimeUnit.SECONDS));
                        ad.destroy();
                    }
                    if (s != null) out("sum " + s + " " + now());
                    break;
                }
                case "bloomadd": {
                    // bloomadd PORT NAME N EXPECTED FPP [PREFIX [CODEC]]: getBloomFilter(NAME, codec) (CODEC string,
                    // the default, or json); tryInit(EXPECTED, FPP); add("<PREFIX><i>") i = 1..N (PREFIX defaults to e)
                    int n = Integer.parseInt(a[3]);
                    long expected = Long.parseLong(a[4]);
                    double fpp = Double.parseDouble(a[5]);
                    String prefix = a.length > 6 ? a[6] : "e";
                    Codec codec = a.length > 7 ? codecArg(a, 7) : StringCodec.INSTANCE;
                    RBloomFilter<Object> bf = r.getBloomFilter(name, codec);
                    out("init " + bf.tryInit(expected, fpp) + " " + now());
                    int fresh = 0;
                    for (int i = 1; i <= n; i++) {
                        if (bf.add(prefix + i)) fresh++;
                    }
                    out("added " + n + " " + now());
                    out("new " + fresh);
                    out("config size " + bf.getSize() + " hashes " + bf.getHashIterations() + " expected "
                            + bf.getExpectedInsertions() + " fpp " + bf.getFalseProbability());
                    break;
                }
                case "bloomcheck": {
                    // bloomcheck PORT NAME N PREFIX [CODEC]: contains("<PREFIX><i>") i = 1..N; no violation either way
                    int n = Integer.parseInt(a[3]);
                    String prefix = a[4];
                    Codec codec = a.length > 5 ? codecArg(a, 5) : StringCodec.INSTANCE;
                    RBloomFilter<Object> bf = r.getBloomFilter(name, codec);
                    int present = 0;
                    for (int i = 1; i <= n; i++) {
                        if (bf.contains(prefix + i)) present++;
                    }
                    out("checked " + n + " present " + present + " " + now());
                    out("config size " + bf.getSize() + " hashes " + bf.getHashIterations() + " expected "
                            + bf.getExpectedInsertions() + " fpp " + bf.getFalseProbability() + " count " + bf.count());
                    break;
                }
                case "idgen": {
                    // idgen PORT NAME N [START [ALLOC]]: getIdGenerator(NAME).tryInit(START, ALLOC) (1, 100), nextId()
                    // N times; then one RPUSH ids:NAME of all N ids; a repeated id within this process is a violation
                    int n = Integer.parseInt(a[3]);
                    long start = a.length > 4 ? Long.parseLong(a[4]) : 1;
                    long alloc = a.length > 5 ? Long.parseLong(a[5]) : 100;
                    RIdGenerator g = r.getIdGenerator(name);
                    out("init " + g.tryInit(start, alloc) + " " + now());
                    List<Long> ids = new ArrayList<>();
                    Set<Long> seen = new HashSet<>();
                    List<String> strs = new ArrayList<>();
                    for (int i = 0; i < n; i++) {
                        long id = g.nextId();
                        if (!seen.add(id)) problem("violation " + PID + ":0 duplicate " + id + " " + now());
                        ids.add(id);
                        strs.add(Long.toString(id));
                    }
                    out("ids " + ids.get(0) + " " + ids.get(n - 1) + " distinct " + seen.size() + " " + now());
                    out("runs " + runs(ids));
                    r.getList("ids:" + name, StringCodec.INSTANCE).addAll(strs);
                    break;
                }
                default:
                    throw new IllegalArgumentException(mode);
            }
            synchronized (problems) {
                if (problems.isEmpty()) System.out.println(last);
            }
        } finally {
            r.shutdown();
        }
        synchronized (problems) {
            if (!problems.isEmpty()) {
                System.out.println("failed " + problems.size());
                System.exit(2);
            }
        }
    }
}
