/* tests/t_barrier.c: pthread barriers, private and process-shared, with the
 * system headers. */
#include <limits.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>
#include "harness.h"

#define LOAD(p) __atomic_load_n((p), __ATOMIC_SEQ_CST)
#define STORE(p, v) __atomic_store_n((p), (v), __ATOMIC_SEQ_CST)
#define ADD(p, v) __atomic_add_fetch((p), (v), __ATOMIC_SEQ_CST)

static int gettid_(void) { return (int)syscall(SYS_gettid); }



/* ---- 1. bad arguments and attributes ---- */
START_TEST(init_and_attr_errors)
{
	pthread_barrier_t b;
	pthread_barrierattr_t a;
	int v, bad[] = { -1, 2, 42, 0x7fffffff };
	size_t i;

	ck_assert_int_eq(pthread_barrier_init(&b, NULL, 0), EINVAL);
	/* glibc's bound: a count below UINT_MAX / 2 (= INT_MAX) */
	ck_assert_int_eq(pthread_barrier_init(&b, NULL, INT_MAX), EINVAL);
	ck_assert_int_eq(pthread_barrier_init(&b, NULL, (unsigned)INT_MAX + 1), EINVAL);
	ck_assert_int_eq(pthread_barrier_init(&b, NULL, UINT_MAX), EINVAL);
	ck_assert_int_eq(pthread_barrier_init(&b, NULL, INT_MAX - 1), 0);
	ck_assert_int_eq(pthread_barrier_destroy(&b), 0);

	ck_assert_int_eq(pthread_barrierattr_init(&a), 0);
	ck_assert_int_eq(pthread_barrierattr_getpshared(&a, &v), 0);
	ck_assert_int_eq(v, PTHREAD_PROCESS_PRIVATE);
	ck_assert_int_eq(pthread_barrier_init(&b, &a, 0), EINVAL);
	ck_assert_int_eq(pthread_barrierattr_setpshared(&a, PTHREAD_PROCESS_SHARED), 0);
	ck_assert_int_eq(pthread_barrierattr_getpshared(&a, &v), 0);
	ck_assert_int_eq(v, PTHREAD_PROCESS_SHARED);
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		ck_assert_int_eq(pthread_barrierattr_setpshared(&a, bad[i]), EINVAL);
		ck_assert_int_eq(pthread_barrierattr_getpshared(&a, &v), 0);
		ck_assert_int_eq(v, PTHREAD_PROCESS_SHARED); /* unchanged */
	}
	ck_assert_int_eq(pthread_barrier_init(&b, &a, 0), EINVAL);
	ck_assert_int_eq(pthread_barrierattr_setpshared(&a, PTHREAD_PROCESS_PRIVATE), 0);
	ck_assert_int_eq(pthread_barrierattr_getpshared(&a, &v), 0);
	ck_assert_int_eq(v, PTHREAD_PROCESS_PRIVATE);

	/* good ones still work */
	ck_assert_int_eq(pthread_barrier_init(&b, &a, 1), 0);
	ck_assert_int_eq(pthread_barrierattr_destroy(&a), 0);
	ck_assert_int_eq(pthread_barrier_wait(&b), PTHREAD_BARRIER_SERIAL_THREAD);
	ck_assert_int_eq(pthread_barrier_destroy(&b), 0);
}
END_TEST

/* ---- 2. N threads, R rounds ---- */
enum { ROUNDS = 1000, MAXT = 8 };
static pthread_barrier_t rb;
static int nthreads;
static int arrivals[ROUNDS], serials[ROUNDS], left[ROUNDS];

static void *round_trip(void *arg)
{
	unsigned seed = (unsigned)(intptr_t)arg * 2654435761u;
	int r, res;

	for (r = 0; r < ROUNDS; r++) {
		/* vary who arrives last */
		seed = seed * 1103515245u + 12345u;
		if ((seed >> 16) % 16 == 0)
			sched_yield();
		ADD(&arrivals[r], 1);
		res = pthread_barrier_wait(&rb);
		if (res == PTHREAD_BARRIER_SERIAL_THREAD)
			ADD(&serials[r], 1);
		else if (res != 0)
			return (void *)(intptr_t)(1000 + res);
		/* nobody passes round r before everyone arrived at it */
		if (LOAD(&arrivals[r]) != nthreads)
			return (void *)(intptr_t)1;
		ADD(&left[r], 1);
		if (r > 0 && LOAD(&left[r - 1]) != nthreads)
			return (void *)(intptr_t)3; /* someone skipped round r-1 */
	}
	return NULL;
}

