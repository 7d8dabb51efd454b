/* bench/fthr-bench.c: fthr's benchmark programs in one binary, compiled
 * once against the system <pthread.h> and run by bench/run.sh on plain
 * glibc and with fthr preloaded.
 *
 *   fthr-bench NAME [ARGS...]
 *
 * prints one line "RESULT <value> <unit> cpu=<process cpu seconds> [extra]"
 * and exits 0; a benchmark whose own check fails (lost updates, two
 * writers inside, items missing) prints "VIOLATION ..." and exits 1, so a
 * fast wrong lock can never look good. `fthr-bench list` names them all.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <semaphore.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static double now(clockid_t c)
{
	struct timespec ts;

	clock_gettime(c, &ts);
	return ts.tv_sec + ts.tv_nsec * 1e-9;
}

static void result(double v, const char *unit, const char *extra)
{
	printf("RESULT %.6g %s cpu=%.3f %s\n", v, unit, now(CLOCK_PROCESS_CPUTIME_ID),
	       extra ? extra : "");
}

static void violation(const char *what, long got, long want)
{
	printf("VIOLATION %s: %ld, expected %ld\n", what, got, want);
	exit(1);
}

static void pin_self(int cpu)
{
	cpu_set_t s;

	if (cpu < 0)
		return;
	CPU_ZERO(&s);
	CPU_SET(cpu % (int)sysconf(_SC_NPROCESSORS_ONLN), &s);
	pthread_setaffinity_np(pthread_self(), sizeof(s), &s);
}

/* pinning of a two-thread benchmark: none, same cpu, different cpus */
static int pin_of(const char *p, int thread)
{
	if (!p || !strcmp(p, "none"))
		return -1;
	return strcmp(p, "same") == 0 ? 0 : thread;
}

/* a burn of roughly 'ns' nanoseconds of work (critical sections) */
static volatile unsigned long sink;
static unsigned long burn(unsigned long x, int units)
{
	for (int i = 0; i < units; i++)
		x = x * 6364136223846793005ul + 1442695040888963407ul;
	return x;
}

/* ... on shared data: for critical sections that exclude each other */
static void work(int units)
{
	sink = burn(sink, units);
}

/* ---- 1. uncontended operations: ns per op ---- */

static pthread_mutex_t um;
static pthread_spinlock_t us;
static pthread_rwlock_t urw = PTHREAD_RWLOCK_INITIALIZER;
static sem_t usem;
static pthread_cond_t ucond = PTHREAD_COND_INITIALIZER;
static pthread_once_t uonce = PTHREAD_ONCE_INIT;
static pthread_key_t ukey;
static void once_fn(void) {}

static void *idle(void *arg)
{
	pause();
	return arg;
}

static int bench_uncontended(int argc, char **argv)
{
	const char *op = argc > 0 ? argv[0] : "mutex_normal";
	long n = argc > 2 ? atol(argv[2]) : 20000000, i, count = 0;
	pthread_mutexattr_t a;
	pthread_t t;
	double t0;
	int kind = PTHREAD_MUTEX_NORMAL;

	if (argc > 1 && !strcmp(argv[1], "mt")) /* a multi-threaded process */
		pthread_create(&t, NULL, idle, NULL);
	if (!strcmp(op, "mutex_recursive"))
		kind = PTHREAD_MUTEX_RECURSIVE;
	else if (!strcmp(op, "mutex_errorcheck"))
		kind = PTHREAD_MUTEX_ERRORCHECK;
	else if (!strcmp(op, "mutex_adaptive"))
		kind = PTHREAD_MUTEX_ADAPTIVE_NP;
	pthread_mutexattr_init(&a);
	pthread_mutexattr_settype(&a, kind);
	pthread_mutex_init(&um, &a);
	pthread_spin_init(&us, 0);
	sem_init(&usem, 0, 0);
	pthread_key_create(&ukey, NULL);
	pthread_setspecific(ukey, &count);
	pthread_once(&uonce, once_fn);

	t0 = now(CLOCK_MONOTONIC);
	if (!strncmp(op, "mutex_", 6) && strcmp(op, "mutex_trylock")) {
		for (i = 0; i < n; i++) {
			pthread_mutex_lock(&um);
			count++;
			pthread_mutex_unlock(&um);
		}
	} else if (!strcmp(op, "mutex_trylock")) {
		for (i = 0; i < n; i++)
			if (pthread_mutex_trylock(&um) == 0) {
				count++;
				pthread_mutex_unlock(&um);
			}
	} else if (!strcmp(op, "spin")) {
		for (i = 0; i < n; i++) {
			pthread_spin_lock(&us);
			count++;
			pthread_spin_unlock(&us);
		}
	} else if (!strcmp(op, "rwlock_rd")) {
		for (i = 0; i < n; i++) {
			pthread_rwlock_rdlock(&urw);
			count++;
			pthread_rwlock_unlock(&urw);
		}
	} else if (!strcmp(op, "rwlock_wr")) {
		for (i = 0; i < n; i++) {
			pthread_rwlock_wrlock(&urw);
			count++;
			pthread_rwlock_unlock(&urw);
		}
	} else if (!strcmp(op, "sem_postwait")) {
		for (i = 0; i < n; i++) {
			sem_post(&usem);
			if (sem_wait(&usem) == 0)
				count++;
		}
	} else if (!strcmp(op, "cond_signal")) {
		for (i = 0; i < n; i++)
			count += pthread_cond_signal(&ucond) == 0;
	} else if (!strcmp(op, "cond_broadcast")) {
		for (i = 0; i < n; i++)
			count += pthread_cond_broadcast(&ucond) == 0;
	} else if (!strcmp(op, "once")) {
		for (i = 0; i < n; i++)
			count += pthread_once(&uonce, once_fn) == 0;
	} else if (!strcmp(op, "getspecific")) {
		for (i = 0; i < n; i++)
			count += pthread_getspecific(ukey) == (void *)&count;
	} else if (!strcmp(op, "setspecific")) {
		for (i = 0; i < n; i++)
			count += pthread_setspecific(ukey, &count) == 0;
	} else if (!strcmp(op, "self")) {
		pthread_t s = pthread_self();
		for (i = 0; i < n; i++)
			count += pthread_equal(pthread_self(), s);
	} else {
		fprintf(stderr, "unknown op %s\n", op);
		return 2;
	}
	double dt = now(CLOCK_MONOTONIC) - t0;
	if (count != n)
		violation(op, count, n);
	result(dt * 1e9 / n, "ns/op", NULL);
	return 0;
}

