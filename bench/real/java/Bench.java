// fthr bench/real: Java (OpenJDK) synchronization workloads, one static
// method per case. Usage: java -cp BUILD Bench CASE N
// Each case does N units of fixed work, checks its own result exactly and
// throws (exit 1) if it is wrong. main runs it once with N/10 as a warm-up
// (JIT, class loading), then times a run of N with System.nanoTime and
// prints "RESULT <N per second> <unit>" on stdout.
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.LockSupport;
import java.util.concurrent.locks.ReentrantLock;
import java.util.concurrent.locks.ReentrantReadWriteLock;

public final class Bench {
    interface Body { void run(int t) throws Exception; }

    // Runs body(0..n-1) on n threads and joins them; rethrows the first
    // failure of any of them.
    static void parallel(int n, Body body) throws Exception {
        Thread[] ts = new Thread[n];
        Throwable[] err = new Throwable[n];
        for (int i = 0; i < n; i++) {
            final int t = i;
            ts[i] = new Thread(() -> {
                try { body.run(t); } catch (Throwable e) { err[t] = e; }
            }, "bench-" + i);
        }
        for (Thread t : ts) t.start();
        for (Thread t : ts) t.join();
        for (Throwable e : err)
            if (e != null) throw new Exception("worker failed: " + e, e);
    }

    static void check(boolean ok, String what) {
        if (!ok) throw new IllegalStateException("CHECK FAILED: " + what);
    }

    // fairlock/unfairlock: bounded buffer (capacity 16) guarded by one
    // ReentrantLock and two Conditions; 2 producers put n items in total,
    // 2 consumers take them; each producer ends with a -1 pill.
    static void buffer(int n, boolean fair) throws Exception {
        final int cap = 16, producers = 2, consumers = 2;
        ReentrantLock lock = new ReentrantLock(fair);
        Condition notFull = lock.newCondition(), notEmpty = lock.newCondition();
        long[] buf = new long[cap];
        int[] st = new int[3]; // head, tail, count
        long[] consumed = new long[consumers], taken = new long[consumers];
        parallel(producers + consumers, t -> {
            if (t < producers) {
                int per = n / producers + (t < n % producers ? 1 : 0);
                for (int i = 0; i <= per; i++) {
                    long v = i < per ? (long) i * producers + t + 1 : -1;
                    lock.lock();
                    try {
                        while (st[2] == cap) notFull.await();
                        buf[st[1]] = v; st[1] = (st[1] + 1) % cap; st[2]++;
                        notEmpty.signal();
                    } finally { lock.unlock(); }
                }
            } else {
                int c = t - producers;
                for (;;) {
                    long v;
                    lock.lock();
                    try {
                        while (st[2] == 0) notEmpty.await();
                        v = buf[st[0]]; st[0] = (st[0] + 1) % cap; st[2]--;
                        notFull.signal();
                    } finally { lock.unlock(); }
                    if (v < 0) break;
                    consumed[c] += v; taken[c]++;
                }
            }
        });
        // produced values are exactly 1..n
        long sum = 0, cnt = 0;
        for (int c = 0; c < consumers; c++) { sum += consumed[c]; cnt += taken[c]; }
        check(cnt == n, "consumed " + cnt + " items, produced " + n);
        check(sum == (long) n * (n + 1) / 2, "consumed sum " + sum + " != produced sum " + (long) n * (n + 1) / 2);
        check(st[2] == 0, "buffer not empty at the end: " + st[2]);
    }

    // sync: 4 threads each do n/4 synchronized increments of one counter.
    static long counter;
    static void sync(int n) throws Exception {
        final int threads = 4, per = n / threads;
        Object mon = new Object();
        counter = 0;
        parallel(threads, t -> {
            for (int i = 0; i < per; i++) synchronized (mon) { counter++; }
        });
        synchronized (mon) { check(counter == (long) per * threads, "counter " + counter + " != " + (long) per * threads); }
    }

    // waitnotify: n round trips of a turn flag between 2 threads, each
    // waiting on the same monitor with wait() and waking the other with
    // notify().
    static int turn;
    static void waitnotify(int n) throws Exception {
        Object mon = new Object();
        int[] trips = new int[2];
        turn = 0;
        parallel(2, t -> {
            for (int i = 0; i < n; i++) {
                synchronized (mon) {
                    while (turn != t) mon.wait();
                    turn = 1 - t; trips[t]++;
                    mon.notify();
                }
            }
        });
        check(trips[0] == n && trips[1] == n, "trips " + trips[0] + "/" + trips[1] + " != " + n);
        check(turn == 0, "turn " + turn + " at the end");
    }