START_TEST(rounds)
{
	static const int counts[] = { 2, 3, 4, 8 };
	pthread_t t[MAXT];
	int i, r;

	nthreads = counts[_i];
	memset(arrivals, 0, sizeof(arrivals));
	memset(serials, 0, sizeof(serials));
	memset(left, 0, sizeof(left));
	ck_assert_int_eq(pthread_barrier_init(&rb, NULL, (unsigned)nthreads), 0);
	for (i = 0; i < nthreads; i++)
		ck_assert_int_eq(pthread_create(&t[i], NULL, round_trip,
						(void *)(intptr_t)(i + 1)), 0);
	for (i = 0; i < nthreads; i++) {
		intptr_t res = (intptr_t)harness_join(t[i], 30);

		ck_assert_msg(res == 0, "thread %d: %d", i, (int)res);
	}
	for (r = 0; r < ROUNDS; r++) {
		ck_assert_msg(serials[r] == 1, "round %d had %d serial threads", r,
			      serials[r]);
		ck_assert_int_eq(arrivals[r], nthreads);
		ck_assert_int_eq(left[r], nthreads);
	}
	/* 6. destroy after use */
	ck_assert_int_eq(pthread_barrier_destroy(&rb), 0);
	ck_assert_int_eq(pthread_barrier_init(&rb, NULL, 1), 0);
	ck_assert_int_eq(pthread_barrier_wait(&rb), PTHREAD_BARRIER_SERIAL_THREAD);
	ck_assert_int_eq(pthread_barrier_destroy(&rb), 0);
}
END_TEST

/* A waiter really waits for the last arrival. */
static pthread_barrier_t wb;
static int w_tid[2], w_done[2];

static void *one_waiter(void *arg)
{
	int i = (int)(intptr_t)arg, r;

	STORE(&w_tid[i], gettid_());
	r = pthread_barrier_wait(&wb);
	STORE(&w_done[i], 1);
	return (void *)(intptr_t)r;
}

START_TEST(waits_for_last_arrival)
{
	pthread_t t[2];
	int i, r, serial = 0;

	memset(w_tid, 0, sizeof(w_tid));
	memset(w_done, 0, sizeof(w_done));
	ck_assert_int_eq(pthread_barrier_init(&wb, NULL, 3), 0);
	for (i = 0; i < 2; i++) {
		ck_assert_int_eq(pthread_create(&t[i], NULL, one_waiter,
						(void *)(intptr_t)i), 0);
		ck_assert(harness_wait_nonzero(&w_tid[i], 5));
		harness_wait_asleep(LOAD(&w_tid[i]), 5);
	}
	/* two of three arrived: both still blocked */
	usleep(50000);
	ck_assert_int_eq(LOAD(&w_done[0]), 0);
	ck_assert_int_eq(LOAD(&w_done[1]), 0);
	r = pthread_barrier_wait(&wb);
	ck_assert_msg(r == 0 || r == PTHREAD_BARRIER_SERIAL_THREAD, "wait: %d", r);
	serial += r == PTHREAD_BARRIER_SERIAL_THREAD;
	for (i = 0; i < 2; i++) {
		r = (int)(intptr_t)harness_join(t[i], 5);
		ck_assert_msg(r == 0 || r == PTHREAD_BARRIER_SERIAL_THREAD, "wait: %d", r);
		serial += r == PTHREAD_BARRIER_SERIAL_THREAD;
	}
	ck_assert_int_eq(serial, 1);
	ck_assert_int_eq(pthread_barrier_destroy(&wb), 0);
}
END_TEST

/* ---- 3. count 1: always serial, never blocks ---- */
START_TEST(count_one)
{
	pthread_barrier_t b;
	int64_t t0 = harness_now_ns(CLOCK_MONOTONIC);
	int i;

	ck_assert_int_eq(pthread_barrier_init(&b, NULL, 1), 0);
	for (i = 0; i < 10000; i++)
		ck_assert_int_eq(pthread_barrier_wait(&b), PTHREAD_BARRIER_SERIAL_THREAD);
	ck_assert_msg(harness_now_ns(CLOCK_MONOTONIC) - t0 < 2000000000LL,
		      "count-1 waits blocked");
	ck_assert_int_eq(pthread_barrier_destroy(&b), 0);
}
END_TEST

/* ---- 4. process-shared across fork ---- */
enum { PS_PROCS = 3, PS_ROUNDS = 300 };
struct shared_area {
	pthread_barrier_t b;
	int arrivals[PS_ROUNDS], serials[PS_ROUNDS], left[PS_ROUNDS];
};