/* ---- 2. contended mutex: throughput and fairness ---- */

/* one cache line each; the work between critical sections is on the
 * thread's own data (shared writes there would measure false sharing) */
struct cworker {
	pthread_t t;
	long ops;
	unsigned long acc;
} __attribute__((aligned(64)));
static pthread_mutex_t cm = PTHREAD_MUTEX_INITIALIZER;
static long cm_count;
static volatile int stop_flag;

/* Run n workers of fn for secs seconds: ws is an array of n structs of
 * 'size' bytes, each starting with its pthread_t, and each worker gets its
 * own struct; they run until stop_flag is set, then are joined. */
static void run_workers(void *ws, size_t size, int n, void *(*fn)(void *), double secs)
{
	char *p = ws;
	pthread_t t;

	for (int i = 0; i < n; i++) {
		pthread_create(&t, NULL, fn, p + (size_t)i * size);
		*(pthread_t *)(p + (size_t)i * size) = t; /* (no worker reads it) */
	}
	usleep((useconds_t)(secs * 1e6));
	stop_flag = 1;
	for (int i = 0; i < n; i++)
		pthread_join(*(pthread_t *)(p + (size_t)i * size), NULL);
}
static int cs_units;

static void *contend_worker(void *arg)
{
	struct cworker *w = arg;

	while (!stop_flag) {
		pthread_mutex_lock(&cm);
		cm_count++;
		work(cs_units);
		pthread_mutex_unlock(&cm);
		w->ops++;
		w->acc = burn(w->acc, 20);
	}
	return NULL;
}

static int bench_contend(int argc, char **argv)
{
	int threads = argc > 0 ? atoi(argv[0]) : 4, i;
	double secs = argc > 2 ? atof(argv[2]) : 1.0, t0, dt;
	struct cworker *w = aligned_alloc(64, (size_t)threads * sizeof(*w));
	long total = 0, mn = -1, mx = 0;
	char extra[96];

	memset(w, 0, (size_t)threads * sizeof(*w));

	cs_units = (argc > 1 && !strcmp(argv[1], "1us")) ? 400 : 0;
	t0 = now(CLOCK_MONOTONIC);
	run_workers(w, sizeof(*w), threads, contend_worker, secs);
	for (i = 0; i < threads; i++) {
		total += w[i].ops;
		sink += w[i].acc;
		mn = (mn < 0 || w[i].ops < mn) ? w[i].ops : mn;
		mx = w[i].ops > mx ? w[i].ops : mx;
	}
	dt = now(CLOCK_MONOTONIC) - t0;
	if (total != cm_count)
		violation("mutual exclusion", cm_count, total);
	snprintf(extra, sizeof(extra), "fairness=%.3f", mx ? (double)mn / mx : 0.0);
	result(total / dt, "locks/s", extra);
	return 0;
}

/* ---- 3. condition variables ---- */

static pthread_mutex_t pm = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t pc = PTHREAD_COND_INITIALIZER;
static long turn, rounds;
static const char *pinning;

static void *pong(void *arg)
{
	long me = (long)arg;

	pin_self(pin_of(pinning, (int)me));
	pthread_mutex_lock(&pm);
	while (turn < 2 * rounds) {
		while ((turn & 1) != me && turn < 2 * rounds)
			pthread_cond_wait(&pc, &pm);
		if (turn >= 2 * rounds)
			break;
		turn++;
		pthread_cond_signal(&pc);
	}
	pthread_mutex_unlock(&pm);
	return NULL;
}

static int bench_cond_pingpong(int argc, char **argv)
{
	pthread_t a, b;
	double t0;

	pinning = argc > 0 ? argv[0] : "none";
	rounds = argc > 1 ? atol(argv[1]) : 100000;
	t0 = now(CLOCK_MONOTONIC);
	pthread_create(&a, NULL, pong, (void *)0L);
	pthread_create(&b, NULL, pong, (void *)1L);
	pthread_join(a, NULL);
	pthread_join(b, NULL);
	if (turn != 2 * rounds)
		violation("ping-pong turns", turn, 2 * rounds);
	result((now(CLOCK_MONOTONIC) - t0) * 1e9 / rounds, "ns/roundtrip", NULL);
	return 0;
}

/* bounded queue, P producers and C consumers */
enum { QCAP = 64 };
static long q[QCAP], qhead, qtail, produced_sum, consumed_sum, consumed_n;
static pthread_cond_t q_notempty = PTHREAD_COND_INITIALIZER, q_notfull = PTHREAD_COND_INITIALIZER;
static long q_per_producer;