    // park: n round trips between 2 threads with LockSupport.park/unpark on
    // an atomic turn flag.
    static void park(int n) throws Exception {
        AtomicInteger turn = new AtomicInteger(0);
        Thread[] who = new Thread[2];
        int[] trips = new int[2];
        Thread[] ts = new Thread[2];
        Throwable[] err = new Throwable[2];
        for (int i = 0; i < 2; i++) {
            final int t = i;
            ts[i] = new Thread(() -> {
                try {
                    for (int k = 0; k < n; k++) {
                        while (turn.get() != t) LockSupport.park(Bench.class);
                        trips[t]++;
                        turn.set(1 - t);
                        LockSupport.unpark(ts[1 - t]);
                    }
                } catch (Throwable e) { err[t] = e; }
            }, "bench-" + i);
        }
        for (Thread t : ts) t.start();
        for (Thread t : ts) t.join();
        for (Throwable e : err) if (e != null) throw new Exception("worker failed: " + e, e);
        check(trips[0] == n && trips[1] == n, "trips " + trips[0] + "/" + trips[1] + " != " + n);
        check(turn.get() == 0, "turn " + turn.get() + " at the end");
    }

    // pool: n tiny Callables on Executors.newFixedThreadPool(4), submitted
    // in batches of 1000 whose futures are joined in order.
    static void pool(int n) throws Exception {
        ExecutorService ex = Executors.newFixedThreadPool(4);
        long sum = 0;
        try {
            List<Future<Long>> fs = new ArrayList<>(1000);
            for (int base = 0; base < n; base += 1000) {
                fs.clear();
                for (int i = base; i < Math.min(n, base + 1000); i++) {
                    final long v = i;
                    fs.add(ex.submit(() -> v * 3 + 1));
                }
                for (Future<Long> f : fs) sum += f.get();
            }
        } finally {
            ex.shutdown();
            check(ex.awaitTermination(60, java.util.concurrent.TimeUnit.SECONDS), "pool did not terminate");
        }
        long want = 3L * n * (n - 1) / 2 + n;
        check(sum == want, "results sum " + sum + " != " + want);
    }

    // rwlock: 4 threads each do n/4 operations on one (nonfair)
    // ReentrantReadWriteLock: every 100th is a write (a++, b++), the rest
    // read a and b and check they are equal (writer excluded).
    static long ra, rb;
    static void rwlock(int n) throws Exception {
        final int threads = 4, per = n / threads;
        ReentrantReadWriteLock rw = new ReentrantReadWriteLock();
        ReentrantReadWriteLock.ReadLock r = rw.readLock();
        ReentrantReadWriteLock.WriteLock w = rw.writeLock();
        long[] torn = new long[threads];
        ra = rb = 0;
        parallel(threads, t -> {
            for (int i = 0; i < per; i++) {
                if (i % 100 == 0) {
                    w.lock();
                    try { ra++; rb++; } finally { w.unlock(); }
                } else {
                    r.lock();
                    try { if (ra != rb) torn[t]++; } finally { r.unlock(); }
                }
            }
        });
        long writes = (long) threads * ((per + 99) / 100), bad = 0;
        for (long x : torn) bad += x;
        check(bad == 0, bad + " reads saw a half-done write");
        w.lock();
        try { check(ra == writes && rb == writes, "writes " + ra + "/" + rb + " != " + writes); }
        finally { w.unlock(); }
    }

    // create: n threads created, started and joined one after the other.
    static void create(int n) throws Exception {
        AtomicInteger ran = new AtomicInteger();
        for (int i = 0; i < n; i++) {
            Thread t = new Thread(ran::incrementAndGet);
            t.start();
            t.join();
        }
        check(ran.get() == n, "threads ran " + ran.get() + " != " + n);
    }

    static void dispatch(String name, int n) throws Exception {
        switch (name) {
            case "fairlock":   buffer(n, true); break;
            case "unfairlock": buffer(n, false); break;
            case "sync":       sync(n); break;
            case "waitnotify": waitnotify(n); break;
            case "park":       park(n); break;
            case "pool":       pool(n); break;
            case "rwlock":     rwlock(n); break;
            case "create":     create(n); break;
            default: throw new IllegalArgumentException("unknown case " + name);
        }
    }

    static final String[][] UNITS = {
        {"fairlock", "items/s"}, {"unfairlock", "items/s"}, {"sync", "ops/s"},
        {"waitnotify", "round-trips/s"}, {"park", "round-trips/s"},
        {"pool", "tasks/s"}, {"rwlock", "ops/s"}, {"create", "threads/s"},
    };

    public static void main(String[] args) throws Exception {
        if (args.length != 2) { System.err.println("usage: Bench CASE N"); System.exit(2); }
        String name = args[0];
        int n = Integer.parseInt(args[1]);
        String unit = null;
        for (String[] u : UNITS) if (u[0].equals(name)) unit = u[1];
        if (unit == null || n < 10) { System.err.println("unknown case " + name + " or N < 10"); System.exit(2); }
        try {
            dispatch(name, n / 10);           // warm-up
            long t0 = System.nanoTime();
            dispatch(name, n);
            double s = (System.nanoTime() - t0) / 1e9;
            System.err.printf("%s: %d in %.3f s%n", name, n, s);
            System.out.printf("RESULT %.0f %s%n", n / s, unit);
        } catch (Exception e) {
            System.err.println(name + ": " + e);
            System.exit(1);
        }
    }
}