static int ps_rounds(struct shared_area *s, int who)
{
	int r, res;

	for (r = 0; r < PS_ROUNDS; r++) {
		if ((r + who) % 7 == 0)
			sched_yield();
		ADD(&s->arrivals[r], 1);
		res = pthread_barrier_wait(&s->b);
		if (res == PTHREAD_BARRIER_SERIAL_THREAD)
			ADD(&s->serials[r], 1);
		else if (res != 0)
			return 10;
		if (LOAD(&s->arrivals[r]) != PS_PROCS)
			return 11;
		ADD(&s->left[r], 1);
		if (r > 0 && LOAD(&s->left[r - 1]) != PS_PROCS)
			return 12;
	}
	return 0;
}

START_TEST(pshared_across_fork)
{
	struct shared_area *s = mmap(NULL, sizeof(*s), PROT_READ | PROT_WRITE,
				     MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	pthread_barrierattr_t a;
	pid_t pid[PS_PROCS - 1];
	int i, r, status, rc;

	ck_assert_ptr_ne(s, MAP_FAILED);
	memset(s, 0, sizeof(*s));
	ck_assert_int_eq(pthread_barrierattr_init(&a), 0);
	ck_assert_int_eq(pthread_barrierattr_setpshared(&a, PTHREAD_PROCESS_SHARED), 0);
	ck_assert_int_eq(pthread_barrier_init(&s->b, &a, PS_PROCS), 0);
	ck_assert_int_eq(pthread_barrierattr_destroy(&a), 0);
	for (i = 0; i < PS_PROCS - 1; i++) {
		pid[i] = fork();
		ck_assert_int_ge(pid[i], 0);
		if (pid[i] == 0) {
			alarm(30);
			_exit(ps_rounds(s, i + 1));
		}
	}
	rc = ps_rounds(s, 0);
	for (i = 0; i < PS_PROCS - 1; i++) {
		ck_assert_int_eq(waitpid(pid[i], &status, 0), pid[i]);
		ck_assert_msg(WIFEXITED(status) && WEXITSTATUS(status) == 0,
			      "child %d failed: status %d", i, status);
	}
	ck_assert_int_eq(rc, 0);
	for (r = 0; r < PS_ROUNDS; r++) {
		ck_assert_msg(s->serials[r] == 1, "round %d: %d serial", r, s->serials[r]);
		ck_assert_int_eq(s->arrivals[r], PS_PROCS);
		ck_assert_int_eq(s->left[r], PS_PROCS);
	}
	ck_assert_int_eq(pthread_barrier_destroy(&s->b), 0);
	munmap(s, sizeof(*s));
}
END_TEST

/* ---- 5. destroy while a thread waits: EBUSY, barrier left intact ----
 * glibc 2.36 blocks in destroy until the waiters leave (which they never
 * do here), so this test only makes sense for fthr. */
static pthread_barrier_t db;
static int d_tid, d_done;

static void *busy_waiter(void *arg)
{
	int r;

	(void)arg;
	STORE(&d_tid, gettid_());
	r = pthread_barrier_wait(&db);
	STORE(&d_done, 1);
	return (void *)(intptr_t)r;
}

static void *destroyer(void *arg)
{
	(void)arg;
	return (void *)(intptr_t)pthread_barrier_destroy(&db);
}

/* More threads than the count (glibc allows it: the extra ones belong to
 * the next round). Each of 2000 steps, n threads wait once on a barrier of
 * count c (n a multiple of c: n / c rounds a step, so exactly n / c serial
 * returns), then all n line up on a second barrier of count n for the next
 * step. Late arrivals at a full round race with that round's serial thread
 * every step; a thread leaving a round alone or a lost arrival would show
 * as a wrong serial count or a hang (the watchdog). */
static const struct { int n, c; } over_cases[] = { { 4, 2 }, { 6, 2 }, { 6, 3 } };
static pthread_barrier_t over, line_up;
static long over_serial;

static void *over_worker(void *arg)
{
	for (int i = 0; i < 2000; i++) {
		if (pthread_barrier_wait(&over) == PTHREAD_BARRIER_SERIAL_THREAD)
			__atomic_add_fetch(&over_serial, 1, __ATOMIC_RELAXED);
		pthread_barrier_wait(&line_up);
	}
	return arg;
}

START_TEST(more_threads_than_count)
{
	int n = over_cases[_i].n, c = over_cases[_i].c;
	pthread_t t[6];

	over_serial = 0;
	ck_assert_int_eq(pthread_barrier_init(&over, NULL, (unsigned)c), 0);
	ck_assert_int_eq(pthread_barrier_init(&line_up, NULL, (unsigned)n), 0);
	for (int i = 0; i < n; i++)
		ck_assert_int_eq(pthread_create(&t[i], NULL, over_worker, NULL), 0);
	for (int i = 0; i < n; i++)
		harness_join(t[i], 50);
	ck_assert_int_eq(over_serial, 2000L * (n / c));
	ck_assert_int_eq(pthread_barrier_destroy(&over), 0);
	ck_assert_int_eq(pthread_barrier_destroy(&line_up), 0);
}
END_TEST

START_TEST(destroy_while_waiting)
{
	pthread_t w, d;
	intptr_t wr;
	int me, i;

	if (harness_skip_under_tsan("destroy_while_waiting", "it destroys a barrier other threads wait on, on purpose"))
		return;

	if (getenv("FTHR_TEST_ALLOW_GLIBC"))
		return;
	ck_assert_int_eq(pthread_barrier_init(&db, NULL, 2), 0);
	for (i = 0; i < 2; i++) { /* twice: the barrier is reusable after */
		d_tid = d_done = 0;
		ck_assert_int_eq(pthread_create(&w, NULL, busy_waiter, NULL), 0);
		ck_assert(harness_wait_nonzero(&d_tid, 5));
		harness_wait_asleep(LOAD(&d_tid), 5);
		ck_assert_int_eq(pthread_create(&d, NULL, destroyer, NULL), 0);
		ck_assert_int_eq((intptr_t)harness_join(d, 3), EBUSY);
		/* the waiter is still waiting and the last arrival releases it */
		usleep(20000);
		ck_assert_int_eq(LOAD(&d_done), 0);
		me = pthread_barrier_wait(&db);
		wr = (intptr_t)harness_join(w, 5);
		ck_assert_msg((me == 0 && wr == PTHREAD_BARRIER_SERIAL_THREAD) ||
				      (me == PTHREAD_BARRIER_SERIAL_THREAD && wr == 0),
			      "wait results %d and %d", me, (int)wr);
	}
	ck_assert_int_eq(pthread_barrier_destroy(&db), 0);
}
END_TEST
/* A barrier at each place its type's alignment allows within 8 bytes: on
 * 32-bit arches the object is only 4-aligned and fthr's 64-bit state word
 * moves with the address (lib/thr_barrier.c); every placement must count
 * its rounds and serial threads exactly. */
static union {
	char bytes[2 * sizeof(pthread_barrier_t) + 8];
	unsigned long long align8;
} placed;
static pthread_barrier_t *pb;
static long pb_serial, pb_count;

static void *placed_worker(void *arg)
{
	for (int i = 0; i < 3000; i++) {
		if (pthread_barrier_wait(pb) == PTHREAD_BARRIER_SERIAL_THREAD)
			__atomic_add_fetch(&pb_serial, 1, __ATOMIC_RELAXED);
		__atomic_add_fetch(&pb_count, 1, __ATOMIC_RELAXED);
	}
	return arg;
}

START_TEST(every_alignment)
{
	size_t step = _Alignof(pthread_barrier_t);

	for (size_t off = 0; off < 8; off += step) {
		pthread_t t[3];

		pb = (pthread_barrier_t *)(placed.bytes + off);
		pb_serial = pb_count = 0;
		memset(pb, 0xa5, sizeof(*pb));
		ck_assert_int_eq(pthread_barrier_init(pb, NULL, 3), 0);
		for (int i = 0; i < 3; i++)
			ck_assert_int_eq(pthread_create(&t[i], NULL, placed_worker, NULL), 0);
		for (int i = 0; i < 3; i++)
			ck_assert_ptr_null(harness_join(t[i], 30));
		ck_assert_msg(pb_serial == 3000 && pb_count == 9000,
			      "offset %zu: %ld serial, %ld passes", off, pb_serial, pb_count);
		ck_assert_int_eq(pthread_barrier_destroy(pb), 0);
	}
}
END_TEST

int main(void)
{
	Suite *s = suite_create("barrier");
	TCase *tc;

	tc = harness_tcase(s, "errors", 10);
	tcase_add_test(tc, init_and_attr_errors);
	tc = harness_tcase(s, "rounds", 60);
	tcase_add_loop_test(tc, rounds, 0, 4);
	tcase_add_test(tc, waits_for_last_arrival);
	tcase_add_test(tc, count_one);
	tcase_add_loop_test(tc, more_threads_than_count, 0,
			    (int)(sizeof(over_cases) / sizeof(over_cases[0])));
	tcase_add_test(tc, every_alignment);
	tc = harness_tcase(s, "pshared", 60);
	tcase_add_test(tc, pshared_across_fork);
	tc = harness_tcase(s, "destroy", 20);
	tcase_add_test(tc, destroy_while_waiting);
	return harness_main(s);
}