static void *producer(void *arg)
{
	long base = (long)arg * 1000000000L, sum = 0;

	for (long i = 0; i < q_per_producer; i++) {
		pthread_mutex_lock(&pm);
		while (qtail - qhead == QCAP)
			pthread_cond_wait(&q_notfull, &pm);
		q[qtail++ % QCAP] = base + i;
		sum += base + i;
		pthread_cond_signal(&q_notempty);
		pthread_mutex_unlock(&pm);
	}
	pthread_mutex_lock(&pm);
	produced_sum += sum;
	pthread_mutex_unlock(&pm);
	return NULL;
}

static long q_total;
static void *consumer(void *arg)
{
	(void)arg;
	pthread_mutex_lock(&pm);
	for (;;) {
		while (qtail == qhead && consumed_n < q_total)
			pthread_cond_wait(&q_notempty, &pm);
		if (consumed_n >= q_total)
			break;
		consumed_sum += q[qhead++ % QCAP];
		if (++consumed_n == q_total)
			pthread_cond_broadcast(&q_notempty);
		pthread_cond_signal(&q_notfull);
	}
	pthread_mutex_unlock(&pm);
	return NULL;
}

static int bench_queue(int argc, char **argv)
{
	int p = argc > 0 ? atoi(argv[0]) : 1, c = argc > 1 ? atoi(argv[1]) : 1, i;
	pthread_t t[64];
	double t0;

	q_per_producer = (argc > 2 ? atol(argv[2]) : 400000) / p;
	q_total = q_per_producer * p;
	t0 = now(CLOCK_MONOTONIC);
	for (i = 0; i < c; i++)
		pthread_create(&t[i], NULL, consumer, NULL);
	for (i = 0; i < p; i++)
		pthread_create(&t[c + i], NULL, producer, (void *)(long)i);
	for (i = 0; i < p + c; i++)
		pthread_join(t[i], NULL);
	if (consumed_n != q_total || consumed_sum != produced_sum)
		violation("items accounted", consumed_n, q_total);
	result(q_total / (now(CLOCK_MONOTONIC) - t0), "items/s", NULL);
	return 0;
}

/* a stream: one producer that never waits, spending WORK units on each item
 * outside the mutex and signalling once per item; C consumers take every
 * item there is at each wake-up (a log writer, an event loop's queue) */
static long st_produced, st_taken, st_items, st_wakeups;
static int st_done;
static pthread_cond_t st_c = PTHREAD_COND_INITIALIZER;
static int st_work;

static void *st_producer(void *arg)
{
	unsigned long x = 1;

	(void)arg;
	for (long i = 0; i < st_items; i++) {
		pthread_mutex_lock(&pm);
		st_produced++;
		pthread_cond_signal(&st_c);
		pthread_mutex_unlock(&pm);
		x = burn(x, st_work);
	}
	sink = x;
	pthread_mutex_lock(&pm);
	st_done = 1; /* the end, for every consumer */
	pthread_cond_broadcast(&st_c);
	pthread_mutex_unlock(&pm);
	return NULL;
}

static void *st_consumer(void *arg)
{
	(void)arg;
	pthread_mutex_lock(&pm);
	for (;;) {
		while (st_produced == st_taken && !st_done)
			pthread_cond_wait(&st_c, &pm);
		if (st_produced == st_taken)
			break;
		st_wakeups++;
		st_taken = st_produced;
	}
	pthread_mutex_unlock(&pm);
	return NULL;
}

static int bench_stream(int argc, char **argv)
{
	int c = argc > 0 ? atoi(argv[0]) : 1, i;
	pthread_t t[64];
	char extra[64];
	double t0;

	st_work = argc > 1 ? atoi(argv[1]) : 64;
	st_items = argc > 2 ? atol(argv[2]) : 400000;
	if (c < 1 || c > 63)
		c = 1;
	t0 = now(CLOCK_MONOTONIC);
	for (i = 0; i < c; i++)
		pthread_create(&t[i], NULL, st_consumer, NULL);
	pthread_create(&t[c], NULL, st_producer, NULL);
	for (i = 0; i <= c; i++)
		pthread_join(t[i], NULL);
	if (st_produced != st_items || st_taken != st_items)
		violation("items taken", st_taken, st_items);
	snprintf(extra, sizeof(extra), "items/wake-up=%.1f", (double)st_items / st_wakeups);
	result(st_items / (now(CLOCK_MONOTONIC) - t0), "items/s", extra);
	return 0;
}

/* a burn of about 'ns' nanoseconds by the clock (not by work units: the
 * rows below keep the gap of the tests they came from) */
static void spin_ns(double ns)
{
	double end = now(CLOCK_MONOTONIC) + ns * 1e-9;

	while (now(CLOCK_MONOTONIC) < end)
		;
}

/* batch: a producer that never waits signals its one consumer once per
 * item and spends GAP_NS outside the mutex on each, the two threads pinned
 * apart (on one cpu each wake-up preempts the producer: one item per
 * wake-up whatever the library does). Items per wake-up: a consumer that
 * catches every signal runs in lock step with the producer; one that lets
 * the items pile up while it sleeps or naps takes many at a time
 * (lib/thr_cond.c, cond_batch_woken; docs/performance.md, Condition
 * variables). */
static long bt_produced, bt_items;
static int bt_gap;
static pthread_cond_t bt_c = PTHREAD_COND_INITIALIZER;

static void *bt_producer(void *arg)
{
	(void)arg;
	pin_self(1);
	for (long i = 0; i < bt_items; i++) {
		pthread_mutex_lock(&pm);
		bt_produced++;
		pthread_cond_signal(&bt_c);
		pthread_mutex_unlock(&pm);
		spin_ns(bt_gap);
	}
	return NULL;
}

static int bench_batch(int argc, char **argv)
{
	long consumed = 0, wakes = 0;
	pthread_t t;

	bt_items = argc > 0 ? atol(argv[0]) : 100000;
	bt_gap = argc > 1 ? atoi(argv[1]) : 100;
	pin_self(0);
	pthread_mutex_lock(&pm);
	pthread_create(&t, NULL, bt_producer, NULL);
	while (consumed < bt_items) {
		while (bt_produced == consumed)
			pthread_cond_wait(&bt_c, &pm);
		wakes++;
		consumed = bt_produced;
	}
	pthread_mutex_unlock(&pm);
	pthread_join(t, NULL);
	if (consumed != bt_items || bt_produced != bt_items)
		violation("items consumed", consumed, bt_items);
	result((double)consumed / wakes, "items/wake-up", NULL);
	return 0;
}

/* queue_stall: a bounded queue (64 items), one producer and one consumer
 * pinned apart, both waiting, on two conditions of one mutex; the run with
 * untimed waits over the same run with timed ones. A batching consumer
 * that naps where the producer has filled the queue and waits on "not
 * full" leaves both cpus idle for the rest of the nap; a timed wait never
 * naps, so the timed run is the measure: near 1, no nap stalls (fthr does
 * not nap while another thread waits on another condition of the mutex,
 * lib/wait.c; docs/performance.md, Condition variables). */
static long qs_head, qs_tail, qs_items;
static bool qs_timed;
static struct timespec qs_far;
static pthread_cond_t qs_notempty = PTHREAD_COND_INITIALIZER;
static pthread_cond_t qs_notfull = PTHREAD_COND_INITIALIZER;

static void qs_wait(pthread_cond_t *c)
{
	if (qs_timed)
		pthread_cond_timedwait(c, &pm, &qs_far);
	else
		pthread_cond_wait(c, &pm);
}

static void *qs_producer(void *arg)
{
	(void)arg;
	pin_self(1);
	pthread_mutex_lock(&pm);
	for (long i = 0; i < qs_items; i++) {
		while (qs_tail - qs_head == QCAP)
			qs_wait(&qs_notfull);
		qs_tail++;
		pthread_cond_signal(&qs_notempty);
		pthread_mutex_unlock(&pm);
		pthread_mutex_lock(&pm);
	}
	pthread_mutex_unlock(&pm);
	return NULL;
}

/* one run, its waits timed or not: its seconds */
static double qs_run(bool timed)
{
	double t0 = now(CLOCK_MONOTONIC);
	pthread_t t;

	clock_gettime(CLOCK_REALTIME, &qs_far);
	qs_far.tv_sec += 60;
	qs_timed = timed;
	qs_head = qs_tail = 0;
	pthread_mutex_lock(&pm);
	pthread_create(&t, NULL, qs_producer, NULL);
	while (qs_head < qs_items) {
		while (qs_tail == qs_head)
			qs_wait(&qs_notempty);
		qs_head++;
		pthread_cond_signal(&qs_notfull);
		pthread_mutex_unlock(&pm);
		pthread_mutex_lock(&pm);
	}
	pthread_mutex_unlock(&pm);
	pthread_join(t, NULL);
	if (qs_tail != qs_items)
		violation("items produced", qs_tail, qs_items);
	return now(CLOCK_MONOTONIC) - t0;
}

static int bench_queue_stall(int argc, char **argv)
{
	double untimed, timed;
	char extra[64];

	qs_items = argc > 0 ? atol(argv[0]) : 200000;
	pin_self(0);
	untimed = qs_run(false);
	timed = qs_run(true);
	snprintf(extra, sizeof(extra), "untimed=%.3fs timed=%.3fs", untimed, timed);
	result(untimed / timed, "untimed/timed", extra);
	return 0;
}

/* broadcast to W waiters: time until the last one holds the mutex */
static int bw_waiting, bw_gen, bw_done;
static void *bwaiter(void *arg)
{
	(void)arg;
	pthread_mutex_lock(&pm);
	for (;;) {
		int g = bw_gen;

		if (g < 0)
			break;
		bw_waiting++;
		while (bw_gen == g)
			pthread_cond_wait(&pc, &pm);
		bw_done++;
		if (bw_gen < 0)
			break;
	}
	pthread_mutex_unlock(&pm);
	return NULL;
}

static int bench_broadcast(int argc, char **argv)
{
	int w = argc > 0 ? atoi(argv[0]) : 8, r = argc > 1 ? atoi(argv[1]) : 200, i, k;
	pthread_t t[256];
	double total = 0;

	for (i = 0; i < w; i++)
		pthread_create(&t[i], NULL, bwaiter, NULL);
	for (k = 0; k < r; k++) {
		double t0;

		for (;;) { /* everyone waiting again */
			pthread_mutex_lock(&pm);
			if (bw_waiting == w)
				break;
			pthread_mutex_unlock(&pm);
			sched_yield();
		}
		bw_waiting = 0;
		bw_done = 0;
		t0 = now(CLOCK_MONOTONIC);
		bw_gen = k == r - 1 ? -1 : k + 1;
		pthread_cond_broadcast(&pc);
		pthread_mutex_unlock(&pm);
		for (;;) { /* until the last one has had the mutex */
			pthread_mutex_lock(&pm);
			if (bw_done == w)
				break;
			pthread_mutex_unlock(&pm);
			sched_yield();
		}
		total += now(CLOCK_MONOTONIC) - t0;
		pthread_mutex_unlock(&pm);
	}
	for (i = 0; i < w; i++)
		pthread_join(t[i], NULL);
	result(total * 1e6 / r, "us/broadcast", NULL);
	return 0;
}

/* ---- 4. rwlock mixes ---- */
static pthread_rwlock_t rw = PTHREAD_RWLOCK_INITIALIZER;
static int write_pct, rw_work = 20;
static long rw_writes, rw_inside_w;
/* one cache line each, and readers burn on their own data: the figure is
 * the lock's, not false sharing's */
struct rwworker {
	pthread_t t;
	long ops, writes;
	unsigned long acc;
	unsigned seed;
} __attribute__((aligned(64)));

static void *rw_worker(void *arg)
{
	struct rwworker *w = arg;

	while (!stop_flag) {
		if ((int)(rand_r(&w->seed) % 100) < write_pct) {
			pthread_rwlock_wrlock(&rw);
			if (rw_inside_w++ != 0)
				violation("writers inside", rw_inside_w, 1);
			rw_writes++;
			work(rw_work);
			rw_inside_w--;
			pthread_rwlock_unlock(&rw);
			w->writes++;
		} else {
			pthread_rwlock_rdlock(&rw);
			if (rw_inside_w != 0)
				violation("writer inside while reading", rw_inside_w, 0);
			w->acc = burn(w->acc + (unsigned long)rw_writes, rw_work);
			pthread_rwlock_unlock(&rw);
		}
		w->ops++;
	}
	return NULL;
}

static int bench_rwlock(int argc, char **argv)
{
	int threads = argc > 0 ? atoi(argv[0]) : 4, i;
	double secs = argc > 2 ? atof(argv[2]) : 1.0, t0;
	struct rwworker *w = aligned_alloc(64, (size_t)threads * sizeof(*w));
	long total = 0, writes = 0;

	memset(w, 0, (size_t)threads * sizeof(*w));

	write_pct = argc > 1 ? atoi(argv[1]) : 1;
	rw_work = argc > 3 ? atoi(argv[3]) : 20;
	t0 = now(CLOCK_MONOTONIC);
	for (i = 0; i < threads; i++)
		w[i].seed = (unsigned)i + 1;
	run_workers(w, sizeof(*w), threads, rw_worker, secs);
	for (i = 0; i < threads; i++) {
		total += w[i].ops;
		writes += w[i].writes;
		sink += w[i].acc;
	}
	if (writes != rw_writes)
		violation("writes counted", rw_writes, writes);
	result(total / (now(CLOCK_MONOTONIC) - t0), "ops/s", NULL);
	return 0;
}

/* ---- 4b. the time to acquire a contended lock, and each thread's share ---- */

/* A histogram of times in ns: 8 buckets per power of 2 (12.5% wide) up to
 * 2^40 ns, per thread (its own lines), merged at the end. */
#define LAT_SUB 8
#define LAT_OCT 41
struct latworker {
	pthread_t t;
	long ops;
	unsigned long acc;
	unsigned seed;
	long max_ns;
	long hist[LAT_OCT * LAT_SUB];
} __attribute__((aligned(64)));
static int lat_rw, lat_units;

static int lat_bucket(long ns)
{
	int o = 0;

	if (ns < LAT_SUB)
		return ns < 0 ? 0 : (int)ns;
	while ((ns >> o) >= 2 * LAT_SUB)
		o++;
	/* ns in [LAT_SUB << o, 2 * LAT_SUB << o) */
	return (o + 1) * LAT_SUB + (int)((ns >> o) - LAT_SUB);
}

/* the least time of bucket b: the figure a percentile reports (a bound
 * 12.5% low at most) */
static long lat_floor(int b)
{
	int o = b / LAT_SUB - 1;

	return o < 0 ? b : (long)(LAT_SUB + b % LAT_SUB) << o;
}

/* the time under which all but total/per acquisitions of histogram h fall
 * (per 1000: the 99.9th percentile) */
static long lat_quantile(const long *h, long total, long per)
{
	long seen = 0;
	int b;

	for (b = 0; b < LAT_OCT * LAT_SUB - 1 && (seen += h[b]) < total - total / per; b++)
		;
	return lat_floor(b);
}

/* the acquisitions of histogram h that took at least ns (to a bucket) */
static long lat_over(const long *h, long ns)
{
	long n = 0;

	for (int b = 0; b < LAT_OCT * LAT_SUB; b++)
		n += lat_floor(b) >= ns ? h[b] : 0;
	return n;
}

static long ns_since(const struct timespec *a)
{
	struct timespec b;

	clock_gettime(CLOCK_MONOTONIC, &b);
	return (b.tv_sec - a->tv_sec) * 1000000000L + (b.tv_nsec - a->tv_nsec);
}

static void *lat_worker(void *arg)
{
	struct latworker *w = arg;
	struct timespec t0;
	long ns;

	while (!stop_flag) {
		bool wr = !lat_rw || (int)(rand_r(&w->seed) % 100) < 50;

		clock_gettime(CLOCK_MONOTONIC, &t0);
		if (!lat_rw)
			pthread_mutex_lock(&cm);
		else if (wr)
			pthread_rwlock_wrlock(&rw);
		else
			pthread_rwlock_rdlock(&rw);
		ns = ns_since(&t0);
		if (wr) {
			if (rw_inside_w++ != 0)
				violation("two inside", rw_inside_w, 1);
			cm_count++;
			work(lat_units);
			rw_inside_w--;
		} else {
			w->acc = burn(w->acc + (unsigned long)cm_count, lat_units);
		}
		if (!lat_rw)
			pthread_mutex_unlock(&cm);
		else
			pthread_rwlock_unlock(&rw);
		w->hist[lat_bucket(ns) < LAT_OCT * LAT_SUB ? lat_bucket(ns) : LAT_OCT * LAT_SUB - 1]++;
		w->max_ns = ns > w->max_ns ? ns : w->max_ns;
		w->ops++;
		w->acc = burn(w->acc, 20);
	}
	return NULL;
}

/* THREADS mutex|rwlock tiny|1us p99|max|share [SECONDS]: the 99th
 * percentile or the most of the time to acquire (ns; rwlock: half the
 * acquisitions write), or the least thread's acquisitions as a share of the
 * mean (1: all equal; 0: a thread starved). Each acquisition is timed, so
 * the throughput is below bench_contend's. */
static int bench_acquire(int argc, char **argv)
{
	int threads = argc > 0 ? atoi(argv[0]) : 4, i, b;
	const char *metric = argc > 3 ? argv[3] : "p99";
	double secs = argc > 4 ? atof(argv[4]) : 1.0;
	struct latworker *w = aligned_alloc(64, (size_t)threads * sizeof(*w));
	long total = 0, mn = -1, mx = 0, p99, *h = calloc(LAT_OCT * LAT_SUB, sizeof(long));
	double v;
	char extra[160];

	memset(w, 0, (size_t)threads * sizeof(*w));
	lat_rw = argc > 1 && !strcmp(argv[1], "rwlock");
	lat_units = argc > 2 && !strcmp(argv[2], "1us") ? 400 : 0;
	for (i = 0; i < threads; i++)
		w[i].seed = (unsigned)i + 1;
	run_workers(w, sizeof(*w), threads, lat_worker, secs);
	for (i = 0; i < threads; i++) {
		total += w[i].ops;
		sink += w[i].acc;
		mn = mn < 0 || w[i].ops < mn ? w[i].ops : mn;
		mx = w[i].max_ns > mx ? w[i].max_ns : mx;
		for (b = 0; b < LAT_OCT * LAT_SUB; b++)
			h[b] += w[i].hist[b];
	}
	if (!lat_rw && total != cm_count)
		violation("mutual exclusion", cm_count, total);
	p99 = lat_quantile(h, total, 100);
	snprintf(extra, sizeof(extra),
		 "p99=%ld p99.9=%ld p99.99=%ld over4us/s=%.0f max=%ld share=%.3f ops=%ld",
		 p99, lat_quantile(h, total, 1000), lat_quantile(h, total, 10000),
		 (double)lat_over(h, 4000) / secs, mx,
		 total ? (double)mn * threads / total : 0.0, total);
	v = !strcmp(metric, "max") ? (double)mx
	    : !strcmp(metric, "share") ? (total ? (double)mn * threads / total : 0.0)
				       : (double)p99;
	result(v, !strcmp(metric, "share") ? "share" : "ns", extra);
	return 0;
}

/* ---- 5. semaphores, barriers, create+join ---- */
static sem_t sa, sb;
static void *sem_pong(void *arg)
{
	pin_self(pin_of(pinning, 1));
	for (long i = 0; i < rounds; i++) {
		sem_wait(&sa);
		sem_post(&sb);
	}
	return arg;
}

static int bench_sem_pingpong(int argc, char **argv)
{
	pthread_t t;
	double t0;
	int v;

	pinning = argc > 0 ? argv[0] : "none";
	rounds = argc > 1 ? atol(argv[1]) : 100000;
	sem_init(&sa, 0, 0);
	sem_init(&sb, 0, 0);
	pin_self(pin_of(pinning, 0));
	pthread_create(&t, NULL, sem_pong, NULL);
	t0 = now(CLOCK_MONOTONIC);
	for (long i = 0; i < rounds; i++) {
		sem_post(&sa);
		sem_wait(&sb);
	}
	pthread_join(t, NULL);
	sem_getvalue(&sa, &v);
	if (v != 0)
		violation("semaphore value", v, 0);
	result((now(CLOCK_MONOTONIC) - t0) * 1e9 / rounds, "ns/roundtrip", NULL);
	return 0;
}

static pthread_barrier_t bar;
static long serials;
static void *bar_worker(void *arg)
{
	for (long i = 0; i < rounds; i++)
		if (pthread_barrier_wait(&bar) == PTHREAD_BARRIER_SERIAL_THREAD)
			__atomic_add_fetch(&serials, 1, __ATOMIC_RELAXED);
	return arg;
}

static int bench_barrier(int argc, char **argv)
{
	int n = argc > 0 ? atoi(argv[0]) : 2, i;
	pthread_t t[64];
	double t0;

	rounds = argc > 1 ? atol(argv[1]) : 50000;
	pthread_barrier_init(&bar, NULL, (unsigned)n);
	t0 = now(CLOCK_MONOTONIC);
	for (i = 0; i < n; i++)
		pthread_create(&t[i], NULL, bar_worker, NULL);
	for (i = 0; i < n; i++)
		pthread_join(t[i], NULL);
	if (serials != rounds)
		violation("serial threads", serials, rounds);
	result(rounds / (now(CLOCK_MONOTONIC) - t0), "rounds/s", NULL);
	return 0;
}

static void *noop(void *arg) { return arg; }
static int bench_create_join(int argc, char **argv)
{
	long n = argc > 0 ? atol(argv[0]) : 20000, i, ok = 0;
	double t0 = now(CLOCK_MONOTONIC);

	for (i = 0; i < n; i++) {
		pthread_t t;
		void *r;

		if (pthread_create(&t, NULL, noop, (void *)i) == 0 && pthread_join(t, &r) == 0 &&
		    r == (void *)i)
			ok++;
	}
	if (ok != n)
		violation("threads joined", ok, n);
	result(n / (now(CLOCK_MONOTONIC) - t0), "threads/s", NULL);
	return 0;
}

/* HotSpot's thread start (OpenJDK 17, os_linux.cpp), the hand-shake that
 * bench/real's Java "create" row runs under every Thread.start(): the
 * creator waits on the new thread's monitor (a mutex and a condition
 * variable) until the thread is initialized; the thread, after its own
 * set-up, broadcasts that under the mutex and waits on the same monitor to
 * be started; the creator starts it with a signal, and (Thread.join) parks
 * until the thread, detached, has run its body and unparks it on its way
 * out. Each step's work is a busy wait of a few microseconds (the JVM's
 * set-up, the body, the creator's own work). */
struct hs_thread {
	pthread_mutex_t m;
	pthread_cond_t c;
	int state; /* 0 allocated, 1 initialized, 2 started */
};
static struct {
	pthread_mutex_t m;
	pthread_cond_t c;
	int done;
} hs_join = { PTHREAD_MUTEX_INITIALIZER, PTHREAD_COND_INITIALIZER, 0 };
static double hs_init_us, hs_body_us, hs_creator_us;
static long hs_bodies;

static void hs_busy(double us)
{
	double end = now(CLOCK_MONOTONIC) + us * 1e-6;

	while (now(CLOCK_MONOTONIC) < end)
		;
}

static void *hs_entry(void *arg)
{
	struct hs_thread *t = arg;

	hs_busy(hs_init_us);
	pthread_mutex_lock(&t->m);
	t->state = 1;
	pthread_cond_broadcast(&t->c);
	while (t->state == 1)
		pthread_cond_wait(&t->c, &t->m);
	pthread_mutex_unlock(&t->m);
	hs_busy(hs_body_us);
	__atomic_add_fetch(&hs_bodies, 1, __ATOMIC_RELAXED);
	pthread_mutex_destroy(&t->m);
	pthread_cond_destroy(&t->c);
	free(t);
	/* PlatformEvent::unpark: the signal after the unlock */
	pthread_mutex_lock(&hs_join.m);
	hs_join.done = 1;
	pthread_mutex_unlock(&hs_join.m);
	pthread_cond_signal(&hs_join.c);
	return NULL;
}

static int bench_start_handshake(int argc, char **argv)
{
	long n = argc > 0 ? atol(argv[0]) : 2500, i;
	pthread_attr_t a;
	double t0;

	hs_init_us = argc > 1 ? atof(argv[1]) : 20;
	hs_body_us = argc > 2 ? atof(argv[2]) : 60;
	hs_creator_us = argc > 3 ? atof(argv[3]) : 20;
	pthread_attr_init(&a);
	pthread_attr_setdetachstate(&a, PTHREAD_CREATE_DETACHED);
	t0 = now(CLOCK_MONOTONIC);
	for (i = 0; i < n; i++) {
		struct hs_thread *t = calloc(1, sizeof(*t));
		pthread_t tid;

		if (!t || pthread_mutex_init(&t->m, NULL) || pthread_cond_init(&t->c, NULL) ||
		    pthread_create(&tid, &a, hs_entry, t))
			violation("threads started", i, n);
		pthread_mutex_lock(&t->m);
		while (t->state == 0)
			pthread_cond_wait(&t->c, &t->m);
		t->state = 2;
		pthread_cond_signal(&t->c);
		pthread_mutex_unlock(&t->m);
		hs_busy(hs_creator_us);
		pthread_mutex_lock(&hs_join.m);
		while (!hs_join.done)
			pthread_cond_wait(&hs_join.c, &hs_join.m);
		hs_join.done = 0;
		pthread_mutex_unlock(&hs_join.m);
	}
	if (hs_bodies != n)
		violation("bodies run", hs_bodies, n);
	result(n / (now(CLOCK_MONOTONIC) - t0), "threads/s", NULL);
	return 0;
}

/* ---- 6. the seeds ---- */

/* FreeBSD libthr, 2015: four threads contend one mutex; total locks in
 * N seconds. */
static int bench_freebsd(int argc, char **argv)
{
	double secs = argc > 0 ? atof(argv[0]) : 5;
	struct cworker w[4] = { { 0 } };
	long total = 0;
	int i;

	cs_units = 0;
	run_workers(w, sizeof(*w), 4, contend_worker, secs);
	for (i = 0; i < 4; i++) {
		total += w[i].ops;
	}
	if (total != cm_count)
		violation("mutual exclusion", cm_count, total);
	result((double)total, "locks", NULL);
	return 0;
}

/* Chromium's ThreadLocalStoragePerfTest: read, write, read-write of one
 * slot, per thread, as operations/ms; pthread_getspecific or a C11
 * thread_local (the floor). */
static pthread_key_t tkey;
static _Thread_local void *tl_slot;
static const char *tls_impl, *tls_op;
static long tls_n;

static void *tls_worker(void *arg)
{
	long i, ok = 0;
	bool key = !strcmp(tls_impl, "key");

	if (key)
		pthread_setspecific(tkey, (void *)1);
	else
		tl_slot = (void *)1;
	if (!strcmp(tls_op, "read")) {
		for (i = 0; i < tls_n; i++)
			ok += (key ? pthread_getspecific(tkey) : *(void *volatile *)&tl_slot) != NULL;
	} else if (!strcmp(tls_op, "write")) {
		for (i = 0; i < tls_n; i++) {
			if (key)
				pthread_setspecific(tkey, (void *)(i | 1));
			else
				*(void *volatile *)&tl_slot = (void *)(i | 1);
			ok++;
		}
	} else {
		for (i = 0; i < tls_n; i++) {
			void *v = key ? pthread_getspecific(tkey) : *(void *volatile *)&tl_slot;

			if (key)
				pthread_setspecific(tkey, (void *)((long)v + 2));
			else
				*(void *volatile *)&tl_slot = (void *)((long)v + 2);
			ok++;
		}
		if ((long)(key ? pthread_getspecific(tkey) : tl_slot) != 1 + 2 * tls_n)
			return (void *)1;
	}
	return ok == tls_n ? NULL : (void *)1;
}

static int bench_tls(int argc, char **argv)
{
	int threads = argc > 2 ? atoi(argv[2]) : 1, i, bad = 0;
	pthread_t t[64];
	double t0, dt;
	char extra[64];

	tls_op = argc > 0 ? argv[0] : "read";
	tls_impl = argc > 1 ? argv[1] : "key";
	tls_n = argc > 3 ? atol(argv[3]) : 20000000;
	pthread_key_create(&tkey, NULL);
	t0 = now(CLOCK_MONOTONIC);
	for (i = 0; i < threads; i++)
		pthread_create(&t[i], NULL, tls_worker, NULL);
	for (i = 0; i < threads; i++) {
		void *r;

		pthread_join(t[i], &r);
		bad += r != NULL;
	}
	dt = now(CLOCK_MONOTONIC) - t0;
	if (bad)
		violation("thread-local values", bad, 0);
	snprintf(extra, sizeof(extra), "ns/operation=%.2f", dt * 1e9 / tls_n);
	result(tls_n / (dt * 1e3), "operations/ms", extra);
	return 0;
}

/* Ruby's vm_thread_pipe in C: two threads pass a byte through pipes */
static int pfd1[2], pfd2[2];
static void *pipe_pong(void *arg)
{
	char c;

	for (long i = 0; i < rounds; i++)
		if (read(pfd1[0], &c, 1) != 1 || write(pfd2[1], &c, 1) != 1)
			return (void *)1;
	return arg;
}

static int bench_pipe(int argc, char **argv)
{
	pthread_t t;
	double t0;
	char c = 'x';
	void *r;

	rounds = argc > 0 ? atol(argv[0]) : 100000;
	if (pipe(pfd1) || pipe(pfd2))
		return 2;
	pthread_create(&t, NULL, pipe_pong, NULL);
	t0 = now(CLOCK_MONOTONIC);
	for (long i = 0; i < rounds; i++)
		if (write(pfd1[1], &c, 1) != 1 || read(pfd2[0], &c, 1) != 1)
			violation("pipe", i, rounds);
	pthread_join(t, &r);
	if (r)
		violation("pipe peer", 1, 0);
	result((now(CLOCK_MONOTONIC) - t0) * 1e9 / rounds, "ns/roundtrip", NULL);
	return 0;
}

struct bench {
	const char *name;
	int (*fn)(int, char **);
	const char *usage;
};

static const struct bench benches[] = {
	{ "uncontended", bench_uncontended, "OP st|mt [N]" },
	{ "contend", bench_contend, "THREADS tiny|1us [SECONDS]" },
	{ "cond_pingpong", bench_cond_pingpong, "none|same|diff [ROUNDS]" },
	{ "queue", bench_queue, "PRODUCERS CONSUMERS [ITEMS]" },
	{ "stream", bench_stream, "CONSUMERS [WORK, default 64] [ITEMS]" },
	{ "batch", bench_batch, "[ITEMS [GAP_NS, default 100]]" },
	{ "queue_stall", bench_queue_stall, "[ITEMS]" },
	{ "broadcast", bench_broadcast, "WAITERS [ROUNDS]" },
	{ "acquire", bench_acquire, "THREADS mutex|rwlock tiny|1us p99|max|share [SECONDS]" },
	{ "rwlock", bench_rwlock, "THREADS WRITE_PERCENT [SECONDS [WORK, default 20; 0: tiny sections]]" },
	{ "sem_pingpong", bench_sem_pingpong, "none|same|diff [ROUNDS]" },
	{ "barrier", bench_barrier, "THREADS [ROUNDS]" },
	{ "create_join", bench_create_join, "[N]" },
	{ "start_handshake", bench_start_handshake, "[N [INIT_US BODY_US CREATOR_US]]" },
	{ "freebsd", bench_freebsd, "[SECONDS]" },
	{ "tls", bench_tls, "read|write|rw key|tl [THREADS] [N]" },
	{ "pipe", bench_pipe, "[ROUNDS]" },
};

int main(int argc, char **argv)
{
	size_t i;

	for (i = 0; argc > 1 && i < sizeof(benches) / sizeof(benches[0]); i++)
		if (!strcmp(argv[1], benches[i].name))
			return benches[i].fn(argc - 2, argv + 2);
	for (i = 0; i < sizeof(benches) / sizeof(benches[0]); i++)
		fprintf(stderr, "fthr-bench %s %s\n", benches[i].name, benches[i].usage);
	return 2;
}
